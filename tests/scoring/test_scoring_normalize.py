"""Answer normalisation as HELMET's: lower-case, no ASCII punctuation, no articles, single
spaces, and nothing else (tests/parity/test_helmet_metrics.py checks it against HELMET)."""

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


def test_only_ascii_punctuation_is_dropped() -> None:
    # Curly quotes, dashes and the CJK full stop are not in string.punctuation: HELMET
    # keeps them, so a UUID written with en dashes is another string.
    assert normalize_answer("“Paris” — the capital。") == "“paris” — capital。"
    assert normalize_answer("9e8d7c6b–5a49") == "9e8d7c6b–5a49"
    assert normalize_answer("9e8d7c6b-5a49") == "9e8d7c6b5a49"


def test_no_unicode_normalisation() -> None:
    decomposed = unicodedata.normalize("NFD", "Café")
    assert normalize_answer(decomposed) == decomposed.lower() != normalize_answer("Café")
    assert normalize_answer("１２３") == "１２３"  # fullwidth digits stay


def test_whitespace_is_any_unicode_space() -> None:
    assert normalize_answer("New\u00a0York\u2003City") == "new york city"
