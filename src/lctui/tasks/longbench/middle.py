"""Keeping the two ends of a text that is longer than a token budget.

LongBench v2 cuts an over-long prompt in its middle: the first and the last tokens of
the budget stay and everything between them goes. `keep_ends` does that with the run's
tokenizer; the kept ids are decoded together, as the original decodes them.
"""

from __future__ import annotations

from dataclasses import dataclass

from lctui.core.protocols import Tokenizer


@dataclass(frozen=True)
class MiddleCut:
    """A text with its middle cut out, or the text itself when it fits."""

    text: str
    cut: bool
    kept_tokens: int
    whole_tokens: int | None  # None when the whole text was never counted


def keep_ends(text: str, tokenizer: Tokenizer, head: int, tail: int) -> MiddleCut:
    """`text` if it has at most `head + tail` tokens, else its first `head` and last
    `tail` tokens joined (decoded as one id sequence)."""
    ids = tokenizer.encode(text)
    if len(ids) <= head + tail:
        return MiddleCut(text, False, len(ids), len(ids))
    kept = ids[:head] + (ids[len(ids) - tail :] if tail else [])
    return MiddleCut(tokenizer.decode(kept), True, len(kept), len(ids))
