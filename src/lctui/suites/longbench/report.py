"""LongBench v2's tables as a suite report: per mode, the accuracy overall (and
compensated), by difficulty and length bucket (the original's result script's
columns), then by domain (analysis/longbench.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lctui.analysis.longbench import (
    BUCKET_GROUPS,
    DIFFICULTY_GROUPS,
    DOMAIN_HEADINGS,
    HEADINGS,
    MODES,
    OVERALL,
    LongBenchScores,
    longbench_table,
    shown,
)
from lctui.core.lengths import format_length
from lctui.core.suites import ReportTable, SuiteReport

_GROUPS = (OVERALL, *DIFFICULTY_GROUPS, *BUCKET_GROUPS)


def _accuracy_row(r: LongBenchScores) -> tuple[str, ...]:
    cells = [shown(r.groups[g].accuracy) if g in r.groups else "-" for g in _GROUPS]
    cells.insert(1, shown(r.overall.compensated))
    left = f" +{r.left_out} err" if r.left_out else ""
    return (r.model, format_length(r.length), *cells, f"{r.overall.n}{left}",
            str(r.overall.unparsed))  # fmt: skip


def _domain_row(r: LongBenchScores) -> tuple[str, ...]:
    by_domain = [shown(r.groups[d].accuracy) if d in r.groups else "-" for d in DOMAIN_HEADINGS]
    return (r.model, format_length(r.length), *by_domain)


def report(src: Any, models: Sequence[str] | None, run_id: str | None) -> SuiteReport | None:
    rows = longbench_table(src, models, run_id=run_id)
    if not rows:
        return None
    order = list(MODES)
    tasks = sorted({r.task for r in rows}, key=lambda t: (order.index(t) if t in MODES else 9, t))
    accuracy_columns = ("model", "length", HEADINGS[OVERALL], "Comp.",
                        *(HEADINGS[g] for g in _GROUPS[1:]), "n", "unparsed")  # fmt: skip
    tables: list[ReportTable] = []
    for task in tasks:
        mine = [r for r in rows if r.task == task]
        mode = MODES.get(task, task)
        tables.append(
            ReportTable(
                f"LongBench v2, {mode}: accuracy (%)",
                accuracy_columns,
                tuple(_accuracy_row(r) for r in mine),
            )
        )
        tables.append(
            ReportTable(
                f"LongBench v2, {mode}: accuracy by domain (%)",
                ("model", "length", *DOMAIN_HEADINGS.values()),
                tuple(_domain_row(r) for r in mine),
            )
        )
    note = (
        "Comp.: compensated, an answer naming no option counts 0.25; n: answered "
        "questions (+N err: failed requests, in no group). Domains: "
        + "; ".join(f"{short} = {full}" for full, short in DOMAIN_HEADINGS.items())
        + "."
    )
    records = tuple(r.as_dict() for r in rows)
    return SuiteReport(tuple(tables), (note,), records, scorers=("longbench",))
