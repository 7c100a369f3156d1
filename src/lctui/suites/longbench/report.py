"""LongBench v2's tables as a suite report: per mode, the accuracy overall (and
compensated), by difficulty and length bucket (the original's result script's
columns), then by domain (analysis.py). Each row says what it holds (its answers,
those naming no option, the errors left out), each domain cell its domain in full, and
each row opens its model's answers to that mode at that length."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lctui.core.lengths import format_length
from lctui.core.suites import ReportTable, RowCell, SuiteReport
from lctui.suites.longbench.analysis import (
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

_GROUPS = (OVERALL, *DIFFICULTY_GROUPS, *BUCKET_GROUPS)
# The modes as the line under a domain names them.
MODE_NAMES: dict[str, str] = {
    "longbench_v2": "direct",
    "longbench_v2_cot": "CoT",
    "longbench_v2_no_context": "no ctx",
}


def row_line(row: LongBenchScores) -> str:
    """What one row holds: its answers, those naming no option, those left out."""
    where = f"{row.model} · {MODES.get(row.task, row.task)} · {format_length(row.length)}"
    overall = row.overall
    left = f", {row.left_out} failed or unscored left out" if row.left_out else ""
    return f"{where}: {overall.n} answered, {overall.unparsed} name no option{left}"


def domain_line(row: LongBenchScores, domain: str) -> str:
    """One domain of one row, its name in full."""
    where = f"{row.model} · {MODE_NAMES.get(row.task, row.task)} · {format_length(row.length)}"
    group = row.groups.get(domain)
    if group is None:
        return f"{where} · {domain}: no question of it answered"
    return (
        f"{where} · {domain}: {shown(group.accuracy)} % of {group.n} "
        f"(comp. {shown(group.compensated)}), {group.unparsed} name no option"
    )


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
        details = tuple(row_line(r) for r in mine)
        cells = tuple(RowCell(r.model, r.task, r.length) for r in mine)
        tables.append(
            ReportTable(
                f"LongBench v2, {mode}: accuracy (%)",
                accuracy_columns,
                tuple(_accuracy_row(r) for r in mine),
                details,
                cells,
            )
        )
        tables.append(
            ReportTable(
                f"LongBench v2, {mode}: accuracy by domain (%)",
                ("model", "length", *DOMAIN_HEADINGS.values()),
                tuple(_domain_row(r) for r in mine),
                details,
                cells,
                tuple(("", "", *(domain_line(r, d) for d in DOMAIN_HEADINGS)) for r in mine),
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
