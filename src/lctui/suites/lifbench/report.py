"""LIFEval's numbers as a suite report: ARS and IFP per capability (higher is better),
IFS per perspective (lower is more stable), from the stored lifeval rubric points
(analysis/metrics.py); two tables, so that each fits 80 columns."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lctui.core.suites import ReportTable, SuiteReport
from lctui.scoring.rubric import CAPABILITIES
from lctui.suites.lifbench.analysis.metrics import PERSPECTIVES, SCORER, lifbench_reports


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def report(src: Any, models: Sequence[str] | None, run_id: str | None) -> SuiteReport | None:
    reports = lifbench_reports(src, models, run_id=run_id)
    if not reports:
        return None
    scores = ReportTable(
        "LIFEval ARS and IFP per capability (higher is better)",
        ("model", "ARS", *CAPABILITIES),
        tuple(
            (r.model, _number(r.ars), *(_number(r.ifp.get(c.lower())) for c in CAPABILITIES))
            for r in reports
        ),
    )
    stability = ReportTable(
        "LIFEval IFS per perspective (lower is more stable)",
        ("model", *PERSPECTIVES, "mean"),
        tuple(
            (r.model, *(_number(r.ifs.get(p)) for p in (*PERSPECTIVES, "mean"))) for r in reports
        ),
    )
    notes = tuple(
        f"{r.model}: {r.unscored} response(s) have no score (left out of every metric, "
        "never counted as 0): `lctui rescore` scores them."
        for r in reports
        if r.unscored
    )
    records = tuple(r.as_dict() for r in reports)
    return SuiteReport((scores, stability), notes, records, scorers=(SCORER,))
