"""Aggregation tasks (RULER's cwe and fwe): find the most frequent words of a long list.

cwe: a numbered list where ten common words appear many times and the rest a few
times each, after a solved example; below 4K tokens RULER's short counts (x6 and x1).
fwe: a text of made-up words with RULER's Zipf counts, the most frequent slot taken by
a filler token the model is told to leave out; the answer is the next three. The length
of the list is fitted to the budget with counts of its pieces (numbers and words).
"""

from __future__ import annotations

import random
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar, overload

from lctui.core.bounds import MAX_LENGTH
from lctui.core.errors import UserInputError
from lctui.core.hashing import seed_from
from lctui.core.protocols import Tokenizer
from lctui.core.types import ParamSpec
from lctui.tasks.base import Draft, Task, reserve_answer_prefix
from lctui.tasks.budget import (
    Budget,
    fit_to_budget,
    longest_fitting,
    piece_counts,
    prefix_sums,
)
from lctui.tasks.corpora import list_words, wonder_words
from lctui.tasks.params import int_param, number_param
from lctui.tasks.sampling import distinct

_ITEM_TOKENS = 4  # a rough size of " 123. word", only for scaling frequencies down
# Bounds that keep a list buildable: cwe's word pool holds 2 x num_common + 30 words and
# enough rare ones for the length, and its rare items (pool words x rare_freq) are counted
# one by one.
MAX_COMMON = 1000
MAX_COMMON_FREQ = 10_000
MAX_RARE_FREQ = 100
MAX_ANSWERS = 100
MAX_VOCAB = 100_000
MAX_LETTERS = 20


def _numbered(words: list[str]) -> str:
    return " ".join(f"{i}. {w}" for i, w in enumerate(words, 1))


@dataclass(frozen=True)
class Regime:
    """RULER's cwe counts at a length: the solved example's and the main list's."""

    demo_common_freq: int
    demo_others: int  # the solved example's other words, besides its num_common
    demo_rare_freq: int
    common_freq: int
    rare_freq: int


# Below SHORT_BELOW tokens RULER switches to a short list (commons x6, others x1) and a
# 20-word solved example; from SHORT_BELOW on, commons x30 (common_freq), others x3
# (rare_freq) and a 40-word solved example.
SHORT_BELOW = 4096


def cwe_regime(length: int, params: Mapping[str, Any]) -> Regime:
    if length < int(params["short_below"]):
        return Regime(3, 10, 1, 6, 1)
    return Regime(10, 30, 3, int(params["common_freq"]), int(params["rare_freq"]))


