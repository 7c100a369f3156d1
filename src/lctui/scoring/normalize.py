"""Answer normalisation for SubEM, EM and F1, exactly as HELMET (after SQuAD) defines it.

Lower-case (Python's `str.lower`), delete the 32 ASCII punctuation characters, replace
the whole words a/an/the by a space, collapse whitespace (`str.split`). Nothing more:
no Unicode normalisation and no other punctuation, so a UUID written with en dashes,
a curly-quoted answer or a decomposed accent does not match what HELMET would not
match either (tests/parity/helmet_metrics.jsonl holds HELMET's own results).
"""

from __future__ import annotations

import re
import string

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_DROP_PUNCTUATION = str.maketrans("", "", string.punctuation)


def normalize_answer(text: str) -> str:
    """Normalise `text` for answer comparison: 'The  "Big" Apple!' -> 'big apple'."""
    lowered = text.lower()
    without_punctuation = lowered.translate(_DROP_PUNCTUATION)
    without_articles = _ARTICLES.sub(" ", without_punctuation)
    return " ".join(without_articles.split())
