"""Variable tracking (RULER's vt), in our own wording.

A chain of assignments passes a number from one upper-case variable to the next,
spread through filler text; the model must name every variable that ends up
holding the number. Other chains with other numbers are distractors. A whole solved
example of the same task (about 500 tokens, 3-letter names, its own filler and value,
as RULER's demonstration) comes first; the answer prefix names the value and how many
variables hold it.
"""

from __future__ import annotations

import itertools
import random
import string
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from lctui.core.errors import UserInputError
from lctui.core.protocols import Tokenizer
from lctui.core.types import ParamSpec
from lctui.tasks.base import Draft, Task, reserve_answer_prefix
from lctui.tasks.budget import Budget
from lctui.tasks.haystack import Needle, needle_draft, noise_haystack
from lctui.tasks.params import int_param
from lctui.tasks.sampling import distinct

# Bounds that keep a build linear and small: at most 100 x 1001 assignments (about
# 1.3M tokens), each needing a distinct variable name.
MAX_HOPS = 1000
MAX_CHAINS = 100
MAX_NAME_LENGTH = 12
MAX_DIGITS = 20


# RULER's demonstration: a whole solved example of the task, built to this many tokens
# whatever the length, with 3-letter names and at most 10 hops.
DEMO_TOKENS = 500
DEMO_NAME_LENGTH = 3
DEMO_MAX_HOPS = 10


def _names(
    rng: random.Random, count: int, length: int, taken: frozenset[str] = frozenset()
) -> list[str]:
    def draw() -> str:
        return "".join(rng.choice(string.ascii_uppercase) for _ in range(length))

    if not taken:
        return distinct(draw, count, "variable names")
    # Demonstration names of the main names' length must not repeat one of them.
    drawn = distinct(draw, count + len(taken), "variable names")
    return [name for name in drawn if name not in taken][:count]


def names_needed(chains: int, hops: int) -> int:
    """Distinct names the asked and distracting chains take."""
    return chains * (hops + 1)


def _chain(names: list[str], value: str) -> list[str]:
    first = f"Set {names[0]} to {value}."
    return [first] + [f"Set {b} to the value of {a}." for a, b in itertools.pairwise(names)]


def _question(value: str) -> str:
    return f"Which variables end up holding the value {value}? Name every one of them."


def answer_prefix(count: int, value: str) -> str:
    """The start of the answer: how many variables hold the value, and the value."""
    return f"Answer: the {count} variables that end up holding {value} are"


_INSTRUCTION = (
    "In the text below, variables are set to numbers, and some are set to the value of "
    "another variable."
)


def _chain_needles(chains: list[list[str]], values: list[str], rng: random.Random) -> list[Needle]:
    """The assignments of every chain at sorted random depths; chain 0 is the asked one."""
    needles: list[Needle] = []
    for c, (chain_names, value) in enumerate(zip(chains, values, strict=True)):
        statements = _chain(chain_names, value)
        depths = sorted(rng.uniform(0, 100) for _ in statements)
        for j, (statement, depth) in enumerate(zip(statements, depths, strict=True)):
            kind = "needle" if c == 0 else "distractor"
            label = "asked" if c == 0 and j == 0 else f"chain{c}"
            marks = (chain_names[j],) if c == 0 else ()
            needles.append(Needle(statement, depth, kind, label, marks))
    return needles


def demonstration(
    rng: random.Random, hops: int, value: str, taken: frozenset[str], tokenizer: Tokenizer
) -> tuple[str, int]:
    """A whole solved example of the task, about DEMO_TOKENS tokens, drawn for one example
    (the instruction, its own filler with a chain of 3-letter names holding `value`, the
    question, the answer prefix and the answer), and its token count."""
    names = _names(rng, min(DEMO_MAX_HOPS, hops) + 1, DEMO_NAME_LENGTH, taken)
    question = f"\n\n{_question(value)}"
    answer = f"\n{answer_prefix(len(names), value)} {', '.join(names)}."
    draft = needle_draft(
        lambda words: noise_haystack(rng, words),
        _chain_needles([names], [value], rng),
        _INSTRUCTION + "\n\n",
        question + answer,
        tuple(names),
        Budget(length=DEMO_TOKENS, reserve=0),
        tokenizer,
        {},
    )
    text = _INSTRUCTION + "\n\n" + draft.context + question + answer
    return text, tokenizer.count(text)


def demo_names_needed(hops: int, name_length: int) -> int:
    """Names the solved example takes from the main names' pool (when they are as long)."""
    return min(DEMO_MAX_HOPS, hops) + 1 if name_length == DEMO_NAME_LENGTH else 0


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
        demo = demo_names_needed(hops, length)
        if needed + demo > names:
            shared = f" + {demo} (the solved example's)" if demo else ""
            raise UserInputError(
                f"{self.name} needs num_chains x (num_hops + 1){shared} = {needed + demo} "
                f"distinct variable names, but name_length={length} gives only {names}: "
                f"raise {self.name}.name_length or lower num_hops/num_chains"
            )
        numbers = 9 * 10 ** (digits - 1)
        if chains + 1 > numbers:
            raise UserInputError(
                f"{self.name} needs num_chains + 1 = {chains + 1} distinct numbers, but "
                f"value_digits={digits} gives only {numbers}: raise {self.name}.value_digits "
                "or lower num_chains"
            )

    def build_version(self, length: int) -> int:
        # 2: the filler ends on a whole sentence, as RULER's (the last one was cut to
        # fill the budget).
        return 2

    def build(self, rng: random.Random, budget: Budget, tokenizer: Tokenizer, index: int) -> Draft:
        p = self.params
        hops, length, digits = int(p["num_hops"]), int(p["name_length"]), int(p["value_digits"])
        chains = max(1, int(p["num_chains"]))
        names = _names(rng, names_needed(chains, hops), length)
        values = distinct(
            lambda: str(rng.randrange(10 ** (digits - 1), 10**digits)), chains + 1, "numbers"
        )
        demo_value, values = values[0], values[1:]
        taken = frozenset(names) if length == DEMO_NAME_LENGTH else frozenset()
        demo, demo_tokens = demonstration(rng, hops, demo_value, taken, tokenizer)
        preamble = f"First, a solved example.\n\n{demo}\n\nNow the real task.\n\n{_INSTRUCTION}\n\n"
        chain_names = [names[c * (hops + 1) : (c + 1) * (hops + 1)] for c in range(chains)]
        needles = _chain_needles(chain_names, values, rng)
        gold = tuple(chain_names[0])
        question = "\n\n" + _question(values[0])
        prefix = answer_prefix(len(gold), values[0])
        budget, prefix_tokens = reserve_answer_prefix(budget, prefix, tokenizer)
        metadata = {
            "value_pattern": rf"\b[A-Z]{{{length}}}\b",
            "value": values[0],
            "demo_tokens": demo_tokens,
        }
        draft = needle_draft(
            lambda words: noise_haystack(rng, words),
            needles,
            preamble,
            question,
            gold,
            budget,
            tokenizer,
            metadata,
        )
        return replace(draft, answer_prefix=prefix, prefix_tokens=prefix_tokens)


def tracking_tasks() -> list[Task]:
    params: dict[str, Any] = {"num_chains": 1, "num_hops": 4, "name_length": 5, "value_digits": 5}
    return [
        VariableTracking(
            "vt",
            "name every variable a number passes through (4 hops in filler), after a "
            "solved example of about 500 tokens",
            30,
            "",  # each example names its value and count in its own answer prefix
            params,
        )
    ]
