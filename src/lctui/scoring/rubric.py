"""Rubric points: weighted checks tagged with LIFEval capabilities, and their combination.

Every scorer explains itself through these points so the inspector shows all suites alike.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from lctui.core.types import RubricPoint

ORI = "Ori"  # reproduce original content
NUM = "Num"  # counting, numbers
SPAT = "Spat"  # positions, order
FMT = "Fmt"  # format
LOGIC = "Logic"  # condition or branch execution
RECOG = "Recog"  # pick out the key elements
CAPABILITIES: tuple[str, ...] = (ORI, NUM, SPAT, FMT, LOGIC, RECOG)

# Earned fractions computed as sums of shares may stray from [0, 1] by rounding only.
_TOLERANCE = 1e-9


def make_point(
    name: str,
    weight: float,
    earned: float,
    explanation: str,
    capabilities: Sequence[str] = (),
) -> RubricPoint:
    """A validated rubric point; `earned` is the fraction of `weight` the output earned."""
    if not name:
        raise ValueError("a rubric point needs a name")
    if not math.isfinite(weight) or weight <= 0:
        raise ValueError(f"rubric point {name!r}: weight must be positive, got {weight}")
    if not math.isfinite(earned) or not -_TOLERANCE <= earned <= 1 + _TOLERANCE:
        raise ValueError(f"rubric point {name!r}: earned must lie in [0, 1], got {earned}")
    unknown = [cap for cap in capabilities if cap not in CAPABILITIES]
    if unknown:
        raise ValueError(
            f"rubric point {name!r}: unknown capabilities {unknown}; "
            f"known: {', '.join(CAPABILITIES)}"
        )
    return RubricPoint(
        name=name,
        weight=float(weight),
        earned=min(1.0, max(0.0, float(earned))),
        explanation=explanation,
        capabilities=tuple(capabilities),
    )


def share(part: int, whole: int) -> float:
    """`part / whole` as an earned fraction; 0.0 when there is nothing to earn from."""
    return part / whole if whole > 0 else 0.0


def weighted_fraction(points: Iterable[RubricPoint]) -> float:
    """sum(weight * earned) / sum(weight): LIFEval's ARS of one response."""
    total = 0.0
    earned = 0.0
    for point in points:
        total += point.weight
        earned += point.weight * point.earned
    if total <= 0:
        raise ValueError("cannot combine rubric points whose total weight is zero (or no points)")
    return earned / total


def capability_weights(points: Iterable[RubricPoint]) -> dict[str, tuple[float, float]]:
    """Per capability: (earned weight, total weight) over the points tagged with it.

    A point with several capabilities counts fully towards each, as in LIFEval's IFP.
    """
    totals: dict[str, tuple[float, float]] = {}
    for point in points:
        for cap in point.capabilities:
            earned, weight = totals.get(cap, (0.0, 0.0))
            totals[cap] = (earned + point.weight * point.earned, weight + point.weight)
    return totals


def list_values(values: Sequence[str], limit: int = 5) -> str:
    """Values for an explanation, shortened: 'a, b, c and 7 more'."""
    if len(values) <= limit:
        return ", ".join(values)
    return f"{', '.join(values[:limit])} and {len(values) - limit} more"
