"""Aggregation tasks (RULER's cwe and fwe): find the most frequent words of a long list.

cwe: a numbered list where ten common words appear many times and the rest a few
times each; fwe: a text of made-up words drawn from a Zipf distribution. The length
of the list is fitted to the budget with counts of its pieces (numbers and words).
"""

from __future__ import annotations

import random
import string
from collections import Counter
from collections.abc import Mapping
from typing import Any, ClassVar

from lctui.core.errors import UserInputError
from lctui.core.hashing import seed_from
from lctui.core.protocols import Tokenizer
from lctui.core.types import ParamSpec
from lctui.tasks.base import Draft, Task
from lctui.tasks.budget import Budget, fit_to_budget, piece_counts, prefix_sums
from lctui.tasks.corpora import list_words
from lctui.tasks.params import int_param, number_param
from lctui.tasks.sampling import distinct

_ITEM_TOKENS = 4  # a rough size of " 123. word", only for scaling frequencies down
# Bounds that keep a list buildable: cwe's word pool holds 2 x num_common + 12 words of
# the word list, and its rare items (pool words x rare_freq) are counted one by one.
MAX_COMMON = 1000
MAX_COMMON_FREQ = 10_000
MAX_RARE_FREQ = 100
MAX_ANSWERS = 100
MAX_VOCAB = 100_000
MAX_LETTERS = 20


def _numbered(words: list[str]) -> str:
    return " ".join(f"{i}. {w}" for i, w in enumerate(words, 1))


