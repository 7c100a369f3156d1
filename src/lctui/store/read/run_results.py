"""One run's results, as its report shows them: the latest result of every generation
key the run's plan covered, both those it generated and the stored ones it reused
(`run_reused`: the engine skips an example already stored, engine/todo.py), and
nothing else of the file: other runs' results of the same models are not the run's.

`RUN_KEYS` and `in_run` are the filter the suites' reads (store/read/helmet.py,
longbench.py, lifeval.py) take with a `run_id` (as the parameter $run_id); without one
they keep every stored result.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lctui.store.read.cells import CELL_AGGREGATES, CellScore
from lctui.store.read.source import Source, cursor_of, dict_rows
from lctui.store.scorer_versions import outdated_aggregate

# The generation keys of run $run_id's plan: those it generated and those it reused.
RUN_KEYS = """(
    SELECT gen_key FROM generations WHERE run_id = $run_id
    UNION SELECT gen_key FROM run_reused WHERE run_id = $run_id
)"""
_REUSED_KEYS = "(SELECT gen_key FROM run_reused WHERE run_id = $run_id)"


def in_run(generation_id: str, run_id: str | None) -> str:
    """SQL: `generation_id` (a column) is the latest generation of a key of run $run_id's
    plan; `true` without a run (no filter, and no cost)."""
    if run_id is None:
        return "true"
    return (
        f"{generation_id} IN "
        f"(SELECT generation_id FROM latest_generations WHERE gen_key IN {RUN_KEYS})"
    )


@dataclass(frozen=True)
class RunCell(CellScore):
    """A cell of one run's results; `n_reused` of its rows the run found stored (a
    generation of an earlier run) instead of generating them."""

    n_reused: int = 0


# The cell rules of store/read/cells.py over the latest generation of each planned key.
_CELLS_SQL = f"""
    SELECT model, task, length, min(metric) AS metric, {CELL_AGGREGATES},
           count(*) FILTER (WHERE status = 'ok') AS n_ok, {{outdated}} AS n_outdated,
           count(*) FILTER (WHERE gen_key IN {_REUSED_KEYS} AND run_id <> $run_id)
               AS n_reused
    FROM results_core
    WHERE gen_key IN {RUN_KEYS}
    GROUP BY model, task, length
    ORDER BY model, task, length
"""


def run_cells(src: Source, run_id: str, versions: Mapping[str, int] | None = None) -> list[RunCell]:
    """Per model, task and length, the run's results with how many were reused;
    `versions` counts the scores an older scorer version made (as cell_scores does)."""
    with cursor_of(src) as cur:
        outdated, version_params = outdated_aggregate(cur, versions)
        cur.execute(_CELLS_SQL.format(outdated=outdated), {"run_id": run_id, **version_params})
        return [RunCell(**record) for record in dict_rows(cur)]


@dataclass(frozen=True)
class ReusedFrom:
    """The generations a run reused from one earlier run."""

    run_id: str
    started_at: Any  # datetime of that run's start (None when its row is gone)
    generations: int


@dataclass(frozen=True)
class ReusedGeneration:
    """One result a run reused: the example and the run that generated it."""

    model: str
    task: str
    length: int
    example_id: str
    generation_id: str
    run_id: str


@dataclass(frozen=True)
class Reused:
    """What a run reused: per earlier run, and the first `limit` generations."""

    sources: tuple[ReusedFrom, ...]  # oldest run first
    listed: tuple[ReusedGeneration, ...]  # by model, task, length, example

    @property
    def total(self) -> int:
        return sum(s.generations for s in self.sources)


_REUSED = f"""
    SELECT g.run_id, coalesce(m.name, g.model_id) AS model, g.task, g.length, g.example_id,
           g.generation_id
    FROM latest_generations AS g LEFT JOIN models AS m USING (model_id)
    WHERE g.gen_key IN {_REUSED_KEYS} AND g.run_id <> $run_id
"""
_SOURCES_SQL = f"""
    SELECT r.run_id, runs.started_at, count(*) AS n
    FROM ({_REUSED}) AS r LEFT JOIN runs USING (run_id)
    GROUP BY r.run_id, runs.started_at
    ORDER BY runs.started_at NULLS LAST, r.run_id
"""
_LISTED_SQL = f"""
    SELECT model, task, length, example_id, generation_id, run_id FROM ({_REUSED})
    ORDER BY model, task, length, example_id
    LIMIT $limit
"""


def reused_generations(src: Source, run_id: str, limit: int = 100) -> Reused:
    """The stored results run `run_id` reused (their latest generation, when a later run
    generated the key again that one), counted per run that made them."""
    with cursor_of(src) as cur:
        sources = cur.execute(_SOURCES_SQL, {"run_id": run_id}).fetchall()
        listed = cur.execute(_LISTED_SQL, {"run_id": run_id, "limit": limit}).fetchall()
    return Reused(
        tuple(ReusedFrom(str(r), started, int(n)) for r, started, n in sources),
        tuple(
            ReusedGeneration(str(m), str(t), int(n), str(e), str(g), str(r))
            for m, t, n, e, g, r in listed
        ),
    )
