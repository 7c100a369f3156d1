"""The one-word entries of list-shaped answers, known words or not."""

from __future__ import annotations

import pytest

from lctui.scoring.listing import listed_words


@pytest.mark.parametrize(
    ("output", "words"),
    [
        (" struggle, pursuit, fliers, fliers", ["struggle", "pursuit", "fliers", "fliers"]),
        ("Sure, here are the words: a, b, and c.", ["a", "b", "c"]),
        ("The most common word is: struggle.", ["struggle"]),
        ("1. farewell 2. seductive 3. slowdown", ["farewell", "seductive", "slowdown"]),
        ("- apple\n- **river**\n- `pear` (38 times)", ["apple", "river", "pear"]),
        ("struggle", ["struggle"]),
        ("Answer: well-known, o'clock", ["Answer", "well-known", "o'clock"]),
        ("apple; river | pear", ["apple", "river", "pear"]),
    ],
)
def test_list_entries_are_found(output: str, words: list[str]) -> None:
    assert [word for _, _, word in listed_words(output)] == words


@pytest.mark.parametrize(
    "output",
    [
        "banana cherry grape",  # one entry of three words: prose, not a list
        "I counted the words. However, fliers appears most.",  # a lone word between prose
        "",
        "1234567, 7654321",  # numbers are not words
    ],
)
def test_prose_gives_no_entries(output: str) -> None:
    assert listed_words(output) == []


def test_entries_carry_their_place_in_the_output() -> None:
    output = 'Answer: "pursuit", fliers'
    assert [output[start:end] for start, end, _ in listed_words(output)] == [
        "Answer",
        "pursuit",
        "fliers",
    ]
