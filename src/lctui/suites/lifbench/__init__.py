"""LIFBench: its report (LIFEval's ARS, IFP per capability and IFS per perspective;
report.py), loaded when it runs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lctui.core.suites import Suite, SuiteReport, register


def _report(src: Any, models: Sequence[str] | None, run_id: str | None) -> SuiteReport | None:
    from lctui.suites.lifbench.report import report

    return report(src, models, run_id)


SUITE = register(
    Suite(
        name="lifbench",
        aliases=("lifeval",),
        title="LIFEval",
        about="LIFEval's ARS and IFP per capability (higher is better) and IFS per "
        "perspective (lower is more stable), from the stored lifeval rubric points.",
        report=_report,
        empty="{db} holds no lifeval scores{wanted}; import some with "
        "`lctui import lifbench-scores DIR --db PATH`",
    )
)
