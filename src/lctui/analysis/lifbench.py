"""LIFEval metrics over stored rubric points: ARS, IFP per capability, IFS per perspective.

The heavy lifting is DuckDB SQL over the `rubric` view (latest score of each latest
generation) joined to the examples for the expression/variable levels; Python only
shapes the rows. Definitions follow BENCHMARKS.md section 3:

- ARS of a response = sum(weight * earned) / R_t (as its scorer recorded it, see
  _RESPONSES); of a task = mean over responses;
  overall (and per length) = sum_t R_t * ARS_t / sum_t R_t over the tasks present.
- IFP_c = sum over (task, point) tagged c of mean(weight * earned) / sum of those
  weights; a point with two capabilities counts for both.
- IFS_p = mean over tasks of the coefficient of variation (sample std, ddof=1, over
  mean) of the per-level mean ARS, levels of p being expression (ins_id), variable
  (param_id) or length; IFS mean = mean of the three. Lower is more stable.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from lctui.scoring.rubric import CAPABILITIES
from lctui.store.db import Store

SCORER = "lifeval"
PERSPECTIVES: tuple[str, ...] = ("expression", "variable", "length")

# The lifeval points with their example's levels, copied once into a temporary table
# so that the eight metric queries below do not each re-evaluate the `rubric` view.
_POINTS_TABLE = "_lctui_lifeval_points"
_POINTS = f"""
    CREATE OR REPLACE TEMP TABLE {_POINTS_TABLE} AS
    SELECT
        r.model, r.task, r.generation_id, r.length, r.point, r.capabilities,
        r.weight, r.earned, s.value AS score,
        json_extract_string(e.metadata, '$.expression') AS expression,
        json_extract_string(e.metadata, '$.variable') AS variable
    FROM rubric AS r
    JOIN examples AS e ON e.example_id = r.example_id
    LEFT JOIN latest_scores AS s
        ON s.generation_id = r.generation_id AND s.scorer = r.scorer AND s.metric = 'ars'
    WHERE r.scorer = $scorer AND coalesce(s.status, 'ok') <> 'error'
        AND ($models IS NULL OR list_contains($models, r.model))
"""

# One row per response with its ARS, R_t and levels; reused by every metric below.
# The ARS is the score the scorer recorded, which is sum(weight * earned) / R_t except
# in LIFBench's published list-task scores: the original code gives 0 to a response
# whose only credit is a partial `format` (3611 rows, format = 0.2), so recomputing
# from the points would not reproduce the published ARS.
_RESPONSES = f"""
    SELECT
        model, task, generation_id, length, expression, variable,
        sum(weight) AS r_t,
        coalesce(any_value(score), sum(weight * earned) / sum(weight)) AS ars
    FROM {_POINTS_TABLE}
    GROUP BY ALL
"""

_RESPONSE_ROWS = f"""
    SELECT model, task, expression, variable, length, ars FROM ({_RESPONSES})
    ORDER BY model, task, length, expression, variable
"""

_TASK_ARS = f"""
    WITH resp AS ({_RESPONSES})
    SELECT model, task, max(r_t) AS r_t, avg(ars) AS ars, count(*) AS n
    FROM resp GROUP BY model, task ORDER BY model, task
"""

_LENGTH_ARS = f"""
    WITH resp AS ({_RESPONSES}),
    cell AS (
        SELECT model, task, length, max(r_t) AS r_t, avg(ars) AS ars
        FROM resp GROUP BY model, task, length
    )
    SELECT model, length, sum(r_t * ars) / sum(r_t) AS ars
    FROM cell GROUP BY model, length ORDER BY model, length
"""

_IFP = f"""
    WITH pts AS (
        SELECT model, task, point, capabilities,
               max(weight) AS weight, avg(weight * earned) AS mean_earned
        FROM {_POINTS_TABLE}
        GROUP BY model, task, point, capabilities
    ),
    caps AS (SELECT *, unnest(capabilities) AS capability FROM pts)
    SELECT model, capability, sum(mean_earned) / sum(weight) AS ifp
    FROM caps GROUP BY model, capability ORDER BY model, capability
