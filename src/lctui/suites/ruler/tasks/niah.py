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

from lctui.core.hashing import seed_from, stable_hash
from lctui.core.protocols import Tokenizer
from lctui.core.types import ParamSpec
from lctui.tasks.base import UUID_PATTERN, Draft, Task, reserve_answer_prefix
from lctui.tasks.budget import Budget
from lctui.tasks.corpora import adjectives, nouns
from lctui.tasks.haystack import (
    Needle,
    Pieces,
    WholeUnits,
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


# RULER's fill (its niah.py `incremental`): the units an overflowing example steps back by,
# 500 words of prose, 25 filler lines or distractor needles, 5 of them below 4K tokens.
RULER_STEP_WORDS = 500
RULER_STEP_LINES = 25
RULER_STEP_SHORT = 5
RULER_SHORT = 4096
# Filler sentences in one unit: RULER's filler line is five short sentences (24 SmolLM2
# tokens); three of ours are about as long (28).
NOISE_LINE = 3
# The count of units RULER's fill found on a seed's reference example, by its identity:
# every example of the seed starts from it, so it is searched once.
_STARTS: dict[tuple[str, Budget], int] = {}


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
        choice_param(
            "fill",
            "exact (the haystack fills the length to within 0.5 %) or ruler (whole units "
            "as RULER fills them: the count that fits one reference example of the seed, "
            "stepped back by 500 words of prose or 25 filler or needle units, 5 below 4K, "
            "where an example overflows; such examples land up to one step short)",
            "exact",
            "ruler",
        ),
    )
    # Examples stored before `fill` existed keep their ids while it is "exact".
    later_params: ClassVar[dict[str, Any]] = {"fill": "exact"}

    def reads_prose(self) -> bool:
        return bool(self.params["haystack"] == "essay")

    def build_version(self, length: int) -> int:
        # 2: filler and distractor haystacks end on a whole sentence (the last one was
        # cut to fill the budget, "... is 266"); prose examples are built as before.
        return 1 if self.params["haystack"] == "essay" else 2

    def build(self, rng: random.Random, budget: Budget, tokenizer: Tokenizer, index: int) -> Draft:
        p = self.params
        whole = budget  # before the answer prefix's reserve, which differs per example
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
        units = self._whole_units(whole, tokenizer, index) if p["fill"] == "ruler" else None
        draft = needle_draft(
            make_pieces, needles, preamble, question, gold, budget, tokenizer, metadata, units
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

    def _whole_units(self, budget: Budget, tokenizer: Tokenizer, index: int) -> WholeUnits:
        """RULER's fill: its step, and the count searched on the seed's reference example
        (index -1 never names an example: RULER searches on a draw of its own too)."""
        haystack = self.params["haystack"]
        if haystack == "essay":
            step, per_unit = RULER_STEP_WORDS, 1
        else:
            step = RULER_STEP_LINES if budget.length >= RULER_SHORT else RULER_STEP_SHORT
            per_unit = NOISE_LINE if haystack == "noise" else 1
        if index < 0:
            return WholeUnits(step, per_unit)
        identity = (*self._identity(budget.length, budget.seed, -1, tokenizer.name), "ruler")
        key = (stable_hash(*identity), budget)
        if key not in _STARTS:
            reference = self.build(random.Random(seed_from(*identity)), budget, tokenizer, -1)
            _STARTS[key] = int(reference.metadata["fill_units"])
        return WholeUnits(step, per_unit, _STARTS[key])

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
        "fill": "exact",
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
