"""LIFEval's numbers as stored: the metric rows per model (ARS per task and length,
IFP per capability, IFS per perspective, unscored responses), each response's ARS, and
the per-level means behind IFS.

The queries are store/lifeval_views.py's `metric_queries`, run on a temporary copy of
the lifeval points filtered to the models asked for, so that they do not each
re-evaluate the `rubric` view; a temporary table lives on one cursor, so every read
here runs its queries on one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lctui.store.lifeval_views import (
    LIFEVAL_POINTS,
    LIFEVAL_UNSCORED,
    PERSPECTIVES,
    metric_queries,
)
from lctui.store.read.run_results import in_run
from lctui.store.read.source import Source, cursor_of

# The lifeval points with their example's levels, copied once into a temporary table.
_POINTS_TABLE = "_lctui_lifeval_points"
# {in_run}: the run's results alone (store/read/run_results.py), or `true`.
_POINTS = f"""
    CREATE OR REPLACE TEMP TABLE {_POINTS_TABLE} AS
    SELECT * FROM ({LIFEVAL_POINTS})
    WHERE ($models IS NULL OR list_contains($models, model)) AND {{in_run}}
"""
_QUERIES = metric_queries(_POINTS_TABLE)
_RESPONSES = _QUERIES["responses"]
_RESPONSE_ROWS = f"""
    SELECT model, task, expression, variable, length, ars FROM ({_RESPONSES})
    ORDER BY model, task, length, expression, variable
"""
# The unscored responses among a run's results ({in_run}: see _POINTS).
_UNSCORED = LIFEVAL_UNSCORED.replace(
    "WHERE g.status = 'ok'", "WHERE g.status = 'ok' AND {in_run}", 1
)
if _UNSCORED == LIFEVAL_UNSCORED:
    raise RuntimeError("LIFEVAL_UNSCORED changed: scope its generations to a run again")
_METRICS = {
    "by_task": f"SELECT model, task, r_t, ars, n FROM ({_QUERIES['task_ars']}) "
    "ORDER BY model, task",
    "by_length": f"SELECT * FROM ({_QUERIES['length_ars']}) ORDER BY model, length",
    "ifp": f"SELECT * FROM ({_QUERIES['ifp']}) ORDER BY model, capability",
    "ifs": f"SELECT * FROM ({_QUERIES['ifs']}) ORDER BY model, perspective",
    "unscored": f"SELECT model, unscored FROM ({_UNSCORED}) ORDER BY model",
}


def _level_sql(perspective: str) -> str:
    # Lengths are levels too: cast to text so the three perspectives share one shape.
    return f"""
        SELECT model, '{perspective}' AS perspective, task,
               CAST({perspective} AS VARCHAR) AS level, avg(ars) AS ars
        FROM resp GROUP BY model, task, {perspective}
    """


# One row per (model, perspective, task, level) with the level's mean ARS and the
# task's CV over its levels (a window over the same rows, as the `ifs` query computes it).
_LEVELS = f"""
    WITH resp AS ({_RESPONSES}),
    lvl AS ({" UNION ALL ".join(_level_sql(p) for p in PERSPECTIVES)})
    SELECT model, perspective, task, level, ars,
           stddev_samp(ars) OVER w / nullif(avg(ars) OVER w, 0) AS cv
    FROM lvl
    WINDOW w AS (PARTITION BY model, perspective, task)
    ORDER BY model, perspective, task, try_cast(level AS BIGINT) NULLS LAST, level
