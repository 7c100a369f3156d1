"""Rubric points: validation, weighted combination, per-capability totals."""

from __future__ import annotations

import pytest

from lctui.scoring.rubric import (
    CAPABILITIES,
    FMT,
    RECOG,
    SPAT,
    capability_weights,
    list_values,
    make_point,
    share,
    weighted_fraction,
)


def test_capabilities_are_the_lifeval_set() -> None:
    assert set(CAPABILITIES) == {"Ori", "Num", "Spat", "Fmt", "Logic", "Recog"}


def test_weighted_fraction_is_earned_weight_over_total_weight() -> None:
    points = [
        make_point("format", 1, 1.0, "ok", (FMT,)),
        make_point("correct", 2, 0.5, "half", (RECOG,)),
        make_point("order", 1, 0.0, "wrong order", (SPAT,)),
    ]
    # (1*1 + 2*0.5 + 1*0) / 4
    assert weighted_fraction(points) == pytest.approx(0.5)


def test_weighted_fraction_of_no_points_raises() -> None:
    with pytest.raises(ValueError, match="total weight is zero"):
        weighted_fraction([])


def test_make_point_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="weight must be positive"):
        make_point("p", 0, 1.0, "")
    with pytest.raises(ValueError, match=r"earned must lie in \[0, 1\]"):
        make_point("p", 1, 1.5, "")
    with pytest.raises(ValueError, match=r"earned must lie in \[0, 1\]"):
        make_point("p", 1, float("nan"), "")
    with pytest.raises(ValueError, match="unknown capabilities"):
        make_point("p", 1, 1.0, "", ("Recognition",))


def test_make_point_clamps_rounding_noise() -> None:
    assert make_point("p", 1, 1 + 1e-12, "").earned == 1.0
    assert make_point("p", 1, -1e-12, "").earned == 0.0


def test_capability_weights_count_a_point_towards_each_of_its_capabilities() -> None:
    points = [
        make_point("correct", 2, 0.5, "", (RECOG, SPAT)),
        make_point("format", 1, 1.0, "", (FMT,)),
        make_point("order", 2, 1.0, "", (SPAT,)),
    ]
    assert capability_weights(points) == {
        RECOG: (1.0, 2.0),
        SPAT: (3.0, 4.0),
        FMT: (1.0, 1.0),
    }


def test_text_helpers() -> None:
    assert list_values(["a", "b"]) == "a, b"
    assert list_values([str(i) for i in range(8)], limit=3) == "0, 1, 2 and 5 more"
    assert share(1, 4) == 0.25
    assert share(0, 0) == 0.0