class CommonWords(Task):
    param_specs: ClassVar[tuple[ParamSpec, ...]] = (
        int_param("num_common", "words that appear most often (the answer)", 1, MAX_COMMON),
        int_param(
            "common_freq",
            "occurrences of each common word from short_below on (scaled down if the "
            "common words would fill over half the list)",
            2,
            MAX_COMMON_FREQ,
        ),
        int_param(
            "rare_freq", "occurrences of each other word from short_below on", 1, MAX_RARE_FREQ
        ),
        int_param(
            "short_below",
            "lengths below this use RULER's short list: common words x6, others x1, and a "
            "solved example of num_common x3 + 10 x1 words (from it on: num_common x10 + "
            "30 x3); 0: never",
            0,
            MAX_LENGTH,
        ),
    )

    def check_params(self, params: Mapping[str, Any]) -> None:
        common, rare = int(params["common_freq"]), int(params["rare_freq"])
        if common <= rare:
            raise UserInputError(
                f"{self.name}.common_freq ({common}) must be larger than rare_freq ({rare}): "
                "the common words must occur more often than the others"
            )

    def build_version(self, length: int) -> int:
        # 2: every other word occurs exactly rare_freq times (the last one could occur
        # fewer to fill the budget); lists with rare_freq 1 are built as before.
        return 2 if cwe_regime(length, self.params).rare_freq > 1 else 1

    def build(self, rng: random.Random, budget: Budget, tokenizer: Tokenizer, index: int) -> Draft:
        p = self.params
        num_common = int(p["num_common"])
        regime = cwe_regime(budget.length, p)
        demo_size = num_common + regime.demo_others
        # Enough rare words for the list (an item takes at least two tokens). Like RULER,
        # wonderwords' words while they suffice, a larger list (ours: with the prose's
        # words) beyond.
        pool_size = demo_size + num_common + budget.target // (2 * regime.rare_freq) + 16
        source = wonder_words() if pool_size <= len(wonder_words()) else list_words()
        vocab = rng.sample(source, min(len(source), pool_size))
        demo_common, demo_rare = vocab[:num_common], vocab[num_common:demo_size]
        pool = vocab[demo_size:]
        common, rare = pool[:num_common], pool[num_common:]
        demo_words = demo_common * regime.demo_common_freq + demo_rare * regime.demo_rare_freq
        rng.shuffle(demo_words)
        prefix = answer_prefix_words(num_common)
        demo = (
            f"{_CWE_INSTRUCTION}\n\n{_numbered(demo_words)}\n\n{self._ask(num_common)}\n"
            f"{prefix} {_numbered(demo_common)}"
        )
        preamble = (
            f"First, a solved example.\n\n{demo}\n\nNow the real task.\n\n{_CWE_INSTRUCTION}\n\n"
        )
        question = "\n\n" + self._ask(num_common)
        budget, prefix_tokens = reserve_answer_prefix(budget, prefix, tokenizer)
        fixed_text = preamble + question
        fixed = tokenizer.count(fixed_text)
        room = budget.target - fixed
        # Keep the common words under half of the list so the rare ones still matter.
        common_freq = min(regime.common_freq, room // (2 * num_common * _ITEM_TOKENS))
        rare_freq = regime.rare_freq
        if common_freq <= rare_freq:
            raise UserInputError(
                f"a length of {budget.length} tokens is too short for {self.name}: the common "
                f"words could not appear more often than the others"
            )
        counts = piece_counts(tokenizer)
        base = num_common * common_freq
        fixed += sum(counts.counts([" " + w for w in common])) * common_freq
        fixed += sum(counts.counts([f" {i}." for i in range(1, base + 1)]))
        # Units are whole rare words, each with its rare_freq items: as in RULER, every
        # other word occurs exactly rare_freq times (single items let the last one occur
        # once or twice); the list lands within the tolerance plus one word's items.
        rare_items = [w for w in rare for _ in range(rare_freq)]
        numbers = counts.counts([f" {i}." for i in range(base + 1, base + len(rare_items) + 1)])
        words_cost = counts.counts([" " + w for w in rare_items])
        per_item = [a + b for a, b in zip(words_cost, numbers, strict=True)]
        per_word = [sum(per_item[i : i + rare_freq]) for i in range(0, len(per_item), rare_freq)]
        lists: dict[int, list[str]] = {}
        shuffle_seed = rng.getrandbits(64)

        def build(n: int, _tail: str) -> str:
            words = common * common_freq + rare_items[: n * rare_freq]
            # Seeded by the item count, as when units were single items (rare_freq 1,
            # below short_below, builds the same lists as then).
            random.Random(seed_from(shuffle_seed, n * rare_freq)).shuffle(words)
            lists[n] = words
            return preamble + _numbered(words) + question

        fitted = fit_to_budget(build, prefix_sums(per_word), fixed, budget, tokenizer)
        words = lists[fitted.units]
        return Draft(
            preamble=preamble,
            context=_numbered(words),
            question=question,
            gold=tuple(common),
            tokens=fitted.tokens,
            params={**p, "common_freq": common_freq, "rare_freq": rare_freq},
            metadata={
                "candidates": sorted(set(words)),
                "demo_tokens": tokenizer.count(demo),
                "demo_entries": len(demo_words),
            },
            answer_prefix=prefix,
            prefix_tokens=prefix_tokens,
        )

    @staticmethod
    def _ask(num_common: int) -> str:
        return f"Which {num_common} words occur most often in the list? List all {num_common}."


def answer_prefix_words(count: int) -> str:
    """cwe's answer prefix: it names how many words are asked."""
    return f"Answer: the {count} words that occur most often in the list are"


_CWE_INSTRUCTION = (
    "Below is a numbered list of words. Some words occur far more often than the others."
)


def _coded_word(rng: random.Random, letters: int) -> str:
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(letters))


