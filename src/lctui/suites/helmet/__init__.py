"""HELMET: its report (the seven category means and the overall per model and length)."""

from lctui.suites.helmet.report import SUITE

__all__ = ["SUITE"]
