"""LongBench v2: its report (accuracy per model, mode and length, as its result script)."""

from lctui.suites.longbench.report import SUITE

__all__ = ["SUITE"]
