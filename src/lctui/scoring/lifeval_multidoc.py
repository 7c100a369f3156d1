"""LIFEval's rubric programs for the multidoc scenario of LIFBench (not written yet)."""

from __future__ import annotations

from collections.abc import Mapping

from lctui.core.types import Example, RubricPoint
from lctui.scoring.lifeval_points import PointSpec


def multidoc_points(
    example: Example, output: str, specs: Mapping[str, PointSpec]
) -> tuple[tuple[str, ...], list[RubricPoint]]:
    """(extracted answers, rubric points) of one output of a multidoc task."""
    raise ValueError("the lifeval scorer does not handle the multidoc scenario yet")
