"""The bounds of a run's numbers, declared once in core.bounds and enforced by RunRequest
itself, so the CLI, the TUI and the inspector's re-runs refuse the same values."""

from __future__ import annotations

from typing import Any

import pytest

from lctui.backends import builtin_models
from lctui.core.bounds import MAX_LENGTH, MAX_N, MAX_SEED
from lctui.core.errors import UserInputError
from lctui.core.lengths import parse_length, parse_lengths
from lctui.engine import RunRequest
from lctui.tasks import select_tasks

GOLD = next(m for m in builtin_models() if m.name == "gold")


def test_lengths_within_256_to_2048k() -> None:
    assert parse_length("2048k") == MAX_LENGTH == 2**21
    assert parse_length("2m") == MAX_LENGTH
    assert parse_lengths("256,1.5k") == [256, 1536]
    with pytest.raises(UserInputError, match=r"length '2049k' is too long: .* 2048k"):
        parse_length("2049k")
    with pytest.raises(UserInputError, match="is too long"):
        parse_length("1000000000000")
    # A float would overflow to infinity here (OverflowError, a traceback).
    with pytest.raises(UserInputError, match="is too long"):
        parse_length("9" * 400)
    with pytest.raises(UserInputError, match="too short"):
        parse_length("0.1k")


def _request(**fields: Any) -> RunRequest:
    values: dict[str, Any] = {"models": [GOLD], "tasks": select_tasks("vt"), "lengths": [1024]}
    return RunRequest(**{**values, **fields})


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"n": 0}, "n must be at least 1"),
        ({"n": MAX_N + 1}, "n must be at most 2,147,483,647"),
        ({"seed": MAX_SEED + 1}, "seed must be an integer from 0 to 2\\*\\*63 - 1"),
        ({"seed": -1}, "seed must be an integer from 0"),
        ({"temperature": float("nan")}, "temperature must be a number from 0 to 2, got nan"),
        ({"temperature": -0.1}, "temperature must be a number from 0 to 2"),
        ({"lengths": [1024, MAX_LENGTH + 1]}, "length 2097153 is too long"),
        ({"lengths": [100]}, "length 100 is too short"),
    ],
)
def test_run_request_refuses_numbers_out_of_bounds(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(UserInputError, match=message):
        _request(**fields)


def test_run_request_accepts_the_limits() -> None:
    request = _request(seed=MAX_SEED, temperature=2.0, lengths=[256, MAX_LENGTH], n=MAX_N)
    assert request.seed == MAX_SEED and len(request.example_indices()) == MAX_N
    # Explicit indices (an inspector re-run) count instead of n.
    assert len(_request(n=1, indices=[7]).example_indices()) == 1
