"""Which stored scores an older version of their scorer made: the column, its migration,
and the reads that find them.

Every score row and rubric point carries `scorer_version`, the version of the rules
that made it (lctui.scoring.versions). Rows stored before schema 8 hold 0, older than
every version; rows no lctui scorer made hold NULL: the score of a failed request, and
the published scores `lctui import lifbench-scores` brings in (the original's own
numbers, which no rescore can reproduce). NULL is never older than anything, so those
are never flagged.

The store knows no scorer, so the current versions come in as a mapping (scorer name
-> version) from the layers above, passed to DuckDB as two list parameters
(`$scorers`, `$versions`). The reads that list outdated scores are in store/outdated.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import duckdb

# The backend of the models `lctui import lifbench-scores` records: published scores,
# with empty outputs, never re-scored.
PUBLISHED_BACKEND = "imported"
# The backend of the models `lctui import ruler-results` and `longbench-results` record:
# the outputs an original harness stored, scored by lctui's scorers, so their scores
# carry a scorer version and `lctui rescore` redoes them as it does any run's.
HARNESS_BACKEND = "harness"

_VERSIONED = ("scores", "rubric_points")

# The current version of a row's scorer (NULL for a scorer the caller did not list).
CURRENT_VERSION = "$versions[list_position($scorers, scorer)]"
# Counts the rows (of `results`/`results_core`) whose rule-based score an older version
# of its scorer made; an aggregate like those of queries.CELL_AGGREGATES.
OUTDATED_COUNT = f"count(*) FILTER (WHERE scorer_version < {CURRENT_VERSION})"
_ANY_OUTDATED = (
    f"SELECT EXISTS (SELECT 1 FROM rule_scores WHERE scorer_version < {CURRENT_VERSION})"
)

_UNVERSION = """
    UPDATE {table} SET scorer_version = NULL
    WHERE scorer_version IS NOT NULL {restrict}
      AND ({error} gen_hash IN (
          SELECT g.gen_hash FROM generations AS g JOIN models AS m USING (model_id)
          WHERE m.backend = '{published}'))
"""


def version_params(versions: Mapping[str, int] | None) -> dict[str, list[Any]]:
    """The `$scorers` and `$versions` parameters of the current versions (none: nothing
    is older)."""
    pairs = sorted((versions or {}).items())
    return {"scorers": [name for name, _ in pairs], "versions": [int(v) for _, v in pairs]}


def outdated_aggregate(
    cur: duckdb.DuckDBPyConnection, versions: Mapping[str, int] | None
) -> tuple[str, dict[str, Any]]:
    """The SQL of an `n_outdated` aggregate over `results`/`results_core` and its
    parameters: OUTDATED_COUNT when some latest rule-based score is older than
    `versions` says, else a plain 0. Reading every row's scorer and version costs ~40 %
    more CPU in the results pivot (1M rows); the check costs ~1 ms, so the usual file,
    with nothing outdated, pivots as fast as before."""
    if not versions:
        return "0", {}
    params = version_params(versions)
    found = cur.execute(_ANY_OUTDATED, params).fetchone()
    if not found or not found[0]:
        return "0", {}
    return OUTDATED_COUNT, params


def unversion_foreign_rows(
    con: duckdb.DuckDBPyConnection, generation_ids: str | None = None
) -> None:
    """Set `scorer_version` to NULL on the rows no lctui scorer made: error scores and
    the published scores of imported models. `generation_ids` (a relation of one
    column) limits it to those generations; None means every row."""
    restrict = (
        "" if generation_ids is None else f"AND generation_id IN (SELECT * FROM {generation_ids})"
    )
    for table in _VERSIONED:
        error = "status = 'error' OR" if table == "scores" else ""
        con.execute(
            _UNVERSION.format(
                table=table, restrict=restrict, error=error, published=PUBLISHED_BACKEND
            )
        )


def add_scorer_versions(con: duckdb.DuckDBPyConnection) -> None:
    """Migration 8: `scorer_version` on scores and rubric points; the rows already there
    were made before versions (0), except those no scorer made (NULL)."""
    for table in _VERSIONED:
        con.execute(f"ALTER TABLE {table} ADD COLUMN scorer_version INTEGER DEFAULT 0")
    unversion_foreign_rows(con)
