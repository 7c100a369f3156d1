"""`occurring` answers `needle in text` for many needles, scanning or hashing windows."""

from __future__ import annotations

import random

import pytest

from lctui.scoring.substrings import _SCAN_LIMIT, occurring


def _text(rng: random.Random, size: int) -> str:
    # A small alphabet (many partial matches), non-ASCII and a lone surrogate.
    return "".join(rng.choice("abcab\u00e9\u4e2d\ud800 ") for _ in range(size))


@pytest.mark.parametrize("length", [1, 3, 6, 12])
def test_many_needles_of_one_length_are_hashed_and_answer_as_in(length: int) -> None:
    rng = random.Random(length)
    text = _text(rng, 20_000)
    present = [text[i : i + length] for i in rng.sample(range(len(text) - length), 3_000)]
    absent = ["".join(rng.choice("abcd\u00e9") for _ in range(length)) for _ in range(_SCAN_LIMIT)]
    needles = [*present, *absent, *present[:100]]
    assert len(set(needles)) > _SCAN_LIMIT or length <= 3  # the hashed path (short: few exist)
    assert occurring(needles, text) == {n for n in needles if n in text}


def test_mixed_lengths_empty_and_too_long_needles() -> None:
    rng = random.Random(7)
    text = _text(rng, 3_000)
    needles = ["", text, text + "a", "zzz", *(text[i : i + 5] for i in range(0, 3_000, 7))]
    assert occurring(needles, text) == {n for n in needles if n in text}
    assert occurring([], text) == set() and occurring(["a"], "") == set()
