"""Text helpers shared by LIFEval's rubric programs: near misses and rubric points.

Model output is parsed defensively (JSON first, then a bracketed span, then lines)
and never evaluated; these helpers are the common parts of that parsing. Every
helper runs in time linear in the output: a rubric program runs on whatever a
model wrote, and a pattern that backtracks on a long run of spaces would stall
the engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rapidfuzz.distance import Levenshtein

from lctui.core.types import RubricPoint
from lctui.scoring.json_text import loads_or_none
from lctui.scoring.rubric import make_point
from lctui.suites.lifbench.scoring.point_specs import PointSpec


def edit_distance(a: str, b: str, limit: int) -> int:
    """Levenshtein distance of a and b, or limit + 1 once it must exceed `limit`.

    rapidfuzz's bit-parallel implementation with a cutoff: about a hundred times
    faster than a Python dynamic programme, which matters when an answer is looked
    up among the thousands of entries of a 120K-token list.
    """
    return int(Levenshtein.distance(a, b, score_cutoff=limit))


def bracketed(text: str) -> str:
    start, end = text.find("["), text.rfind("]")
    return text[start : end + 1] if 0 <= start < end else ""


@dataclass(frozen=True)
class Awarded:
    """What a rubric program awarded one output, with the response's total given as the
    original computes it (its own arithmetic, or 0 where it stops early while a point
    already shows partial credit), rather than as the weighted sum of the points."""

    extracted: tuple[str, ...]
    points: list[RubricPoint]
    total: float
    unparsed: bool = False  # the original gave up on the output: the total is 0
    note: str = ""  # why the total differs from the points, if it does


def rubric_point(spec: PointSpec, earned: float, explanation: str) -> RubricPoint:
    """The rubric point `spec` names, earning `earned` of its weight."""
    return make_point(spec.name, spec.weight, earned, explanation, spec.capabilities)


def in_spec_order(
    specs: Mapping[str, PointSpec], points: Mapping[str, RubricPoint]
) -> list[RubricPoint]:
    """The points of a task, in the order of its rubric."""
    return [points[name] for name in specs]


def json_list(text: str) -> tuple[list[Any] | None, bool]:
    """A JSON list in `text` (or in its bracketed part) and whether it is the whole text."""
    for candidate, whole in ((text, True), (bracketed(text), False)):
        if not candidate:
            continue
        value: Any = loads_or_none(candidate)
        if isinstance(value, list):
            return value, whole
    return None, False
