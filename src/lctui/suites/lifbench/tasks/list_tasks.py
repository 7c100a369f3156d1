"""The six List tasks of LIFBench with our own instruction wordings and variable spaces.

Each task has several expressions (our rewordings of one instruction; for the offset
tasks, as in the original, each wording asks in one direction, after or before) and a
declared variable space: the six positions asked at the seed and length (two in the
head, two in the middle, two in the tail; list_context.draw_plan), or for
multi_query_id the five arrays of 2, 4, 6, 8 and 10 positions. Example `index` uses
expression `index % E` and variable sample `(index // E) % V`, so every combination
recurs and stability over expressions and variables can be measured.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from lctui.core.protocols import Tokenizer
from lctui.core.types import ParamSpec
from lctui.suites.lifbench.tasks.list_context import (
    MULTI_SIZES,
    SCENARIO_DESCRIPTION,
    ListLayout,
    build_list,
    list_stream,
)
from lctui.suites.lifbench.tasks.shared import RULES_PARAM, LifbenchTask
from lctui.tasks.base import Draft, Task
from lctui.tasks.budget import Budget

SINGLE_FORMAT = "Reply with that entry alone, exactly as written in the list, without its number."
MULTI_FORMAT = (
    'Reply with a JSON list of those entries as strings, in the order asked, e.g. ["first", '
    '"second"], and nothing else.'
)
DIRECTION_WORDS: dict[str, dict[str, str]] = {
    "after": {"direction": "after", "follows": "follows", "later": "later than"},
    "before": {"direction": "before", "follows": "precedes", "later": "earlier than"},
}
REGIONS = ("head", "head", "middle", "middle", "tail", "tail")


def render_answer(elements: Sequence[str], multi: bool) -> str:
    """The exact reference output: the entry alone, or a JSON list of the entries."""
    if multi:
        return json.dumps(list(elements))
    (element,) = elements
    return element


@dataclass(frozen=True)
class ListSpec:
    """One List task: its LIFEval name, wordings (with their direction) and variables."""

    name: str
    description: str
    expressions: tuple[str, ...]
    variables: tuple[Mapping[str, Any], ...]
    max_new_tokens: int = 100
    directions: tuple[str, ...] = ()  # per expression, for the offset tasks


def _positions_text(positions: Sequence[int]) -> str:
    words = [str(p) for p in positions]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


class ListTask(LifbenchTask):
    scenario: ClassVar[str] = "list"
    param_specs: ClassVar[tuple[ParamSpec, ...]] = (RULES_PARAM,)
    spec: ListSpec

    def __init__(self, spec: ListSpec) -> None:
        super().__init__(spec, spec.max_new_tokens, {"rules": "original"})

    def build(self, rng: random.Random, budget: Budget, tokenizer: Tokenizer, index: int) -> Draft:
        expression, variable = self.choice(index)
        template = self.spec.expressions[expression]
        sample = self.spec.variables[variable]
        kind = self.spec.name
        multi = kind == "multi_query_id"
        direction = self.spec.directions[expression] if self.spec.directions else None
        step = {"after": 1, "before": -1, None: 0}[direction]

        def query(layout: ListLayout) -> tuple[int | None, list[int]]:
            """(the position named in the question, the positions of the answer)."""
            if multi:
                return None, layout.array(int(sample["array"]))
            pivot = layout.single(int(sample["slot"]))
            return pivot, [pivot + step]

        def make_question(layout: ListLayout) -> str:
            pivot, expected = query(layout)
            fields = {
                "fmt": MULTI_FORMAT if multi else SINGLE_FORMAT,
                "pos": pivot,
                "positions": _positions_text(expected),
                "element": layout.at(pivot) if pivot is not None else "",
            }
            return "\n\n" + template.format(**fields)

        seed, key = self.shared(budget, tokenizer)
        built = build_list(list_stream(seed, tokenizer), rng, budget, tokenizer, make_question)
        layout = built.layout
        pivot, expected_positions = query(layout)
        expected = [layout.at(p) for p in expected_positions]
        metadata: dict[str, Any] = {
            "scorer": "lifeval",
            "scenario": "list",
            "context_key": key,
            "lifeval_task": kind,
            "expression": expression,
            "variable": variable,
            "expected": expected,
            "expected_positions": expected_positions,
            "reference": render_answer(expected, multi),
            "gold_mode": "exact",
            "list_size": layout.size,
        }
        if pivot is not None:
            metadata["pivot"] = pivot
            metadata["region"] = REGIONS[int(sample["slot"])]
        if direction is not None:
            metadata["direction"] = direction
        depth = 100.0 * expected_positions[0] / layout.size
        return Draft(
            preamble=SCENARIO_DESCRIPTION,
            context=built.context,
            question=built.question,
            gold=tuple(expected),
            tokens=built.tokens,
            depth=round(depth, 2),
            metadata=metadata,
        )


_SINGLE_VARS: tuple[Mapping[str, Any], ...] = tuple(
    {"slot": slot, "region": region} for slot, region in enumerate(REGIONS)
)
_MULTI_VARS: tuple[Mapping[str, Any], ...] = tuple(
    {"array": k, "size": size} for k, size in enumerate(MULTI_SIZES)
)


def _directed(templates: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(expressions, their directions): every template asked after, then before."""
    keep = {"pos": "{pos}", "element": "{element}", "fmt": "{fmt}"}
    expressions, directions = [], []
    for direction, words in DIRECTION_WORDS.items():
        for template in templates:
            expressions.append(template.format(**keep, **words))
            directions.append(direction)
    return tuple(expressions), tuple(directions)


