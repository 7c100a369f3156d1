"""HELMET's JSON KV retrieval, in our own wording: find one value among UUID pairs.

The structure is HELMET's (princeton-nlp/HELMET, data files json_kv/test_k{N}_dep6 and
its loader): a JSON object of random UUID keys and values comes first, then the
instruction, then two solved lookups on separate random pairs (not from the object),
then the key to look up; the answer prefix names the value asked for.

HELMET does not fit the object to the budget: each length has a fixed number of pairs
(HELMET_PAIRS), which with o200k_base fills 66-69 % of the length. So this task does
not fill its budget (`fills_budget = False`); it never exceeds it either: where a
tokenizer packs UUIDs so loosely that the count does not fit, the object gets the most
pairs that fit, and the example records both counts (metadata num_kvs, num_kvs_target).

HELMET runs JSON KV without chat template; lctui renders it like every task (docs/suites.md,
deviations). A chat template chosen per task belongs with HELMET's other categories.
"""

from __future__ import annotations

import itertools
import math
import random
import uuid
from collections.abc import Mapping
from typing import Any, ClassVar

from lctui.core.errors import UserInputError
from lctui.core.protocols import Tokenizer
from lctui.core.types import ParamSpec, Span
from lctui.tasks.base import UUID_PATTERN, Draft, Task
from lctui.tasks.budget import Budget
from lctui.tasks.params import int_param, numbers_param

# The depths examples cycle through by default, 0 to 100 % in steps of 10: lctui's own sweep
# (HELMET's released files fix each example's pair, they declare no sweep).
DEFAULT_DEPTHS = tuple(range(0, 101, 10))
# Pairs per length in HELMET's data files (the file name's k): 4k -> 50 ... 128k -> 1800.
HELMET_PAIRS: dict[int, int] = {
    4096: 50,
    8192: 105,
    16384: 220,
    32768: 440,
    65536: 900,
    131072: 1800,
}
DEMONSTRATIONS = 2  # HELMET's shots for JSON KV
MIN_PAIRS = 2  # the asked pair and at least one other
MAX_PAIRS = 50_000  # about 2.5M o200k tokens, beyond the longest length lctui builds

INSTRUCTION = (
    "Every key of the JSON object above is paired with one value. Reply with the value "
    "paired with the last key below. The two solved lookups before it only show the "
    "format: their keys are not in the object."
)
KEY_LABEL = "Key to look up:"
ANSWER_PREFIX = "Value of this key:"


def helmet_pair_count(length: int) -> int:
    """Pairs in the object at `length`: HELMET's count at its six lengths (4k-128k).

    Between two of them the count is interpolated linearly; below 4k and above 128k it
    is the nearest listed count scaled by the length (the same pairs per token), so
    1k gets 12 pairs and 2k 25.
    """
    points = sorted(HELMET_PAIRS.items())
    if length <= points[0][0]:
        low_length, low_count = points[0]
        return max(MIN_PAIRS, round(low_count * length / low_length))
    for (low_length, low_count), (high_length, high_count) in itertools.pairwise(points):
        if length <= high_length:
            share = (length - low_length) / (high_length - low_length)
            return round(low_count + share * (high_count - low_count))
    high_length, high_count = points[-1]
    return round(high_count * length / high_length)


def random_uuid4(rng: random.Random) -> str:
    """A version-4 UUID string drawn from `rng` (uuid.uuid4 would not be reproducible)."""
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _pair(key: str, value: str) -> str:
    return f'"{key}": "{value}"'  # keys and values are hex and dashes: nothing to escape


def _lookup(key: str, value: str | None = None) -> str:
    asked = f"{KEY_LABEL} {key}"
    return asked if value is None else f"{asked}\n{ANSWER_PREFIX} {value}"


def _distinct_pairs(rng: random.Random, count: int, taken: set[str]) -> list[tuple[str, str]]:
    """`count` random UUID pairs whose keys are new to `taken` (which grows)."""
    pairs: list[tuple[str, str]] = []
    while len(pairs) < count:
        key = random_uuid4(rng)
        if key not in taken:
            taken.add(key)
            pairs.append((key, random_uuid4(rng)))
    return pairs