# The filler that takes the most frequent slot of fwe's text; the model is told to leave
# it out, so the answer is the next most frequent words (RULER's structure, our token).
NOISE_TOKEN = "....."
_NUMBER_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
# RULER sizes fwe's vocabulary by the length: one made-up word per 50 tokens left after
# the answer tokens.
TOKENS_PER_VOCAB_WORD = 50


def number_word(count: int) -> str:
    return _NUMBER_WORDS[count - 1] if 1 <= count <= len(_NUMBER_WORDS) else str(count)


@lru_cache(maxsize=32)
def _zeta(alpha: float) -> float:
    from scipy.special import zeta  # scipy is slow to import; only fwe needs it

    return float(zeta(alpha))


def zipf_counts(scale: int, size: int, alpha: float) -> list[int]:
    """RULER's fwe counts: rank k (1-based) occurs int(scale * k**-alpha / zeta(alpha))
    times, so every word whose share would be under one occurrence is absent."""
    z = _zeta(alpha)
    return [int(scale * (k**-alpha) / z) for k in range(1, size + 1)]


class _ZipfCost(Sequence[int]):
    """Estimated tokens of fwe's text at each scale n (0..last), computed on demand.

    Monotone in n (every count is), so the budget fit can bisect it like prefix sums.
    """

    def __init__(self, word_tokens: list[int], alpha: float, last: int) -> None:
        self._tokens = word_tokens
        self._alpha = alpha
        self._last = last

    def __len__(self) -> int:
        return self._last + 1

    @overload
    def __getitem__(self, n: int) -> int: ...
    @overload
    def __getitem__(self, n: slice) -> Sequence[int]: ...
    def __getitem__(self, n: int | slice) -> int | Sequence[int]:
        if isinstance(n, slice):
            return [self[i] for i in range(*n.indices(len(self)))]
        if not 0 <= n <= self._last:
            raise IndexError(n)
        counts = zipf_counts(n, len(self._tokens), self._alpha)
        return sum(c * t for c, t in zip(counts, self._tokens, strict=True))


