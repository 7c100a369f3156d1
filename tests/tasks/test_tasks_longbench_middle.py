"""LongBench v2's middle cut (suites/longbench/tasks/middle.py) on texts whose cut is hard: the
kept text is always the whole tokenisation's first and last ids decoded together, as the
original computes it, whether the cut is sliced from the text (tiktoken) or decoded (a
Hugging Face tokenizer), where the cut splits a character's bytes, where the text holds
a lone surrogate, special-token text, Chinese without spaces or long runs of spaces, and
the windows still read only a small part of a long text."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import pytest

from helpers.longbench_data import STRUCTURE_CONTEXTS, prose, structure_rows
from lctui.core.protocols import Tokenizer
from lctui.suites.longbench.tasks.middle import MiddleCut, keep_ends
from lctui.tasks.tokenizers import reference_tokenizer

HARD = [name for name, kind, _ in STRUCTURE_CONTEXTS if kind != "prose"]


class _Counting:
    """A real tokenizer that records how many characters it was asked to encode (and
    keeps its way of decoding: `round_trips` is the inner tokenizer's)."""

    def __init__(self, inner: Tokenizer) -> None:
        self.inner, self.name, self.encoded, self.decoded = inner, inner.name, 0, 0
        self.round_trips = bool(getattr(inner, "round_trips", False))

    def encode(self, text: str) -> list[int]:
        self.encoded += len(text)
        return self.inner.encode(text)

    def decode(self, ids: Sequence[int]) -> str:
        self.decoded += len(ids)
        return self.inner.decode(ids)

    def count(self, text: str) -> int:
        return len(self.encode(text))

    def count_batch(self, texts: Sequence[str]) -> list[int]:
        return [self.count(t) for t in texts]


@cache
def _contexts() -> dict[str, str]:
    rows = structure_rows()
    return {
        name: row["context"].strip()
        for (name, _, _), row in zip(STRUCTURE_CONTEXTS, rows, strict=True)
    }


def _check(text: str, tokenizer: Tokenizer, head: int, tail: int) -> MiddleCut:
    """keep_ends against the whole tokenisation's cut."""
    kept = keep_ends(text, tokenizer, head, tail)
    ids = tokenizer.encode(text)
    assert kept.cut and (kept.head_tokens, kept.tail_tokens) == (head, tail)
    assert kept.text == tokenizer.decode(ids[:head] + ids[len(ids) - tail :])
    head_text = tokenizer.decode(ids[:head])
    if not head_text.endswith("\ufffd"):  # the cut splits no character
        assert kept.text[: kept.head_chars] == head_text
    return kept


def test_tiktoken_cuts_are_sliced_from_the_text_not_decoded() -> None:
    """With tiktoken the kept 60,000 tokens are not decoded: only the few hundred each
    window holds beyond them; the windows and samples read about 4 % more than is kept."""
    text = prose(400_000)
    counting = _Counting(reference_tokenizer("o200k_base"))
    kept = keep_ends(text, counting, 30_000, 30_000)
    assert kept == _check(text, reference_tokenizer("o200k_base"), 30_000, 30_000)
    assert counting.decoded < 3_000
    assert counting.encoded < len(kept.text) * 1.08


@pytest.mark.parametrize("tokenizer_name", ["o200k_base", "cl100k_base"])
@pytest.mark.parametrize("name", HARD)
def test_hard_texts_are_cut_as_the_whole_tokenisation_reading_little_of_them(
    name: str, tokenizer_name: str
) -> None:
    text, tokenizer = _contexts()[name], reference_tokenizer(tokenizer_name)
    counting = _Counting(tokenizer)
    kept = keep_ends(text, counting, 1500, 1500)
    assert kept == _check(text, tokenizer, 1500, 1500)
    if name == "chinese_no_spaces":  # no space to end a window at: tokenised whole
        assert kept.whole_tokens is not None
    else:
        assert kept.whole_tokens is None and counting.encoded < len(text) / 2


def test_cuts_that_split_a_characters_bytes_decode_as_the_original() -> None:
    """cl100k_base spends several tokens on some emoji: heads and tails that end inside
    one decode to U+FFFD at the join, as the original's decode of the kept ids does."""
    tokenizer = reference_tokenizer("cl100k_base")
    text = _contexts()["emoji"]
    ids = tokenizer.encode(text)
    split = 0
    for head in range(1500, 1540):
        split += tokenizer.decode(ids[:head]).endswith("\ufffd")
        _check(text, tokenizer, head, 3000 - head)
    assert split >= 3


def test_a_lone_surrogate_is_kept_as_the_tokenizer_reads_it() -> None:
    """tiktoken reads a lone surrogate as U+FFFD: the kept text has U+FFFD there, not
    the surrogate (the slice of the text would keep it)."""
    tokenizer = reference_tokenizer("o200k_base")
    words = prose(20_000).split(" ")
    words[300] += " \ud800"
    words[-300] += "\udfff "
    kept = _check(" ".join(words), tokenizer, 1500, 1500)
    assert "\ud800" not in kept.text and "\udfff" not in kept.text
    assert kept.text.count("\ufffd") == 2


def test_runs_of_spaces_at_the_windows_edges_keep_the_tokens_exact() -> None:
    words = prose(30_000).split(" ")
    text = "".join(w + " " * (1 + i % 9) for i, w in enumerate(words))
    tokenizer = reference_tokenizer("o200k_base")
    for head in (997, 2003, 4001, 6007):
        _check(text, tokenizer, head, 8000 - head)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["special_token_text", "emoji", "stray_whitespace", "code"])
def test_a_hugging_face_tokenizer_decodes_the_kept_ids_as_the_original(name: str) -> None:
    """SmolLM2's tokenizer (no `round_trips`): the ends are decoded, apart where that
    gives the joint decoding, else together."""
    from transformers import AutoTokenizer

    from lctui.backends.embedded import embedded_checkpoint
    from lctui.backends.hf_tokenizer import HFTokenizer

    tokenizer = HFTokenizer(AutoTokenizer.from_pretrained(embedded_checkpoint()))
    assert not getattr(tokenizer, "round_trips", False)
    _check(_contexts()[name], tokenizer, 1500, 1500)
