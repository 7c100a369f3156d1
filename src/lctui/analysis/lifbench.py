"""LIFEval metrics over stored rubric points: ARS, IFP per capability, IFS per perspective.

The SQL (and the definitions, BENCHMARKS.md section 3) live in store/lifeval_views.py,
which also serves them as the `lifeval_*` views; here they run on a temporary copy of
the lifeval points, filtered to the models asked for, so the queries do not each
re-evaluate the `rubric` view. Python only shapes the rows.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from lctui.scoring.rubric import CAPABILITIES
from lctui.store.db import Store
from lctui.store.lifeval_views import (
    LIFEVAL_POINTS,
    LIFEVAL_UNSCORED,
    PERSPECTIVES,
    metric_queries,
)

SCORER = "lifeval"

# The lifeval points with their example's levels, copied once into a temporary table.
_POINTS_TABLE = "_lctui_lifeval_points"
_POINTS = f"""
    CREATE OR REPLACE TEMP TABLE {_POINTS_TABLE} AS
    SELECT * FROM ({LIFEVAL_POINTS})
    WHERE $models IS NULL OR list_contains($models, model)
"""
_QUERIES = metric_queries(_POINTS_TABLE)
_RESPONSES = _QUERIES["responses"]
_RESPONSE_ROWS = f"""
    SELECT model, task, expression, variable, length, ars FROM ({_RESPONSES})
    ORDER BY model, task, length, expression, variable
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
    unscored: int = 0  # responses without a score: left out of every metric, not 0

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: length keys become strings, as JSON objects need."""
        out = asdict(self)
        out["ars_by_length"] = {str(k): v for k, v in self.ars_by_length.items()}
        del out["responses"]
        if not self.unscored:  # said only when some response has no score
            del out["unscored"]
        return out


def _fetch(
    store: Store, models: Sequence[str] | None, queries: dict[str, str] | None = None
) -> dict[str, list[tuple[Any, ...]]]:
    """Rows of every metric query, run on one cursor (temporary tables are per cursor)."""
    if queries is not None:
        return _run(store, models, queries)
    queries = {
        "by_task": f"SELECT model, task, r_t, ars, n FROM ({_QUERIES['task_ars']}) "
        "ORDER BY model, task",
        "by_length": f"SELECT * FROM ({_QUERIES['length_ars']}) ORDER BY model, length",
        "ifp": f"SELECT * FROM ({_QUERIES['ifp']}) ORDER BY model, capability",
        "ifs": f"SELECT * FROM ({_QUERIES['ifs']}) ORDER BY model, perspective",
        "unscored": f"SELECT model, unscored FROM ({LIFEVAL_UNSCORED}) ORDER BY model",
    }
    return _run(store, models, queries)


def _run(
    store: Store, models: Sequence[str] | None, queries: dict[str, str]
) -> dict[str, list[tuple[Any, ...]]]:
    cur = store.cursor()
    try:
        cur.execute(_POINTS, {"models": list(models) if models else None})
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
    for model, unscored in rows["unscored"]:
        if not models or model in models:
            get(model).unscored = int(unscored)
    for report in reports.values():
        report.ifp = {cap.lower(): None for cap in CAPABILITIES}
    for model, capability, ifp in rows["ifp"]:
        get(model).ifp[str(capability).lower()] = float(ifp)
    for report in reports.values():
        report.ifs = {p: None for p in (*PERSPECTIVES, "mean")}
    for model, perspective, ifs in rows["ifs"]:
        get(model).ifs[str(perspective)] = None if ifs is None else float(ifs)
    for report in reports.values():
        values = [report.ifs[p] for p in PERSPECTIVES]
        present = [v for v in values if v is not None]
        report.ifs["mean"] = sum(present) / len(present) if len(present) == len(values) else None
    return [reports[m] for m in sorted(reports)]
