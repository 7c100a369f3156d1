"""LIFEval metrics over stored rubric points: ARS, IFP per capability, IFS per perspective.

The SQL (and the definitions, from LIFBench's paper) live in store/lifeval_views.py,
which also serves them as the `lifeval_*` views; store/read/lifeval.py runs them for
the models asked for. Python only shapes the rows.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from lctui.scoring.rubric import CAPABILITIES
from lctui.store.db import Store
from lctui.store.lifeval_views import PERSPECTIVES
from lctui.store.read.lifeval import lifeval_metrics, lifeval_responses

SCORER = "lifeval"


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
    return [
        ResponseArs(r.model, r.task, r.expression, r.variable, r.length // 1024, r.ars)
        for r in lifeval_responses(store, models)
    ]


def lifbench_reports(
    store: Store, models: Sequence[str] | None = None, *, run_id: str | None = None
) -> list[LifbenchReport]:
    """One report per model with LIFEval scores (all of them, or those in `models`);
    with `run_id`, of that run's results alone."""
    reports: dict[str, LifbenchReport] = {}

    def get(model: str) -> LifbenchReport:
        if model not in reports:
            reports[model] = LifbenchReport(model)
        return reports[model]

    rows = lifeval_metrics(store, models, run_id=run_id)
    weighted: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for t in rows.by_task:
        report = get(t.model)
        report.ars_by_task[t.task] = t.ars
        report.responses += t.n
        weighted[t.model].append((t.r_t, t.ars))
    for model, pairs in weighted.items():
        get(model).ars = sum(r * a for r, a in pairs) / sum(r for r, _ in pairs)
    for n in rows.by_length:
        # Lengths are stored in tokens; LIFBench names intervals in units of 1024.
        get(n.model).ars_by_length[n.length // 1024] = n.ars
    for u in rows.unscored:
        if not models or u.model in models:
            get(u.model).unscored = u.unscored
    for report in reports.values():
        report.ifp = {cap.lower(): None for cap in CAPABILITIES}
    for c in rows.ifp:
        get(c.model).ifp[c.capability.lower()] = c.ifp
    for report in reports.values():
        report.ifs = {p: None for p in (*PERSPECTIVES, "mean")}
    for s in rows.ifs:
        get(s.model).ifs[s.perspective] = s.ifs
    for report in reports.values():
        values = [report.ifs[p] for p in PERSPECTIVES]
        present = [v for v in values if v is not None]
        report.ifs["mean"] = sum(present) / len(present) if len(present) == len(values) else None
    return [reports[m] for m in sorted(reports)]
