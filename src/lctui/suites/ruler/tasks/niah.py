"""Needle-in-a-haystack tasks (RULER's niah_* variants), in our own wording.

A needle ties a key (an adjective-noun pair or a UUID) to a secret value (a 7-digit
number or a UUID). Variants differ in the haystack (filler sentences, prose, or a
crowd of distractor needles) and in how many keys, values and queries there are.
Needle depths are drawn as RULER draws them (NeedleTask._depths), with each example's
own seed; the answer prefix names the kind of value and the asked key(s).
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any, ClassVar

from lctui.core.protocols import Tokenizer
from lctui.core.types import ParamSpec
from lctui.tasks.base import UUID_PATTERN, Draft, Task, reserve_answer_prefix
from lctui.tasks.budget import Budget
from lctui.tasks.corpora import adjectives, nouns
from lctui.tasks.haystack import (
    Needle,
    Pieces,
    grid_depths,
    needle_depths,
    needle_draft,
    noise_haystack,
    prose_haystack,
    uniform_depths,
)
from lctui.tasks.params import choice_param, int_param, numbers_param
from lctui.tasks.sampling import distinct

# Upper bounds of the counts: at most 10,000 + 100 x 100 needles (about 300K tokens).
MAX_KEYS = 10_000
MAX_VALUES = 100
MAX_QUERIES = 100
MAX_DIGITS = 20
_VALUE_NOUN = {"number": "number", "uuid": "ID"}


def random_uuid(rng: random.Random) -> str:
    """A version-4 UUID string from `rng` (uuid.uuid4 would not be reproducible)."""
    h = f"{rng.getrandbits(122):031x}"
    variant = "89ab"[int(h[15], 16) & 3]
    return f"{h[:8]}-{h[8:12]}-4{h[12:15]}-{variant}{h[16:19]}-{h[19:31]}"


def random_value(rng: random.Random, kind: str, digits: int = 7) -> str:
    if kind == "uuid":
        return random_uuid(rng)
    return str(rng.randrange(10 ** (digits - 1), 10**digits))


def random_key(rng: random.Random, kind: str) -> str:
    if kind == "uuid":
        return random_uuid(rng)
    return f"{rng.choice(adjectives())}-{rng.choice(nouns())}"


def needle_sentence(key: str, value: str, value_kind: str) -> str:
    return f'The secret {_VALUE_NOUN[value_kind]} tied to "{key}" is {value}.'


def _listing(keys: list[str]) -> str:
    quoted = [f'"{k}"' for k in keys]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


class NeedleTask(Task):
    param_specs: ClassVar[tuple[ParamSpec, ...]] = (
        choice_param(
            "haystack",
            "noise (repeated filler), essay (State of the Union prose) or needles "
            "(distractor needles)",
            "noise",
            "essay",
            "needles",
        ),
        choice_param("key_kind", "word (adjective-noun) or uuid", "word", "uuid"),
        choice_param("value_kind", "number or uuid", "number", "uuid"),
        int_param(
            "num_keys", "keys with needles in the context (the asked ones included)", 1, MAX_KEYS
        ),
        int_param("num_values", "values tied to each asked key", 1, MAX_VALUES),
        int_param("num_queries", "keys asked about at once", 1, MAX_QUERIES),
        numbers_param(
            "depths",
            "depths in percent for the first asked needle, example i at depths[i % "
            "len(depths)]; empty (the default): every needle drawn as RULER does (one of 40 "
            "evenly spaced depths, without replacement, in prose; a uniform position in "
            "filler or needle haystacks)",
            0,
            100,
        ),
        int_param("value_digits", "digits of number values", 1, MAX_DIGITS),
    )

    def reads_prose(self) -> bool:
        return bool(self.params["haystack"] == "essay")

    def build_version(self, length: int) -> int:
        # 2: filler and distractor haystacks end on a whole sentence (the last one was
        # cut to fill the budget, "... is 266"); prose examples are built as before.
        return 1 if self.params["haystack"] == "essay" else 2

    def build(self, rng: random.Random, budget: Budget, tokenizer: Tokenizer, index: int) -> Draft:
        p = self.params
        key_kind, value_kind = str(p["key_kind"]), str(p["value_kind"])
        num_values = int(p["num_values"])
        num_keys = max(int(p["num_keys"]), int(p["num_queries"]))
        keys = distinct(lambda: random_key(rng, key_kind), num_keys, "keys")
        queried = keys[: int(p["num_queries"])]
        asked = set(queried)  # membership in a set: linear in the number of keys
        values = {
            k: [
                random_value(rng, value_kind, int(p["value_digits"]))
                for _ in range(num_values if k in asked else 1)
            ]
            for k in keys
        }
        entries = [(k, value) for k in keys for value in values[k]]
        depths = self._depths(rng, len(entries), index)
        needles = []
        for i, ((k, value), depth) in enumerate(zip(entries, depths, strict=True)):
            # Entry 0 is the first value of the first asked key: the example's depth.
            kind = "needle" if k in asked else "distractor"
            sentence = needle_sentence(k, value, value_kind)
            marks = (value,) if k in asked else ()
            needles.append(Needle(sentence, depth, kind, "asked" if i == 0 else k, marks))
        noun = _VALUE_NOUN[value_kind]
        preamble = (
            f"Below is a long text. Hidden in it are a few sentences, each tying a key to a "
            f"secret {noun}. Read all of it: questions about those {noun}s follow.\n\n"
        )
        question = self._question(queried, noun, num_values)
        gold = tuple(v for k in queried for v in values[k])
        prefix = answer_prefix(queried, noun, len(gold))
        budget, prefix_tokens = reserve_answer_prefix(budget, prefix, tokenizer)

        def make_pieces(words: int) -> Pieces:
            if p["haystack"] == "noise":
                return noise_haystack(rng, words)
            if p["haystack"] == "needles":
                return self._distractors(rng, words, set(keys), key_kind, value_kind)
            return prose_haystack(rng, words)

        pattern = UUID_PATTERN if value_kind == "uuid" else rf"\b\d{{{int(p['value_digits'])}}}\b"
        metadata = {"value_pattern": pattern, "keys": queried}
        draft = needle_draft(
            make_pieces, needles, preamble, question, gold, budget, tokenizer, metadata
        )
        placed = {
            "depth_scheme": self._scheme(),
            "needle_depths": needle_depths(draft.spans, draft.context, "needle"),
            "other_needle_depths": needle_depths(draft.spans, draft.context, "distractor"),
        }
        return replace(
            draft,
            metadata={**draft.metadata, **placed},
            answer_prefix=prefix,
            prefix_tokens=prefix_tokens,
        )

    def _scheme(self) -> str:
        if self.params["depths"]:
            return "list"
        return "grid40" if self.params["haystack"] == "essay" else "uniform"

    def _depths(self, rng: random.Random, count: int, index: int) -> list[float]:
        """Depths of the example's needles, drawn with its own rng (RULER draws from one
        stream for the whole run; per example, every example stands on its own)."""
        if self.params["haystack"] == "essay":
            depths = grid_depths(rng, count)
        else:
            depths = uniform_depths(rng, count)
        sweep = list(self.params["depths"])
        if sweep:
            depths[0] = float(sweep[index % len(sweep)])
        return depths

    @staticmethod
    def _question(queried: list[str], noun: str, num_values: int) -> str:
        if len(queried) > 1:
            return (
                f"\n\nWhat are the secret {noun}s tied to {_listing(queried)} in the text "
                f"above? Give each of them."
            )
        if num_values > 1:
            return (
                f'\n\nThe text ties several secret {noun}s to "{queried[0]}". What are all of them?'
            )
        return f'\n\nWhat is the secret {noun} tied to "{queried[0]}" in the text above?'

    @staticmethod
    def _distractors(
        rng: random.Random, words: int, taken: set[str], key_kind: str, value_kind: str
    ) -> Pieces:
        pieces: list[str] = []
        count = 0
        while count < words:
            key = random_key(rng, key_kind)
            if key in taken:
                continue
            taken.add(key)
            sentence = needle_sentence(key, random_value(rng, value_kind), value_kind)
            pieces.append(" " + sentence)
            count += sentence.count(" ") + 1
        return Pieces(pieces, recurring=False, cut_last=False)


def answer_prefix(queried: list[str], noun: str, answers: int) -> str:
    """The start of the answer, naming what is asked: the kind of value and the key(s);
    singular when one value is asked, as RULER words it."""
    if answers == 1:
        return f'The secret {noun} tied to "{queried[0]}" is:'
    return f"The secret {noun}s tied to {_listing(queried)} are:"


def _niah(name: str, description: str, **params: Any) -> NeedleTask:
    defaults: dict[str, Any] = {
        "haystack": "essay",
        "key_kind": "word",
        "value_kind": "number",
        "num_keys": 1,
        "num_values": 1,
        "num_queries": 1,
        "depths": [],
        "value_digits": 7,
    }
    defaults.update(params)
    # Each example names its keys in its own answer prefix (Draft.answer_prefix).
    return NeedleTask(name, description, 128, "", defaults)


def needle_tasks() -> list[Task]:
    return [
        _niah("niah_single_1", "one number needle in repeated filler sentences", haystack="noise"),
        _niah("niah_single_2", "one number needle in prose"),
        _niah("niah_single_3", "one UUID needle in prose", value_kind="uuid"),
        _niah("niah_multikey_1", "four needles in prose, one asked", num_keys=4),
        _niah("niah_multikey_2", "one asked needle among distractor needles", haystack="needles"),
        _niah(
            "niah_multikey_3",
            "UUID key and value among distractor UUID needles",
            haystack="needles",
            key_kind="uuid",
            value_kind="uuid",
        ),
        _niah("niah_multivalue", "one key with four values in prose", num_values=4),
        _niah(
            "niah_multiquery", "four keys in prose, all asked at once", num_keys=4, num_queries=4
        ),
    ]
