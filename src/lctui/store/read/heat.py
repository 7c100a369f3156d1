"""The results heatmap's reads: one aggregate row per model x task x length cell, and a
stamp that changes whenever a generation or a score is written (cheap enough to poll).

The cells follow the same rules as `cell_scores` (CELL_AGGREGATES): errors, cancelled
generations and missing scores counted apart, never in the mean.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from datetime import datetime

from lctui.store.read.cells import CELL_AGGREGATES, pivot_rows
from lctui.store.read.source import Source, cursor_of, dict_rows
from lctui.store.result_cells import cells_current
from lctui.store.scorer_versions import outdated_aggregate


@dataclass(frozen=True)
class HeatCellCounts:
    """One model x task x length cell of the latest results."""

    model: str
    task: str
    length: int
    mean_score: float | None  # over ok and unparsed (unparsed count as 0)
    stderr: float | None
    n_scored: int
    n_unparsed: int
    n_error: int
    n_cancelled: int
    n_unscored: int  # succeeded but has no score: missing, never a 0
    reference: bool
    n_outdated: int  # scored by an older version of its scorer than `versions` gives


_HEAT_CELLS_SQL = f"""
    SELECT model, task, length, {CELL_AGGREGATES}, {{outdated}} AS n_outdated
    FROM results_core
    WHERE task IS NOT NULL AND length IS NOT NULL
    GROUP BY ALL
"""


_FIELDS = tuple(f.name for f in fields(HeatCellCounts))


def heat_cells(
    src: Source, versions: Mapping[str, int] | None = None, *, through_views: bool = False
) -> list[HeatCellCounts]:
    """Every cell that has a generation, in no particular order (the grid sorts); from
    `result_cells` unless `through_views` (or rows were written around the writer)."""
    with cursor_of(src) as cur:
        if not through_views and cells_current(cur):
            rows = pivot_rows(cur, "task IS NOT NULL AND length IS NOT NULL", {}, versions)
        else:
            outdated, params = outdated_aggregate(cur, versions)
            cur.execute(_HEAT_CELLS_SQL.format(outdated=outdated), params)
            rows = dict_rows(cur)
    return [
        HeatCellCounts(
            **{**{name: row[name] for name in _FIELDS}, "reference": bool(row["reference"])}
        )
        for row in rows
    ]


@dataclass(frozen=True)
class ChangeStamp:
    """How many generations and scores the file holds and the newest of each: equal
    stamps mean nothing was written in between."""

    generations: int
    last_started: datetime | None
    scores: int
    last_scored: datetime | None


def change_stamp(src: Source) -> ChangeStamp:
    with cursor_of(src) as cur:
        row = cur.execute(
            "SELECT (SELECT count(*) FROM generations), (SELECT max(started_at) FROM generations),"
            " (SELECT count(*) FROM scores), (SELECT max(scored_at) FROM scores)"
        ).fetchone()
    assert row is not None  # an aggregate without GROUP BY always has its row
    return ChangeStamp(int(row[0]), row[1], int(row[2]), row[3])