def _offset_spec(name: str, description: str, templates: Sequence[str]) -> ListSpec:
    expressions, directions = _directed(templates)
    return ListSpec(name, description, expressions, _SINGLE_VARS, directions=directions)


LIST_TASKS: tuple[ListSpec, ...] = (
    ListSpec(
        "single_query_id",
        "LIFBench List: return the list entry at a given position",
        (
            "What is entry number {pos} of the list? {fmt}",
            "Look up the item at position {pos} in the list above. {fmt}",
            "Find the list element numbered {pos}. {fmt}",
            "Which entry does the list hold at index {pos}? {fmt}",
            "Retrieve element {pos} from the numbered list. {fmt}",
            "Copy out the entry labelled {pos} in the list. {fmt}",
        ),
        _SINGLE_VARS,
    ),
    ListSpec(
        "multi_query_id",
        "LIFBench List: return the entries at several positions as a JSON list",
        (
            "Return the entries at positions {positions} of the list. {fmt}",
            "Collect the list items numbered {positions}, in that order. {fmt}",
            "Which elements sit at indices {positions}? {fmt}",
            "Look up entries {positions} in the list above. {fmt}",
            "Copy out list elements {positions}, keeping the order given. {fmt}",
        ),
        _MULTI_VARS,
        512,
    ),
    _offset_spec(
        "offset_query_id",
        "LIFBench List: return the entry just before or after a given position",
        (
            "What entry comes directly {direction} entry number {pos}? {fmt}",
            "Find the item immediately {direction} position {pos} in the list. {fmt}",
            "Which element is right {direction} the one numbered {pos}? {fmt}",
            "Look at entry {pos}, then give the entry just {direction} it. {fmt}",
            "Return the list element that immediately {follows} element {pos}. {fmt}",
        ),
    ),
    _offset_spec(
        "offset_query_element",
        "LIFBench List: return the entry just before or after a given entry",
        (
            'In the list, which entry comes directly {direction} "{element}"? {fmt}',
            'Find "{element}" in the list and give the entry immediately {direction} it. {fmt}',
            'Which element is right {direction} the element "{element}"? {fmt}',
            'Locate the item "{element}"; what is the item just {direction} it? {fmt}',
            'Return the list entry that immediately {follows} "{element}". {fmt}',
        ),
    ),
    _offset_spec(
        "blur_offset_query_id",
        "LIFBench List: return any one entry after or before a given position",
        (
            "Give any one entry that comes {direction} entry number {pos}. {fmt}",
            "Name a single item located somewhere {direction} position {pos}. {fmt}",
            "Pick one element, any you like, from those {direction} index {pos}. {fmt}",
            "Return one list entry placed {direction} entry {pos}; any of them will do. {fmt}",
            "Choose an item that appears {later} entry {pos} in the list. {fmt}",
        ),
    ),
    _offset_spec(
        "blur_offset_query_element",
        "LIFBench List: return any one entry after or before a given entry",
        (
            'Give any one entry that comes {direction} "{element}". {fmt}',
            'Name a single item located somewhere {direction} "{element}" in the list. {fmt}',
            'Pick one element, any you like, from those {direction} "{element}". {fmt}',
            'Return one list entry placed {direction} "{element}"; any of them will do. {fmt}',
            'Choose an item that appears {later} "{element}" in the list. {fmt}',
        ),
    ),
)


def list_tasks() -> list[Task]:
    return [ListTask(spec) for spec in LIST_TASKS]
