"""HELMET's table as a suite report: the seven category means (0-100) and their overall
mean per model and length (analysis/helmet.py); a category missing a dataset is marked
partial, never averaged as 0."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lctui.analysis.helmet import (
    CATEGORIES,
    ENTRIES,
    HEADINGS,
    PARTIAL,
    HelmetRow,
    helmet_table,
    shown,
)
from lctui.core.lengths import format_length
from lctui.core.suites import ReportTable, SuiteReport


def missing_line(row: HelmetRow) -> str:
    """What the row lacks: the datasets of its partial categories, its empty categories."""
    partial = [m for c in row.categories.values() if c.partial for m in c.missing]
    empty = [HEADINGS[k] for k, c in row.categories.items() if c.value is None]
    parts = []
    if partial:
        parts.append(f"without a score: {', '.join(partial)}")
    if empty:
        parts.append(f"no dataset scored: {', '.join(empty)}")
    where = f"{row.model} @ {format_length(row.length)}"
    return f"{where}: " + ("; ".join(parts) if parts else "every dataset scored")


def report(src: Any, models: Sequence[str] | None, run_id: str | None) -> SuiteReport | None:
    rows = helmet_table(src, models, run_id=run_id)
    if not rows:
        return None
    table = ReportTable(
        "HELMET categories (0-100)",
        ("model", "length", *(HEADINGS[c] for c in CATEGORIES), "Overall"),
        tuple(
            (
                r.model,
                format_length(r.length),
                *(shown(r.categories[c].value, r.categories[c].partial) for c in CATEGORIES),
                shown(r.overall, r.partial),
            )
            for r in rows
        ),
        details=tuple(missing_line(r) for r in rows),
    )
    missing = sorted(
        {m for r in rows for c in r.categories.values() if c.partial for m in c.missing}
    )
    notes: tuple[str, ...] = ()
    if missing:
        notes = (
            f"{PARTIAL} means of what is there; without a score (never counted as 0): "
            f"{', '.join(missing)}. Run those tasks (`lctui judge` scores judge_* metrics, "
            "`lctui cite-score` citation_*) to complete the table; '-': no dataset of the "
            "category scored.",
        )
    # Only the table's own tasks: an outdated score elsewhere does not change it.
    tasks = tuple(sorted({e.task for e in ENTRIES}))
    return SuiteReport((table,), notes, tuple(r.as_dict() for r in rows), tasks=tasks)
