"""The words a list-shaped answer gives, whether or not the task's vocabulary knows them.

Word tasks (cwe, fwe) know the words of their list, but a model can answer with any
word: one from the prompt's solved example, or one that occurs nowhere in the prompt.
Those are answer values too, and a rubric that only looks for known words would call
such a list clean. Here the shape of the output decides what an entry is: the parts
between list separators (commas, line breaks, list markers, "and") that are one word.
"""

from __future__ import annotations

import re

Hit = tuple[int, int, str]  # start, end, value as written

# Between two entries: punctuation that ends a list item or a sentence, a line break,
# a number or bullet marking an item, or a conjunction.
_SEPARATOR = re.compile(
    r"[,;:\n!?|]+"
    r"|\.(?=\s|$)"
    r"|(?<!\S)(?:\d+[.)]|[-*\u2022+])(?=\s)"
    r"|(?<!\w)(?:and|or)(?!\w)",
    re.IGNORECASE,
)
# One word: letters, with inner hyphens or apostrophes ("well-known", "o'clock").
_ONE_WORD = re.compile(r"[^\W\d_]+(?:[-'\u2019][^\W\d_]+)*")
# What may wrap an entry: quotes, emphasis, brackets, a trailing full stop.
_WRAPPING = "\"'`*_~()[]{}\u201c\u201d\u2018\u2019. \t"
# Separators after which a lone word is an entry even beside prose: "The word is: x".
_INTRODUCING = re.compile(r"[:\n]|\d+[.)]|[-*\u2022+]")


def _items(output: str) -> list[tuple[int, int, bool]]:
    """(start, end, introduced) of each non-blank part between separators; introduced
    when a colon, a line break or a list marker comes before it."""
    parts: list[tuple[int, int, bool]] = []
    start, introduced = 0, False
    for sep in _SEPARATOR.finditer(output):
        if output[start : sep.start()].strip():
            parts.append((start, sep.start(), introduced))
            introduced = False
        introduced = introduced or _INTRODUCING.search(sep.group()) is not None
        start = sep.end()
    if output[start:].strip():
        parts.append((start, len(output), introduced))
    return parts


def _without_remark(text: str) -> str:
    """`text` without a count or remark in brackets at its end: "fliers (38 times)".

    String methods, not a regex: a regex anchored at the end would be retried from
    every position of a long run of spaces (quadratic on a degenerate output).
    """
    text = text.rstrip()
    if not text.endswith(")"):
        return text
    opening = text.rfind("(")
    return text[:opening] if opening > 0 and ")" not in text[opening:-1] else text


def _single_word(output: str, start: int, end: int) -> Hit | None:
    text = _without_remark(output[start:end])
    stripped = text.strip(_WRAPPING)
    if not _ONE_WORD.fullmatch(stripped):
        return None
    at = start + len(text) - len(text.lstrip(_WRAPPING))
    return at, at + len(stripped), stripped


def listed_words(output: str) -> list[Hit]:
    """The one-word entries of `output`'s lists, in output order, repeats included.

    A lone word between prose ("Sure, here they are") is not an entry: a word counts
    when an entry beside it is one word too, when it is the whole output, or when a
    colon, a line break or a list marker introduces it.
    """
    items = _items(output)
    words = [_single_word(output, start, end) for start, end, _ in items]
    hits: list[Hit] = []
    for i, word in enumerate(words):
        if word is None:
            continue
        beside = [words[j] for j in (i - 1, i + 1) if 0 <= j < len(words)]
        if len(items) == 1 or items[i][2] or any(w is not None for w in beside):
            hits.append(word)
    return hits
