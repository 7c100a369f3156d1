"""LIFEval's numbers as a suite report: ARS and IFP per capability (higher is better),
IFS per perspective (lower is more stable), from the stored lifeval rubric points
(analysis/metrics.py); two tables, so that each fits 80 columns. Each row of either
opens its model's stability (analysis/levels.py): per perspective, a task x level
table of mean ARS with each task's CV, whose mean is the IFS."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lctui.core.suites import ReportTable, SuiteReport
from lctui.scoring.rubric import CAPABILITIES
from lctui.suites.lifbench.analysis.levels import ModelStability, lifbench_stability
from lctui.suites.lifbench.analysis.metrics import PERSPECTIVES, SCORER, lifbench_reports

LEVELS = {
    "expression": "expression (instruction wording) id",
    "variable": "variable (parameter set) id",
    "length": "context length (K tokens)",
}


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def level_label(perspective: str, level: str) -> str:
    """A level's heading: lengths in K tokens (LIFBench's intervals), others as ids."""
    return f"{level}k" if perspective == "length" else level


def _lengths(by_length: dict[int, float], levels: list[str]) -> list[str]:
    cells = []
    for level in levels:
        ars = by_length.get(int(level)) if level.isdigit() else None
        cells.append("" if ars is None else f"{ars:.3f}")
    return cells


def stability_table(stability: ModelStability, perspective: str) -> ReportTable:
    """One model's tasks x (CV, then each level's mean ARS), a last row the IFS.

    The CV comes first so that it stays in view when twelve lengths scroll sideways.
    """
    levels = stability.levels(perspective)
    tasks = stability.perspectives.get(perspective, [])
    rows = [
        (
            t.task,
            _number(t.cv),
            *("" if t.means.get(v) is None else f"{t.means[v]:.2f}" for v in levels),
        )
        for t in tasks
    ]
    ifs = stability.ifs(perspective)
    rows.append(("IFS = mean CV", _number(ifs), *("" for _ in levels)))
    by_length = stability.ars_by_length
    if perspective == "length":  # the ARS over every task (R_t-weighted) per length
        rows.append(("ARS, all tasks", "", *_lengths(by_length, levels)))
    where = f"{stability.model} · {perspective}"
    details = (
        *(
            f"{where} · {t.task}: mean ARS per {LEVELS[perspective]}; CV {_number(t.cv)}"
            for t in tasks
        ),
        f"{where}: IFS {_number(ifs)}, the mean of the tasks' CVs (lower is more stable)",
    )
    if perspective == "length":
        details = (*details, f"{stability.model}: ARS per length, R_t-weighted over tasks")
    return ReportTable(
        f"{stability.model}: {perspective} (IFS {_number(ifs)})",
        ("task", "CV", *(level_label(perspective, v) for v in levels)),
        tuple(rows),
        details,
    )


def report(src: Any, models: Sequence[str] | None, run_id: str | None) -> SuiteReport | None:
    reports = lifbench_reports(src, models, run_id=run_id)
    if not reports:
        return None
    # Best ARS first, as the capability profile compares them.
    reports = sorted(reports, key=lambda r: (-(r.ars or 0.0), r.model))
    # The levels are read over every run: a report of one run drills into none.
    levels = {} if run_id is not None else lifbench_stability(src, [r.model for r in reports])
    opens = (
        ()
        if run_id is not None
        else tuple(
            tuple(
                stability_table(levels.get(r.model, ModelStability(r.model)), p)
                for p in PERSPECTIVES
            )
            for r in reports
        )
    )
    scores = ReportTable(
        "LIFEval ARS and IFP per capability (higher is better)",
        ("model", "ARS", *CAPABILITIES),
        tuple(
            (r.model, _number(r.ars), *(_number(r.ifp.get(c.lower())) for c in CAPABILITIES))
            for r in reports
        ),
        tuple(f"{r.model}: {r.responses} response(s); enter: its stability" for r in reports),
        opens=opens,
    )
    stability = ReportTable(
        "LIFEval IFS per perspective (lower is more stable)",
        ("model", *PERSPECTIVES, "mean"),
        tuple(
            (r.model, *(_number(r.ifs.get(p)) for p in (*PERSPECTIVES, "mean"))) for r in reports
        ),
        tuple(
            f"{r.model}: IFS = mean over tasks of the CV of their per-level mean ARS; "
            "enter: the levels"
            for r in reports
        ),
        opens=opens,
    )
    notes = tuple(
        f"{r.model}: {r.unscored} response(s) have no score (left out of every metric, "
        "never counted as 0): `lctui rescore` scores them."
        for r in reports
        if r.unscored
    )
    records = tuple(r.as_dict() for r in reports)
    return SuiteReport((scores, stability), notes, records, scorers=(SCORER,))