class JsonKV(Task):
    suite: ClassVar[str] = "helmet"
    metric: ClassVar[str] = "subem"
    fills_budget: ClassVar[bool] = False
    prompt_format: ClassVar[str] = "plain"  # HELMET: use_chat_template False
    param_specs: ClassVar[tuple[ParamSpec, ...]] = (
        numbers_param(
            "depths",
            "depth in percent of the asked pair; example i uses depths[i % len(depths)]",
            0,
            100,
        ),
        int_param(
            "num_pairs",
            "key-value pairs in the object; 0: HELMET's count for the length "
            "(50 at 4k ... 1800 at 128k, interpolated in between)",
            0,
            MAX_PAIRS,
        ),
    )

    def check_params(self, params: Mapping[str, Any]) -> None:
        if params.get("num_pairs") == 1:
            raise UserInputError(
                f"{self.name}.num_pairs must be 0 (HELMET's count for the length) or at least "
                f"{MIN_PAIRS}: the object holds the asked pair and others"
            )

    def build(self, rng: random.Random, budget: Budget, tokenizer: Tokenizer, index: int) -> Draft:
        depths = list(self.params["depths"]) or list(DEFAULT_DEPTHS)
        depth = float(depths[index % len(depths)])
        target = int(self.params["num_pairs"]) or helmet_pair_count(budget.length)
        taken: set[str] = set()
        ((key, value),) = _distinct_pairs(rng, 1, taken)
        others = _distinct_pairs(rng, max(MIN_PAIRS, target) - 1, taken)
        demos = _distinct_pairs(rng, DEMONSTRATIONS, taken)
        asked_text = _lookup(key)
        solved = "\n\n".join(_lookup(k, v) for k, v in demos)
        question = f"\n\n{INSTRUCTION}\n\n{solved}\n\n{asked_text}"
        asked = _pair(key, value)
        fixed = tokenizer.count("{" + asked + "}" + question)
        if fixed > budget.target:
            raise UserInputError(
                f"a length of {budget.length} tokens is too short for this task: its fixed "
                f"parts alone need about {fixed + budget.reserve + budget.overhead} tokens"
            )

        def assemble(n: int) -> tuple[str, int]:
            """The object with n pairs, the asked one at the depth, and where it starts."""
            at = round(depth / 100.0 * (n - 1))
            items = [_pair(k, v) for k, v in others[:at]]
            start = len("{" + ",\n ".join(items)) + (len(",\n ") if items else 0)
            items += [asked, *(_pair(k, v) for k, v in others[at : n - 1])]
            return "{" + ",\n ".join(items) + "}", start

        count = max(MIN_PAIRS, target)
        context, start = assemble(count)
        tokens = tokenizer.count(context + question)
        over = count + 1  # the fewest pairs known not to fit
        while tokens > budget.target:
            # The tokenizer packs UUIDs too loosely for this count: fewer pairs, never over.
            if count == MIN_PAIRS:
                needed = tokens + budget.reserve + budget.overhead
                raise UserInputError(
                    f"a length of {budget.length} tokens is too short for this task with "
                    f"{tokenizer.name}: even {MIN_PAIRS} pairs need about {needed} tokens"
                )
            over = count
            per_pair = max(1.0, (tokens - fixed) / count)
            count = max(MIN_PAIRS, count - max(1, math.ceil((tokens - budget.target) / per_pair)))
            context, start = assemble(count)
            tokens = tokenizer.count(context + question)
        while count + 1 < over:
            # The estimate may have stepped past the most pairs that fit: step back up.
            wider, wider_start = assemble(count + 1)
            wider_tokens = tokenizer.count(wider + question)
            if wider_tokens > budget.target:
                break
            count, context, start, tokens = count + 1, wider, wider_start, wider_tokens
        value_at = start + len(asked) - len(value) - 1
        spans = (
            Span(start, start + len(asked), "needle", "asked"),
            Span(value_at, value_at + len(value), "gold", "asked"),
        )
        return Draft(
            preamble="",
            context=context,
            question=question,
            gold=(value,),
            tokens=tokens,
            depth=round(100.0 * start / len(context), 2),
            spans=spans,
            metadata={
                "value_pattern": UUID_PATTERN,
                "key": key,
                "asked_text": asked_text,
                "num_kvs": count,
                "num_kvs_target": target,
                "asked_index": round(depth / 100.0 * (count - 1)),
                "demos": [[k, v] for k, v in demos],
            },
        )


def json_kv_tasks() -> list[Task]:
    params: dict[str, Any] = {"depths": list(DEFAULT_DEPTHS), "num_pairs": 0}
    return [
        JsonKV(
            "json_kv",
            "find one value among UUID key-value pairs in JSON",
            100,
            ANSWER_PREFIX,
            params,
        )
    ]
