"""Keeping the two ends of a text that is longer than a token budget, without
tokenising the whole text.

LongBench v2 cuts an over-long prompt in its middle: it tokenises the prompt, keeps
its first and last halves of the budget and decodes the kept ids as one sequence. Its
contexts reach two million words, and tokenising all of them to keep 128K tokens
costs seconds to minutes per question, so `keep_ends` tokenises only windows at the
two ends, a little longer than the tokens they must yield:

- the ratio of characters to tokens is measured on a sample at each end, and each
  window is sized from it (5 % and a few tokens of slack); a window that yields too
  few tokens is tokenised again, larger;
- windows end (head) or start (tail) at a space, so the tokens inside them are those
  of the whole text except the few next to the window's open edge, which `_SLACK`
  tokens keep out of the kept ones (pre-tokenisers split at spaces; a tokenizer that
  adds a prefix to a text's first word changes only the tail window's first token);
- a text that may fit is tokenised whole, once, and cut from those ids as the
  original cuts.

The kept ids are decoded together, as the original decodes them. The cut text's own
token count is head + tail as the original counts it (re-tokenising the decoded text
may merge a token or two differently at the join); callers keep a few tokens of room.
"""

from __future__ import annotations

from dataclasses import dataclass

from lctui.core.protocols import Tokenizer

# Tokens beyond what a window must yield, so that the kept ones never include a token
# whose tokenisation a window's open edge changed.
_SLACK = 32
# Characters sampled at each end to measure characters per token.
_SAMPLE_CHARS = 4096
_OVERSHOOT = 1.05  # windows are sized this much above the measured ratio
# A text this many times the budget (by the measured ratio) or less is tokenised whole.
_WHOLE_BELOW = 1.25


@dataclass(frozen=True)
class MiddleCut:
    """A text with its middle cut out, or the text itself when it fits."""

    text: str
    cut: bool
    head_tokens: int  # tokens kept from the start (all of them when not cut)
    tail_tokens: int  # tokens kept from the end (0 when not cut)
    head_chars: int  # characters of `text` that come from the start: the cut is there
    # Tokens of the whole text when it was tokenised whole (it fit, or nearly), else
    # None: a long text is never tokenised whole.
    whole_tokens: int | None

    @property
    def kept_tokens(self) -> int:
        return self.head_tokens + self.tail_tokens


def keep_ends(text: str, tokenizer: Tokenizer, head: int, tail: int) -> MiddleCut:
    """`text` if it has at most `head + tail` tokens, else its first `head` and last
    `tail` tokens decoded as one sequence (the original's middle cut)."""
    if head < 0 or tail < 0:
        raise ValueError(f"head and tail must be >= 0, got {head} and {tail}")
    budget = head + tail
    head_ratio = _chars_per_token(text[:_SAMPLE_CHARS], tokenizer)
    if len(text) <= budget * head_ratio * _WHOLE_BELOW + _SAMPLE_CHARS:
        return _cut_ids(tokenizer.encode(text), text, tokenizer, head, tail)
    head_ids = _head_ids(text, tokenizer, head, head_ratio)
    tail_ids = _tail_ids(text, tokenizer, tail)
    if head_ids is None or tail_ids is None:  # the windows met: the text is barely over
        return _cut_ids(tokenizer.encode(text), text, tokenizer, head, tail)
    return _joined(head_ids, tail_ids, tokenizer)


def _cut_ids(ids: list[int], text: str, tokenizer: Tokenizer, head: int, tail: int) -> MiddleCut:
    if len(ids) <= head + tail:
        return MiddleCut(text, False, len(ids), 0, len(text), len(ids))
    kept = _joined(ids[:head], ids[len(ids) - tail :] if tail else [], tokenizer)
    return MiddleCut(kept.text, True, head, tail, kept.head_chars, len(ids))


def _joined(head_ids: list[int], tail_ids: list[int], tokenizer: Tokenizer) -> MiddleCut:
    text = tokenizer.decode(head_ids + tail_ids)
    head_chars = len(tokenizer.decode(head_ids)) if head_ids else 0
    return MiddleCut(text, True, len(head_ids), len(tail_ids), min(head_chars, len(text)), None)


def _chars_per_token(sample: str, tokenizer: Tokenizer) -> float:
    tokens = tokenizer.count(sample)
    return max(1.0, len(sample) / tokens) if tokens else 4.0


def _head_ids(text: str, tokenizer: Tokenizer, head: int, ratio: float) -> list[int] | None:
    """The first `head` ids of `text`, from windows at its start; None when a window
    would reach the end region (the caller tokenises the whole text)."""
    if head == 0:
        return []
    want = head + _SLACK
    while True:
        end = _space_after(text, int(want * ratio * _OVERSHOOT) + 16)
        if end >= len(text) // 2:
            return None
        ids = tokenizer.encode(text[:end])
        if len(ids) >= want:
            return ids[:head]
        ratio *= want / max(1, len(ids)) * 1.1


def _tail_ids(text: str, tokenizer: Tokenizer, tail: int) -> list[int] | None:
    """The last `tail` ids of `text`, from windows at its end (None as for the head)."""
    if tail == 0:
        return []
    ratio = _chars_per_token(text[-_SAMPLE_CHARS:], tokenizer)
    want = tail + _SLACK
    while True:
        start = _space_before(text, len(text) - int(want * ratio * _OVERSHOOT) - 16)
        if start <= len(text) // 2:
            return None
        ids = tokenizer.encode(text[start:])
        if len(ids) >= want:
            return ids[len(ids) - tail :]
        ratio *= want / max(1, len(ids)) * 1.1


def _space_after(text: str, at: int) -> int:
    """The first position at or after `at` that holds a space (or the text's end)."""
    if at >= len(text):
        return len(text)
    found = text.find(" ", at)
    return len(text) if found < 0 else found


def _space_before(text: str, at: int) -> int:
    """The last position at or before `at` that holds a space (or the text's start)."""
    if at <= 0:
        return 0
    found = text.rfind(" ", 0, at + 1)
    return max(0, found)
