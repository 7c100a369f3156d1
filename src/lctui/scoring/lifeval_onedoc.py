"""LIFEval's rubric programs for the onedoc scenario of LIFBench (not written yet)."""

from __future__ import annotations

from collections.abc import Mapping

from lctui.core.types import Example, RubricPoint
from lctui.scoring.lifeval_points import PointSpec


def onedoc_points(
    example: Example, output: str, specs: Mapping[str, PointSpec]
) -> tuple[tuple[str, ...], list[RubricPoint]]:
    """(extracted answers, rubric points) of one output of a onedoc task."""
    raise ValueError("the lifeval scorer does not handle the onedoc scenario yet")
