"""Answer normalisation: lower-case, no punctuation, no articles, single spaces."""

from __future__ import annotations

import unicodedata

import pytest

from lctui.scoring.normalize import normalize_answer


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('The  "Big" Apple!', "big apple"),
        ("An apple a day", "apple day"),
        ("a an the", ""),
        ("theater and anthem", "theater and anthem"),  # articles only as whole words
        ("  Paris.\n\tFrance  ", "paris france"),
        ("U.S.A.", "usa"),
        ("don't", "dont"),
        ("state-of-the-art", "stateoftheart"),  # punctuation goes before articles
        ("$100 + 5%", "100 5"),  # ASCII symbols count as punctuation, as in SQuAD
        ("", ""),
    ],
)
def test_normalize_answer(text: str, expected: str) -> None:
    assert normalize_answer(text) == expected


def test_unicode_letters_are_kept_and_lowered() -> None:
    assert normalize_answer("Ünïcödé CAFÉ") == "ünïcödé café"


def test_unicode_punctuation_is_dropped() -> None:
    assert normalize_answer("“Paris” — the capital。") == "paris capital"


def test_composed_and_decomposed_accents_compare_equal() -> None:
    decomposed = unicodedata.normalize("NFD", "Café")
    assert decomposed != "Café"
    assert normalize_answer(decomposed) == normalize_answer("Café") == "café"