class FrequentWords(Task):
    param_specs: ClassVar[tuple[ParamSpec, ...]] = (
        number_param(
            "alpha", "exponent of the Zipf distribution of word counts (zeta needs > 1)", 1.01, 10
        ),
        int_param(
            "num_answers",
            "how many words to name: the most frequent after the filler token",
            1,
            MAX_ANSWERS,
        ),
        int_param(
            "vocab_size",
            "distinct made-up words, the filler token included; 0: one per 50 tokens of the "
            "length after the answer tokens, as RULER",
            0,
            MAX_VOCAB,
        ),
        int_param("word_letters", "letters per made-up word", 1, MAX_LETTERS),
    )

    def check_params(self, params: Mapping[str, Any]) -> None:
        answers, vocab = int(params["num_answers"]), int(params["vocab_size"])
        letters = int(params["word_letters"])
        if vocab and answers + 1 >= vocab:
            raise UserInputError(
                f"{self.name}.num_answers ({answers}) must be smaller than vocab_size ({vocab}) "
                "minus one (the filler token takes a slot)"
            )
        if 26**letters < vocab:
            raise UserInputError(
                f"{self.name} needs vocab_size = {vocab} distinct words, but word_letters="
                f"{letters} gives only {26**letters}: raise {self.name}.word_letters or "
                "lower vocab_size"
            )

    def vocab_size(self, length: int) -> int:
        """Distinct words at `length`, the filler token included."""
        size = int(self.params["vocab_size"])
        return size or max(2, (length - self.answer_tokens(length)) // TOKENS_PER_VOCAB_WORD)

    def build(self, rng: random.Random, budget: Budget, tokenizer: Tokenizer, index: int) -> Draft:
        p = self.params
        alpha, k = float(p["alpha"]), int(p["num_answers"])
        letters = int(p["word_letters"])
        size = self.vocab_size(budget.length)
        if 26**letters < size - 1:
            raise UserInputError(
                f"{self.name} needs {size - 1} distinct words at {budget.length} tokens, but "
                f"word_letters={letters} gives only {26**letters}: raise "
                f"{self.name}.word_letters or set a smaller vocab_size"
            )
        if size < k + 2:
            raise UserInputError(
                f"a length of {budget.length} tokens is too short for {self.name}: its "
                f"{size} words cannot hold the filler and {k} answers and one more word"
            )
        vocab = [NOISE_TOKEN, *distinct(lambda: _coded_word(rng, letters), size - 1, "words")]
        preamble = (
            "Below is a text written in made-up words. Count how often each word occurs. "
            f'The text is padded with the filler "{NOISE_TOKEN}": it is not a word, leave it '
            "out of the count.\n\n"
        )
        many = number_word(k)
        question = (
            f"\n\nWhich {many} words occur most often in the text above, apart from the "
            f'filler "{NOISE_TOKEN}"? Name them from the most to the least frequent.'
        )
        prefix = f"Answer: the {many} most frequent words of the text are"
        budget, prefix_tokens = reserve_answer_prefix(budget, prefix, tokenizer)
        fixed = tokenizer.count(preamble + question)
        word_tokens = piece_counts(tokenizer).counts([" " + w for w in vocab], remember=False)
        cost = _ZipfCost(word_tokens, alpha, max(64, 2 * budget.target))
        texts: dict[tuple[int, str], list[str]] = {}
        shuffle_seed = rng.getrandbits(64)

        def build(n: int, padding: str) -> str:
            counts = zipf_counts(n, size, alpha)
            counts[0] += padding.count(NOISE_TOKEN)
            words = [w for w, c in zip(vocab, counts, strict=True) for _ in range(c)]
            random.Random(seed_from(shuffle_seed, n, counts[0])).shuffle(words)
            texts[n, padding] = words
            return preamble + " ".join(words) + question

        def pad(n: int, room: int) -> tuple[str, int]:
            # One more unit of scale can add a dozen tokens at once (several counts step
            # up together); a few more filler tokens, mixed in, fill the gap exactly.
            return longest_fitting(lambda j: f" {NOISE_TOKEN}" * j, room, room, tokenizer)

        fitted = fit_to_budget(build, cost, fixed, budget, tokenizer, tail=pad)
        counts = zipf_counts(fitted.units, size, alpha)
        if counts[k] == 0 or (k + 1 < size and counts[k] == counts[k + 1]):
            raise UserInputError(
                f"{self.name} at {budget.length} tokens has a tie among its most frequent "
                f"words; use a larger length or another alpha"
            )
        used = texts[fitted.units, fitted.tail]
        return Draft(
            preamble=preamble,
            context=" ".join(used),
            question=question,
            gold=tuple(vocab[1 : k + 1]),
            tokens=fitted.tokens,
            metadata={
                "candidates": sorted(set(used)),
                "zipf_scale": fitted.units,
                "filler_padding": fitted.tail.count(NOISE_TOKEN),
                "vocab_size": size,
                "noise_token": NOISE_TOKEN,
            },
            answer_prefix=prefix,
            prefix_tokens=prefix_tokens,
        )


def aggregation_tasks() -> list[Task]:
    cwe: dict[str, Any] = {
        "num_common": 10,
        "common_freq": 30,
        "rare_freq": 3,
        "short_below": SHORT_BELOW,
    }
    fwe: dict[str, Any] = {"alpha": 2.0, "num_answers": 3, "vocab_size": 0, "word_letters": 6}
    # Their answer prefixes name the count; each example carries its own (Draft).
    return [
        CommonWords(
            "cwe",
            "ten words repeated among many rarer ones, after a solved example; name the ten "
            "(x30 and x3 from 4K, x6 and x1 below)",
            120,
            "",
            cwe,
        ),
        FrequentWords(
            "fwe",
            "made-up words with Zipf counts (alpha 2) behind a filler token; name the three "
            "most frequent words after it",
            50,
            "",
            fwe,
        ),
    ]
