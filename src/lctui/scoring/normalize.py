"""Answer normalisation for SubEM and EM, as HELMET (after SQuAD) defines it.

Lower-case, drop punctuation, drop the articles a/an/the, collapse whitespace.
"""

from __future__ import annotations

import re
import string
import unicodedata

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_ASCII_PUNCTUATION = frozenset(string.punctuation)


def _is_punctuation(char: str) -> bool:
    # ASCII punctuation is what the originals drop (it includes symbols such as $ and +);
    # Unicode punctuation is dropped too so that curly quotes or a CJK full stop around an
    # answer do not defeat the match. On ASCII text the result equals the originals'.
    return char in _ASCII_PUNCTUATION or unicodedata.category(char).startswith("P")


def normalize_answer(text: str) -> str:
    """Normalise `text` for answer comparison: 'The  "Big" Apple!' -> 'big apple'."""
    # NFC first, so a precomposed and a decomposed accent compare equal.
    lowered = unicodedata.normalize("NFC", text).lower()
    without_punctuation = "".join(ch for ch in lowered if not _is_punctuation(ch))
    without_articles = _ARTICLES.sub(" ", without_punctuation)
    return " ".join(without_articles.split())
