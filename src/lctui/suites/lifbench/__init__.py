"""LIFBench: its report (LIFEval's ARS, IFP per capability and IFS per perspective)."""

from lctui.suites.lifbench.report import SUITE

__all__ = ["SUITE"]
