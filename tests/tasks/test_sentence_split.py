"""The prose splitter splits only where a sentence surely ends, so that a needle put
between two of its sentences never lands inside one ("St. <needle> John")."""

from __future__ import annotations

import pytest

from lctui.tasks.corpora import sotu_sentences, split_sentences, sure_end
from lctui.tasks.haystack import Needle, Pieces, insert_needles

PROSE = (
    "We sailed from St. John with Mr. Lincoln and Gen. Grant aboard. The U.S. Navy "
    'escorted us. He said "hold fast." Then J. Edgar Hoover arrived on Jan. First Street! '
    "Was it late? (It was.) So... Nobody slept."
)


def test_abbreviations_initials_and_acronyms_never_end_a_sentence() -> None:
    assert split_sentences(PROSE) == [
        "We sailed from St. John with Mr. Lincoln and Gen. Grant aboard.",
        "The U.S. Navy escorted us.",
        'He said "hold fast."',
        "Then J. Edgar Hoover arrived on Jan. First Street!",
        "Was it late?",
        "(It was.)",
        "So... Nobody slept.",
    ]


@pytest.mark.parametrize(
    ("sentence", "sure"),
    [
        ("It ended.", True),
        ("Was it late?", True),
        ('He said "hold fast."', True),
        ("(It was.)", True),
        ("We met Mr.", False),
        ("They sailed to St.", False),
        ("in the U.S.", False),
        ("signed by J.", False),
        ("and so on, etc.", False),
        ("So...", False),
    ],
)
def test_sure_end(sentence: str, sure: bool) -> None:
    assert sure_end(sentence) is sure


def test_a_needle_at_any_depth_lands_between_whole_sentences() -> None:
    pieces = Pieces([" " + s for s in split_sentences(PROSE)])
    count = len(pieces.pieces)
    for depth in range(101):
        text, spans = insert_needles(pieces, count, [Needle("NEEDLE.", float(depth))])
        before = text[: spans[0].start].rstrip()
        assert not before or sure_end(before), (depth, before[-30:])
        for name in ("St.", "Mr.", "Gen.", "U.S.", "J.", "Jan."):
            assert f"{name} NEEDLE" not in text


def test_the_prose_corpus_keeps_abbreviations_inside_its_sentences() -> None:
    sentences = sotu_sentences()
    assert any("St. John" in s for s in sentences)
    assert any(" Mr. " in s for s in sentences)
    ends = ("Mr.", "Mrs.", "Dr.", "St.", "Gen.", "Hon.")
    assert not [s for s in sentences if s.rsplit(" ", 1)[-1] in ends]