"""


@dataclass(frozen=True)
class TaskArs:
    model: str
    task: str
    r_t: float  # the task's total rubric weight, its weight in the overall ARS
    ars: float
    n: int  # responses


@dataclass(frozen=True)
class LengthArs:
    model: str
    length: int  # in tokens
    ars: float  # R_t-weighted over tasks


@dataclass(frozen=True)
class CapabilityIfp:
    model: str
    capability: str
    ifp: float


@dataclass(frozen=True)
class PerspectiveIfs:
    model: str
    perspective: str  # expression | variable | length
    ifs: float | None  # None: no task with a coefficient of variation


@dataclass(frozen=True)
class ModelUnscored:
    model: str
    unscored: int  # lifeval responses that succeeded without a score


@dataclass(frozen=True)
class LifevalMetrics:
    """Every metric row of the models read, each tuple ordered by model first."""

    by_task: tuple[TaskArs, ...]
    by_length: tuple[LengthArs, ...]
    ifp: tuple[CapabilityIfp, ...]
    ifs: tuple[PerspectiveIfs, ...]
    unscored: tuple[ModelUnscored, ...]  # of every model, whatever `models` says


@dataclass(frozen=True)
class LifevalResponse:
    """The ARS of one stored lifeval response with its levels."""

    model: str
    task: str
    expression: str | None
    variable: str | None
    length: int  # in tokens
    ars: float


@dataclass(frozen=True)
class LevelMean:
    """A task's mean ARS at one level of a perspective, and its CV over those levels
    (None with fewer than two levels or a zero mean)."""

    model: str
    perspective: str
    task: str
    level: str | None  # as text (a length in tokens for the length perspective)
    ars: float
    cv: float | None


@dataclass(frozen=True)
class LifevalLevels:
    levels: tuple[LevelMean, ...]  # by model, perspective, task, then level in order
    by_length: tuple[LengthArs, ...]  # unordered


def lifeval_metrics(
    src: Source, models: Sequence[str] | None = None, *, run_id: str | None = None
) -> LifevalMetrics:
    """The metric rows of the models with LIFEval scores (all, or those in `models`);
    with `run_id`, of that run's results alone (store/read/run_results.py)."""
    rows = _run(src, models, _METRICS, run_id)
    return LifevalMetrics(
        by_task=tuple(
            TaskArs(m, t, float(r), float(a), int(n)) for m, t, r, a, n in rows["by_task"]
        ),
        by_length=_length_ars(rows["by_length"]),
        ifp=tuple(CapabilityIfp(m, str(c), float(v)) for m, c, v in rows["ifp"]),
        ifs=tuple(
            PerspectiveIfs(m, str(p), None if v is None else float(v)) for m, p, v in rows["ifs"]
        ),
        unscored=tuple(ModelUnscored(m, int(n)) for m, n in rows["unscored"]),
    )


def lifeval_responses(src: Source, models: Sequence[str] | None = None) -> list[LifevalResponse]:
    """Per-response ARS, by model, task, length, expression and variable."""
    rows = _run(src, models, {"responses": _RESPONSE_ROWS})["responses"]
    return [LifevalResponse(m, t, x, v, int(n), float(a)) for m, t, x, v, n, a in rows]


def lifeval_levels(src: Source, models: Sequence[str] | None = None) -> LifevalLevels:
    """The per-level means of every perspective and the ARS per length."""
    rows = _run(src, models, {"levels": _LEVELS, "by_length": _QUERIES["length_ars"]})
    levels = tuple(
        LevelMean(
            m, p, t, None if lv is None else str(lv), float(a), None if cv is None else float(cv)
        )
        for m, p, t, lv, a, cv in rows["levels"]
    )
    return LifevalLevels(levels, _length_ars(rows["by_length"]))


def _length_ars(rows: list[tuple[Any, ...]]) -> tuple[LengthArs, ...]:
    return tuple(LengthArs(m, int(n), float(a)) for m, n, a in rows)


def _run(
    src: Source,
    models: Sequence[str] | None,
    queries: Mapping[str, str],
    run_id: str | None = None,
) -> dict[str, list[tuple[Any, ...]]]:
    """Rows of each query, on the one cursor that holds the temporary points table."""
    params: dict[str, object] = {"models": list(models) if models else None}
    if run_id is not None:
        params["run_id"] = run_id
    with cursor_of(src) as cur:
        cur.execute(_POINTS.format(in_run=in_run("generation_id", run_id)), params)
        out = {}
        for name, sql in queries.items():
            if "{in_run}" not in sql:
                out[name] = cur.execute(sql).fetchall()
                continue
            scoped = sql.format(in_run=in_run("g.generation_id", run_id))
            out[name] = cur.execute(scoped, {"run_id": run_id} if run_id else None).fetchall()
        return out