class CommonWords(Task):
    param_specs: ClassVar[tuple[ParamSpec, ...]] = (
        int_param("num_common", "words that appear most often (the answer)", 1, MAX_COMMON),
        int_param(
            "common_freq",
            "occurrences of each common word (scaled down for short budgets)",
            2,
            MAX_COMMON_FREQ,
        ),
        int_param("rare_freq", "occurrences of each other word", 1, MAX_RARE_FREQ),
    )

    def check_params(self, params: Mapping[str, Any]) -> None:
        common, rare = int(params["common_freq"]), int(params["rare_freq"])
        if common <= rare:
            raise UserInputError(
                f"{self.name}.common_freq ({common}) must be larger than rare_freq ({rare}): "
                "the common words must occur more often than the others"
            )

    def build(self, rng: random.Random, budget: Budget, tokenizer: Tokenizer, index: int) -> Draft:
        p = self.params
        num_common, rare_freq = int(p["num_common"]), int(p["rare_freq"])
        pool_size = min(len(list_words()), 12 + 2 * num_common + budget.target // 8)
        vocab = rng.sample(list_words(), pool_size)
        demo_common, demo_rare = vocab[:num_common], vocab[num_common : num_common + 12]
        pool = vocab[num_common + 12 :]
        common, rare = pool[:num_common], pool[num_common:]
        demo_words = demo_common * 3 + demo_rare
        random.Random(seed_from("demo", index)).shuffle(demo_words)
        preamble = (
            "Below is a numbered list of words. Some words occur far more often than the "
            f"others. First a short solved example:\n\n{_numbered(demo_words)}\n"
            f"Question: {self._ask(num_common)}\nAnswer: {', '.join(demo_common)}\n\n"
            "Now the real list:\n\n"
        )
        question = "\n\n" + self._ask(num_common)
        fixed_text = preamble + question
        fixed = tokenizer.count(fixed_text)
        room = budget.target - fixed
        # Keep the common words under half of the list so the rare ones still matter.
        common_freq = min(int(p["common_freq"]), room // (2 * num_common * _ITEM_TOKENS))
        if common_freq <= rare_freq:
            raise UserInputError(
                f"a length of {budget.length} tokens is too short for {self.name}: the common "
                f"words could not appear more often than the others"
            )
        counts = piece_counts(tokenizer)
        base = num_common * common_freq
        fixed += sum(counts.counts([" " + w for w in common])) * common_freq
        fixed += sum(counts.counts([f" {i}." for i in range(1, base + 1)]))
        # Units are single rare items, so the last rare word may appear fewer times:
        # a word fine enough to land within the tolerance at any length.
        rare_items = [w for w in rare for _ in range(rare_freq)]
        numbers = counts.counts([f" {i}." for i in range(base + 1, base + len(rare_items) + 1)])
        words_cost = counts.counts([" " + w for w in rare_items])
        per_item = [a + b for a, b in zip(words_cost, numbers, strict=True)]
        lists: dict[int, list[str]] = {}

        def build(n: int, _tail: str) -> str:
            words = common * common_freq + rare_items[:n]
            random.Random(seed_from(index, n, common_freq)).shuffle(words)
            lists[n] = words
            return preamble + _numbered(words) + question

        fitted = fit_to_budget(build, prefix_sums(per_item), fixed, budget, tokenizer)
        words = lists[fitted.units]
        return Draft(
            preamble=preamble,
            context=_numbered(words),
            question=question,
            gold=tuple(common),
            tokens=fitted.tokens,
            params={**p, "common_freq": common_freq},
            metadata={"candidates": sorted(set(words))},
        )

    @staticmethod
    def _ask(num_common: int) -> str:
        return f"Which {num_common} words occur most often in the list? List all {num_common}."


def _coded_word(rng: random.Random, letters: int) -> str:
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(letters))


class FrequentWords(Task):
    param_specs: ClassVar[tuple[ParamSpec, ...]] = (
        number_param("alpha", "exponent of the Zipf distribution of word frequencies", 0.1, 10),
        int_param("num_answers", "how many of the most frequent words to name", 1, MAX_ANSWERS),
        int_param("vocab_size", "distinct made-up words", 2, MAX_VOCAB),
        int_param("word_letters", "letters per made-up word", 1, MAX_LETTERS),
    )

    def check_params(self, params: Mapping[str, Any]) -> None:
        answers, vocab = int(params["num_answers"]), int(params["vocab_size"])
        letters = int(params["word_letters"])
        if answers >= vocab:
            raise UserInputError(
                f"{self.name}.num_answers ({answers}) must be smaller than vocab_size ({vocab})"
            )
        if 26**letters < vocab:
            raise UserInputError(
                f"{self.name} needs vocab_size = {vocab} distinct words, but word_letters="
                f"{letters} gives only {26**letters}: raise {self.name}.word_letters or "
                "lower vocab_size"
            )

    def build(self, rng: random.Random, budget: Budget, tokenizer: Tokenizer, index: int) -> Draft:
        p = self.params
        alpha, k = float(p["alpha"]), int(p["num_answers"])
        letters = int(p["word_letters"])
        vocab = distinct(lambda: _coded_word(rng, letters), int(p["vocab_size"]), "words")
        weights = [1.0 / (rank**alpha) for rank in range(1, len(vocab) + 1)]
        preamble = "Below is a text written in made-up words. Count how often each word occurs.\n\n"
        question = (
            f"\n\nWhich {k} words occur most often in the text above? "
            f"Name them from the most to the least frequent."
        )
        fixed = tokenizer.count(preamble + question)
        counts = piece_counts(tokenizer)
        words = rng.choices(vocab, weights=weights, k=max(64, budget.target))
        prefix = prefix_sums(counts.counts([" " + w for w in words]))

        def build(n: int, _tail: str) -> str:
            return preamble + " ".join(words[:n]) + question

        fitted = fit_to_budget(build, prefix, fixed, budget, tokenizer)
        used = words[: fitted.units]
        ranking = Counter(used).most_common(k + 1)
        if len(ranking) <= k or ranking[k - 1][1] == ranking[k][1]:
            raise UserInputError(
                f"{self.name} at {budget.length} tokens has a tie among its most frequent "
                f"words; use a larger length or another alpha"
            )
        return Draft(
            preamble=preamble,
            context=" ".join(used),
            question=question,
            gold=tuple(word for word, _ in ranking[:k]),
            tokens=fitted.tokens,
            metadata={"candidates": sorted(set(used))},
        )


def aggregation_tasks() -> list[Task]:
    cwe: dict[str, Any] = {"num_common": 10, "common_freq": 30, "rare_freq": 3}
    fwe: dict[str, Any] = {"alpha": 2.0, "num_answers": 3, "vocab_size": 400, "word_letters": 6}
    return [
        CommonWords(
            "cwe", "ten words repeated among many rarer ones; name the ten", 120, "Answer:", cwe
        ),
        FrequentWords(
            "fwe", "made-up words with Zipf frequencies; name the top three", 50, "Answer:", fwe
        ),
    ]
