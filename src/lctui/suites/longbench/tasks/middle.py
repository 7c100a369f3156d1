"""Keeping the two ends of a text that is longer than a token budget, without
tokenising the whole text.

LongBench v2 cuts an over-long prompt in its middle: it tokenises the prompt, keeps
its first and last halves of the budget and decodes the kept ids as one sequence. Its
contexts reach two million words, and tokenising all of them to keep 128K tokens
costs seconds to minutes per question, so `keep_ends` tokenises only windows at the
two ends, a little longer than the tokens they must yield:

- a window grows in pieces that end (head) or start (tail) at a space: the first is
  sized from the ratio of characters to tokens of a sample at that end, a little short,
  and the next from the ratio the pieces so far measured, a little long, so the window
  overshoots by a few hundred tokens and no text is tokenised twice. Where two pieces
  meet, the text around the join is tokenised split and whole: if the tokens differ
  (a pre-tokeniser that does not split there), the window is tokenised again in one
  piece;
- inside a window the tokens are those of the whole text except the few next to its
  open edge, which `_SLACK` tokens keep out of the kept ones (pre-tokenisers split at
  spaces; a tokenizer that adds a prefix to a text's first word changes only the tail
  window's first token);
- a text that may fit is tokenised whole, once, and cut from those ids as the
  original cuts.

The kept ids decode as one sequence, as the original decodes them. For a tokenizer
whose tokens' bytes are the text's own (`round_trips`: tiktoken's encodings) the kept
text is sliced from the text, once the few ids each window holds beyond the kept ones
are found to decode to exactly the window's text past the cut (so the cut splits no
character); otherwise the two ends are decoded apart and put together when the tokens
next to the join decode the same apart and together (no character split between the
ends, no decoder that treats a sequence's first token apart), else all together again.
The cut text's own token count is head + tail as the original counts it (re-tokenising
the decoded text may merge a token or two differently at the join); callers keep a few
tokens of room.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lctui.core.protocols import Tokenizer

# Tokens beyond what a window must yield, so that the kept ones never include a token
# whose tokenisation a window's open edge changed.
_SLACK = 32
# Characters sampled at each end to measure characters per token.
_SAMPLE_CHARS = 4096
# A window's first piece aims at this share of the tokens it must yield (the sample's
# ratio is rough: prose varies by 10-20 % over a window); later pieces, sized from what
# the pieces so far measured, aim this much above what is still missing.
_FIRST_SHARE = 0.85
_MARGIN = 1.02
# Characters on each side of a join between two pieces that are tokenised to check it,
# and the tokens on each side of the two ends' join whose decoding is checked.
_JOIN_CHARS = 256
_JOIN_TOKENS = 8
# A text this many times the budget (by the measured ratio) or less is tokenised whole.
_WHOLE_BELOW = 1.25
_REPLACEMENT = "\ufffd"  # what a decoder writes for bytes that are no whole character
_SURROGATE = re.compile("[\ud800-\udfff]")


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
    start = _head_window(text, tokenizer, head, head_ratio)
    end = _tail_window(text, tokenizer, tail)
    if start is None or end is None:  # the windows met: the text is barely over
        return _cut_ids(tokenizer.encode(text), text, tokenizer, head, tail)
    sliced = _sliced(text, tokenizer, start, head, end, tail)
    if sliced is not None:
        return sliced
    return _joined(start.ids[:head], end.ids[len(end.ids) - tail :], tokenizer)


@dataclass(frozen=True)
class _Window:
    """The tokens of `text[begin:end]` (those next to its open edge may differ from
    the whole text's)."""

    ids: list[int]
    begin: int
    end: int


def _cut_ids(ids: list[int], text: str, tokenizer: Tokenizer, head: int, tail: int) -> MiddleCut:
    if len(ids) <= head + tail:
        return MiddleCut(text, False, len(ids), 0, len(text), len(ids))
    kept = _joined(ids[:head], ids[len(ids) - tail :] if tail else [], tokenizer)
    return MiddleCut(kept.text, True, head, tail, kept.head_chars, len(ids))


def _joined(head_ids: list[int], tail_ids: list[int], tokenizer: Tokenizer) -> MiddleCut:
    head_text = tokenizer.decode(head_ids) if head_ids else ""
    tail_text = tokenizer.decode(tail_ids) if tail_ids else ""
    if _decodes_apart(head_ids, tail_ids, tokenizer):
        text = head_text + tail_text
    else:
        text = tokenizer.decode(head_ids + tail_ids)
    return MiddleCut(text, True, len(head_ids), len(tail_ids), min(len(head_text), len(text)), None)


def _decodes_apart(head_ids: list[int], tail_ids: list[int], tokenizer: Tokenizer) -> bool:
    """Whether the tokens next to the ends' join decode the same apart and together."""
    if not head_ids or not tail_ids:
        return True
    near_head, near_tail = head_ids[-_JOIN_TOKENS:], tail_ids[:_JOIN_TOKENS]
    together = tokenizer.decode(near_head + near_tail)
    return together == tokenizer.decode(near_head) + tokenizer.decode(near_tail)


def _sliced(
    text: str, tokenizer: Tokenizer, start: _Window, head: int, end: _Window, tail: int
) -> MiddleCut | None:
    """The kept text sliced from `text` itself, without decoding the kept ids, for a
    tokenizer whose tokens' bytes are the text's UTF-8 bytes (`round_trips`: tiktoken's
    encodings). Only the ids each window holds beyond the kept ones are decoded: when
    they decode to exactly the window's text past the cut, starting (head) or ending
    (tail) on a whole character, the kept ids are the bytes of the rest of the window,
    and they decode to it. None when that does not hold (the caller decodes)."""
    if not getattr(tokenizer, "round_trips", False):
        return None
    beyond_head = tokenizer.decode(start.ids[head:])
    beyond_tail = tokenizer.decode(end.ids[: len(end.ids) - tail])
    head_chars = start.end - len(beyond_head)
    tail_from = end.begin + len(beyond_tail)
    if beyond_head[:1] == _REPLACEMENT or beyond_tail[-1:] == _REPLACEMENT:
        return None  # the cut may split a character's bytes
    if text[head_chars : start.end] != beyond_head or text[end.begin : tail_from] != beyond_tail:
        return None
    # A lone surrogate is tokenised as U+FFFD: the kept ids would not decode to it.
    if _SURROGATE.search(text, 0, start.end) or _SURROGATE.search(text, end.begin):
        return None
    kept = text[:head_chars] + text[tail_from:]
    return MiddleCut(kept, True, head, tail, head_chars, None)


def _chars_per_token(sample: str, tokenizer: Tokenizer) -> float:
    tokens = tokenizer.count(sample)
    return max(1.0, len(sample) / tokens) if tokens else 4.0


def _head_window(text: str, tokenizer: Tokenizer, head: int, ratio: float) -> _Window | None:
    """A window at the start of `text` holding at least `head` + `_SLACK` tokens; None
    when it would reach the end region (the caller tokenises the whole text)."""
    if head == 0:
        return _Window([], 0, 0)
    want = head + _SLACK
    ids: list[int] = []
    done, share = 0, _FIRST_SHARE  # text[:done] is tokenised into ids
    while len(ids) < want:
        end = _space_after(text, done + int((want - len(ids)) * ratio * share) + 16)
        if end >= len(text) // 2:
            return None
        if ids and not _joins_cleanly(text, done, tokenizer):
            ids, done = [], 0
        piece = tokenizer.encode(text[done:end])
        ratio = max(1.0, (end - done) / max(1, len(piece)))
        ids += piece
        done, share = end, _MARGIN
    return _Window(ids, 0, done)


def _tail_window(text: str, tokenizer: Tokenizer, tail: int) -> _Window | None:
    """A window at the end of `text` holding at least `tail` + `_SLACK` tokens (None as
    for the head)."""
    if tail == 0:
        return _Window([], len(text), len(text))
    ratio = _chars_per_token(text[-_SAMPLE_CHARS:], tokenizer)
    want = tail + _SLACK
    ids: list[int] = []
    done, share = len(text), _FIRST_SHARE  # text[done:] is tokenised into ids
    while len(ids) < want:
        start = _space_before(text, done - int((want - len(ids)) * ratio * share) - 16)
        if start >= done:  # the run of spaces before `done` is longer than the piece
            start = max(0, text.rfind(" ", 0, done))
        if start <= len(text) // 2:
            return None
        if ids and not _joins_cleanly(text, done, tokenizer):
            ids, done = [], len(text)
        piece = tokenizer.encode(text[start:done])
        ratio = max(1.0, (done - start) / max(1, len(piece)))
        ids = piece + ids
        done, share = start, _MARGIN
    return _Window(ids, done, len(text))


def _joins_cleanly(text: str, at: int, tokenizer: Tokenizer) -> bool:
    """Whether the text around `at` gives the same tokens split at `at` as whole."""
    before = _space_before(text, at - _JOIN_CHARS)
    after = _space_after(text, at + _JOIN_CHARS)
    split = tokenizer.encode(text[before:at]) + tokenizer.encode(text[at:after])
    return split == tokenizer.encode(text[before:after])


def _space_after(text: str, at: int) -> int:
    """The first space at or after `at` (the last of its run: where pre-tokenisers
    split a run of spaces), or the text's end."""
    if at >= len(text):
        return len(text)
    found = text.find(" ", at)
    return len(text) if found < 0 else _run_end(text, found)


def _space_before(text: str, at: int) -> int:
    """The last space at or before `at` (the last of its run), or the text's start."""
    if at <= 0:
        return 0
    found = text.rfind(" ", 0, at + 1)
    return 0 if found < 0 else _run_end(text, found)


def _run_end(text: str, space: int) -> int:
    """The last space of the run of spaces holding position `space`."""
    while space + 1 < len(text) and text[space + 1] == " ":
        space += 1
    return space
