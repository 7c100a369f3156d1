"""Variable tracking (RULER's vt), in our own wording.

A chain of assignments passes a number from one upper-case variable to the next,
spread through filler text; the model must name every variable that ends up
holding the number. Other chains with other numbers are distractors. One short
worked example of the same task comes first.
"""

from __future__ import annotations

import itertools
import random
import string
from collections.abc import Mapping
from typing import Any, ClassVar

from lctui.core.errors import UserInputError
from lctui.core.protocols import Tokenizer
from lctui.core.types import ParamSpec
from lctui.tasks.base import Draft, Task
from lctui.tasks.budget import Budget
from lctui.tasks.haystack import Needle, needle_draft, noise_haystack
from lctui.tasks.params import int_param
from lctui.tasks.sampling import distinct

# Bounds that keep a build linear and small: at most 101 x 1001 assignments (about
# 1.3M tokens with the worked example), each needing a distinct variable name.
MAX_HOPS = 1000
MAX_CHAINS = 100
MAX_NAME_LENGTH = 12
MAX_DIGITS = 20


def _names(rng: random.Random, count: int, length: int) -> list[str]:
    def draw() -> str:
        return "".join(rng.choice(string.ascii_uppercase) for _ in range(length))

    return distinct(draw, count, "variable names")


def names_needed(chains: int, hops: int) -> int:
    """Distinct names a build draws: every chain's and the worked example's."""
    return (chains + 1) * (hops + 1)


def _chain(names: list[str], value: str) -> list[str]:
    first = f"Set {names[0]} to {value}."
    return [first] + [f"Set {b} to the value of {a}." for a, b in itertools.pairwise(names)]


def _question(value: str) -> str:
    return f"Which variables end up holding the value {value}? Name every one of them."


class VariableTracking(Task):
    param_specs: ClassVar[tuple[ParamSpec, ...]] = (
        int_param(
            "num_chains",
            "assignment chains in the context (one asked, the rest distract)",
            1,
            MAX_CHAINS,
        ),
        int_param("num_hops", "assignments after the first in each chain", 1, MAX_HOPS),
        int_param("name_length", "letters per variable name", 1, MAX_NAME_LENGTH),
        int_param("value_digits", "digits of the tracked number", 1, MAX_DIGITS),
    )

    def check_params(self, params: Mapping[str, Any]) -> None:
        chains, hops = int(params["num_chains"]), int(params["num_hops"])
        length, digits = int(params["name_length"]), int(params["value_digits"])
        needed, names = names_needed(chains, hops), 26**length
        if needed > names:
            raise UserInputError(
                f"{self.name} needs (num_chains + 1) x (num_hops + 1) = {needed} distinct "
                f"variable names, but name_length={length} gives only {names}: raise "
                f"{self.name}.name_length or lower num_hops/num_chains"
            )
        numbers = 9 * 10 ** (digits - 1)
        if chains + 1 > numbers:
            raise UserInputError(
                f"{self.name} needs num_chains + 1 = {chains + 1} distinct numbers, but "
                f"value_digits={digits} gives only {numbers}: raise {self.name}.value_digits "
                "or lower num_chains"
            )

    def build(self, rng: random.Random, budget: Budget, tokenizer: Tokenizer, index: int) -> Draft:
        p = self.params
        hops, length, digits = int(p["num_hops"]), int(p["name_length"]), int(p["value_digits"])
        chains = max(1, int(p["num_chains"]))
        names = _names(rng, names_needed(chains, hops), length)
        demo_names, names = names[: hops + 1], names[hops + 1 :]
        values = distinct(
            lambda: str(rng.randrange(10 ** (digits - 1), 10**digits)), chains + 1, "numbers"
        )
        demo_value, values = values[0], values[1:]
        demo = " ".join(
            ["The river keeps moving past the old mill.", *_chain(demo_names, demo_value)]
        )
        preamble = (
            "In the text below, variables are set to numbers, and some are set to the value "
            "of another variable. First a short solved example:\n\n"
            f"{demo}\nQuestion: {_question(demo_value)}\n"
            f"Answer: {', '.join(demo_names)}\n\nNow the real text:\n\n"
        )
        needles: list[Needle] = []
        gold: tuple[str, ...] = ()
        for c in range(chains):
            chain_names = names[c * (hops + 1) : (c + 1) * (hops + 1)]
            statements = _chain(chain_names, values[c])
            depths = sorted(rng.uniform(0, 100) for _ in statements)
            for j, (statement, depth) in enumerate(zip(statements, depths, strict=True)):
                kind = "needle" if c == 0 else "distractor"
                label = "asked" if c == 0 and j == 0 else f"chain{c}"
                marks = (chain_names[j],) if c == 0 else ()
                needles.append(Needle(statement, depth, kind, label, marks))
            if c == 0:
                gold = tuple(chain_names)
        question = "\n\n" + _question(values[0])

        metadata = {"value_pattern": rf"\b[A-Z]{{{length}}}\b", "value": values[0]}
        return needle_draft(
            lambda words: noise_haystack(rng, words),
            needles,
            preamble,
            question,
            gold,
            budget,
            tokenizer,
            metadata,
        )


def tracking_tasks() -> list[Task]:
    params: dict[str, Any] = {"num_chains": 1, "num_hops": 4, "name_length": 5, "value_digits": 5}
    return [
        VariableTracking(
            "vt",
            "name every variable a number passes through (4 hops in filler)",
            30,
            "Answer:",
            params,
        )
    ]