"""


def _ifs_sql(level: str) -> str:
    return f"""
        WITH resp AS ({_RESPONSES}),
        lvl AS (
            SELECT model, task, {level} AS level, avg(ars) AS ars
            FROM resp GROUP BY model, task, {level}
        ),
        cv AS (
            SELECT model, task,
                   stddev_samp(ars) / nullif(avg(ars), 0) AS cv
            FROM lvl GROUP BY model, task
        )
        SELECT model, avg(cv) AS ifs FROM cv GROUP BY model ORDER BY model
    """


@dataclass
class LifbenchReport:
    """LIFEval's numbers for one model; `None` where a value is undefined (no data,
    or a zero mean for a coefficient of variation)."""

    model: str
    ars: float | None = None
    ars_by_task: dict[str, float] = field(default_factory=dict)
    ars_by_length: dict[int, float] = field(default_factory=dict)
    ifp: dict[str, float | None] = field(default_factory=dict)
    ifs: dict[str, float | None] = field(default_factory=dict)
    responses: int = 0

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: length keys become strings, as JSON objects need."""
        out = asdict(self)
        out["ars_by_length"] = {str(k): v for k, v in self.ars_by_length.items()}
        del out["responses"]
        return out


def _fetch(
    store: Store, models: Sequence[str] | None, queries: dict[str, str] | None = None
) -> dict[str, list[tuple[Any, ...]]]:
    """Rows of every metric query, run on one cursor (temporary tables are per cursor)."""
    if queries is not None:
        return _run(store, models, queries)
    queries = {"by_task": _TASK_ARS, "by_length": _LENGTH_ARS, "ifp": _IFP}
    queries.update({f"ifs_{p}": _ifs_sql(p) for p in PERSPECTIVES})
    return _run(store, models, queries)


def _run(
    store: Store, models: Sequence[str] | None, queries: dict[str, str]
) -> dict[str, list[tuple[Any, ...]]]:
    cur = store.cursor()
    try:
        cur.execute(_POINTS, {"scorer": SCORER, "models": list(models) if models else None})
        return {name: cur.execute(sql).fetchall() for name, sql in queries.items()}
    finally:
        cur.close()


@dataclass(frozen=True)
class ResponseArs:
    """The ARS of one stored lifeval response with its levels (length in x 1024 tokens)."""

    model: str
    task: str
    expression: str | None
    variable: str | None
    length: int
    ars: float


def lifbench_responses(store: Store, models: Sequence[str] | None = None) -> list[ResponseArs]:
    """Per-response ARS as the metrics below use it (for checks and drill-downs)."""
    rows = _fetch(store, models, {"responses": _RESPONSE_ROWS})["responses"]
    return [ResponseArs(m, t, x, v, int(n) // 1024, float(a)) for m, t, x, v, n, a in rows]


def lifbench_reports(store: Store, models: Sequence[str] | None = None) -> list[LifbenchReport]:
    """One report per model with LIFEval scores (all of them, or those in `models`)."""
    reports: dict[str, LifbenchReport] = {}

    def get(model: str) -> LifbenchReport:
        if model not in reports:
            reports[model] = LifbenchReport(model)
        return reports[model]

    rows = _fetch(store, models)
    weighted: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for model, task, r_t, ars, n in rows["by_task"]:
        report = get(model)
        report.ars_by_task[task] = float(ars)
        report.responses += int(n)
        weighted[model].append((float(r_t), float(ars)))
    for model, pairs in weighted.items():
        get(model).ars = sum(r * a for r, a in pairs) / sum(r for r, _ in pairs)
    for model, length, ars in rows["by_length"]:
        # Lengths are stored in tokens; LIFBench names intervals in units of 1024.
        get(model).ars_by_length[int(length) // 1024] = float(ars)
    for report in reports.values():
        report.ifp = {cap.lower(): None for cap in CAPABILITIES}
    for model, capability, ifp in rows["ifp"]:
        get(model).ifp[str(capability).lower()] = float(ifp)
    for report in reports.values():
        report.ifs = {p: None for p in (*PERSPECTIVES, "mean")}
    for perspective in PERSPECTIVES:
        for model, ifs in rows[f"ifs_{perspective}"]:
            get(model).ifs[perspective] = None if ifs is None else float(ifs)
    for report in reports.values():
        values = [report.ifs[p] for p in PERSPECTIVES]
        present = [v for v in values if v is not None]
        report.ifs["mean"] = sum(present) / len(present) if len(present) == len(values) else None
    return [reports[m] for m in sorted(reports)]
