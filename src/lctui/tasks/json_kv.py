"""HELMET's JSON KV retrieval: a JSON object of UUID keys and values; ask for one value.

The number of pairs sets the length; the asked pair sits at a recorded depth.
"""

from __future__ import annotations

import json
import random
from typing import Any, ClassVar

from lctui.core.protocols import Tokenizer
from lctui.core.types import ParamSpec, Span
from lctui.tasks.base import UUID_PATTERN, Draft, Task
from lctui.tasks.budget import (
    Budget,
    fit_to_budget,
    longest_fitting,
    piece_counts,
    prefix_sums,
)
from lctui.tasks.niah import DEFAULT_DEPTHS, random_uuid, random_value
from lctui.tasks.params import numbers_param


def _pair(key: str, value: str) -> str:
    return f'"{key}": "{value}"'  # keys and values are hex and dashes: nothing to escape


class JsonKV(Task):
    suite: ClassVar[str] = "helmet"
    metric: ClassVar[str] = "subem"
    param_specs: ClassVar[tuple[ParamSpec, ...]] = (
        numbers_param(
            "depths",
            "depth in percent of the asked pair; example i uses depths[i % len(depths)]",
            0,
            100,
        ),
    )

    def build(self, rng: random.Random, budget: Budget, tokenizer: Tokenizer, index: int) -> Draft:
        depths = list(self.params["depths"]) or list(DEFAULT_DEPTHS)
        depth = float(depths[index % len(depths)])
        key, value = random_value(rng, "uuid"), random_value(rng, "uuid")
        preamble = (
            "The JSON object below maps keys to values. Find the value of the key you "
            "are asked about.\n\nJSON data:\n"
        )
        question = f'\n\nWhat value does the key "{key}" have in the JSON object above?'
        asked = _pair(key, value)
        fixed = tokenizer.count(preamble + "{" + asked + "}" + question)
        # Enough pairs for the budget: a pair takes 45 to 60 tokens in the tokenizers we
        # know; take more if a tokenizer packs UUIDs tighter.
        pairs: list[str] = []
        while len(pairs) * 40 < budget.target + 200:
            pairs.extend(_pair(random_uuid(rng), random_uuid(rng)) for _ in range(256))
        counts = piece_counts(tokenizer).counts([", " + p for p in pairs], remember=False)
        built: dict[tuple[int, str], tuple[str, int]] = {}

        def assemble(n: int, tail: str) -> str:
            at = round(depth / 100.0 * n)
            items = [*pairs[:at], asked, *pairs[at:n]] + ([tail] if tail else [])
            start = len("{" + ", ".join(items[:at])) + (2 if at else 0)
            built[n, tail] = ("{" + ", ".join(items) + "}", start)
            return preamble + built[n, tail][0] + question

        # Pairs are coarse (about 50 tokens): the gap under the target is filled with one
        # shorter pair, its key and then its value cut to the room left.
        filler_key, filler_value = random_value(rng, "uuid"), random_value(rng, "uuid")

        def filler(k: int) -> str:
            return _pair(filler_key[: min(k, 36)], filler_value[: max(0, k - 36)])

        def partial(n: int, room: int) -> tuple[str, int]:
            text, count = longest_fitting(filler, 72, room - 1, tokenizer)  # 1 for ", "
            return text, count + 1

        fitted = fit_to_budget(
            assemble, prefix_sums(counts), fixed, budget, tokenizer, tail=partial
        )
        context, start = built[fitted.units, fitted.tail]
        value_at = start + len(asked) - len(json.dumps(value)) + 1
        spans = (
            Span(start, start + len(asked), "needle", "asked"),
            Span(value_at, value_at + len(value), "gold", "asked"),
        )
        return Draft(
            preamble=preamble,
            context=context,
            question=question,
            gold=(value,),
            tokens=fitted.tokens,
            depth=round(100.0 * start / len(context), 2),
            spans=spans,
            metadata={"value_pattern": UUID_PATTERN, "key": key},
        )


def json_kv_tasks() -> list[Task]:
    params: dict[str, Any] = {"depths": list(DEFAULT_DEPTHS)}
    return [
        JsonKV(
            "json_kv", "find one value among UUID key-value pairs in JSON", 100, "Answer:", params
        )
    ]
