"""The six List tasks of LIFBench with our own instruction wordings and variable spaces.

Each task has several expression templates (rewordings of one instruction) and a
declared variable space (queried positions in the head, middle or tail block, the
direction of an offset, the output format). Example `index` uses expression
`index % E` and variable sample `(index // E) % V`, so every combination recurs and
stability over expressions and variables can be measured.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from lctui.core.protocols import Tokenizer
from lctui.tasks.base import Draft, Task
from lctui.tasks.budget import Budget
from lctui.tasks.lifbench.list_context import (
    HEX32_PATTERN,
    SCENARIO_DESCRIPTION,
    ListLayout,
    build_list,
    list_stream,
)
from lctui.tasks.lifbench.shared import LifbenchTask

SINGLE_FORMATS: dict[str, str] = {
    "plain": "Reply with that entry alone, exactly as written in the list, without its number.",
    "quoted": "Reply with that entry alone, exactly as written in the list, in double quotes.",
    "bracketed": (
        "Reply with that entry alone, exactly as written in the list, inside square "
        "brackets like [entry]."
    ),
}
MULTI_FORMAT = (
    'Reply with a JSON list of those entries as strings, in the order asked, e.g. ["first", '
    '"second"], and nothing else.'
)
DIRECTION_WORDS: dict[str, dict[str, str]] = {
    "after": {"direction": "after", "follows": "follows", "later": "later than"},
    "before": {"direction": "before", "follows": "precedes", "later": "earlier than"},
}

Where = tuple[str, int]  # (block, offset in the block)


def render_answer(elements: Sequence[str], fmt: str) -> str:
    """The exact reference output for `elements` in format `fmt`."""
    if fmt == "json":
        return json.dumps(list(elements), ensure_ascii=False)
    (element,) = elements
    if fmt == "quoted":
        return f'"{element}"'
    if fmt == "bracketed":
        return f"[{element}]"
    return element


@dataclass(frozen=True)
class ListSpec:
    """One List task: its LIFEval name, wordings and variable samples."""

    name: str
    description: str
    expressions: tuple[str, ...]
    variables: tuple[Mapping[str, Any], ...]
    max_new_tokens: int = 100


def _positions_text(positions: Sequence[int]) -> str:
    words = [str(p) for p in positions]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


class ListTask(LifbenchTask):
    scenario: ClassVar[str] = "list"
    spec: ListSpec

    def __init__(self, spec: ListSpec) -> None:
        super().__init__(spec, spec.max_new_tokens)

    def build(self, rng: random.Random, budget: Budget, tokenizer: Tokenizer, index: int) -> Draft:
        expression, variable = self.choice(index)
        template = self.spec.expressions[expression]
        sample = self.spec.variables[variable]
        kind = self.spec.name
        fmt = str(sample.get("format", "json" if kind == "multi_query_id" else "plain"))
        direction = str(sample.get("direction", "after"))
        step = 1 if direction == "after" else -1

        def query(layout: ListLayout) -> dict[str, Any]:
            if kind == "multi_query_id":
                positions = [layout.region_position(r, o) for r, o in sample["at"]]
                return {"pivot": None, "expected": positions}
            region, offset = sample["at"]
            pivot = layout.region_position(region, offset)
            if kind == "single_query_id":
                return {"pivot": pivot, "expected": [pivot]}
            return {"pivot": pivot, "expected": [pivot + step]}

        def make_question(layout: ListLayout) -> str:
            q = query(layout)
            fields = {
                **DIRECTION_WORDS[direction],
                "fmt": MULTI_FORMAT if fmt == "json" else SINGLE_FORMATS[fmt],
                "pos": q["pivot"],
                "positions": _positions_text(q["expected"]),
                "element": layout.at(q["pivot"]) if q["pivot"] is not None else "",
            }
            return "\n\n" + template.format(**fields)

        seed, key = self.shared(budget, tokenizer)
        built = build_list(list_stream(seed, tokenizer), rng, budget, tokenizer, make_question)
        layout = built.layout
        q = query(layout)
        expected_positions: list[int] = q["expected"]
        expected = [layout.at(p) for p in expected_positions]
        reference = render_answer(expected, fmt)
        metadata: dict[str, Any] = {
            "scorer": "lifeval",
            "scenario": "list",
            "context_key": key,
            "lifeval_task": kind,
            "expression": expression,
            "variable": variable,
            "format": fmt,
            "expected": expected,
            "expected_positions": expected_positions,
            "reference": reference,
            "gold_mode": "exact",
            "value_pattern": HEX32_PATTERN,
            "list_size": layout.size,
        }
        if q["pivot"] is not None:
            metadata["pivot"] = q["pivot"]
        if kind != "single_query_id" and kind != "multi_query_id":
            metadata["direction"] = direction
        if kind.startswith("blur_"):
            pivot = q["pivot"]
            metadata["allowed"] = [pivot + 1, layout.size] if step > 0 else [1, pivot - 1]
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


def _single_vars() -> tuple[Mapping[str, Any], ...]:
    return (
        {"at": ("head", 0), "format": "plain"},
        {"at": ("head", 6), "format": "quoted"},
        {"at": ("middle", 2), "format": "plain"},
        {"at": ("middle", 4), "format": "bracketed"},
        {"at": ("tail", 9), "format": "plain"},
        {"at": ("tail", 3), "format": "quoted"},
        {"at": ("head", 3), "format": "bracketed"},
    )


def _offset_vars() -> tuple[Mapping[str, Any], ...]:
    return (
        {"at": ("head", 0), "direction": "after", "format": "plain"},
        {"at": ("head", 7), "direction": "before", "format": "quoted"},
        {"at": ("middle", 2), "direction": "after", "format": "plain"},
        {"at": ("middle", 1), "direction": "before", "format": "bracketed"},
        {"at": ("tail", 9), "direction": "before", "format": "plain"},
        {"at": ("tail", 4), "direction": "after", "format": "quoted"},
    )


def _blur_vars() -> tuple[Mapping[str, Any], ...]:
    return (
        {"at": ("head", 2), "direction": "after", "format": "plain"},
        {"at": ("head", 8), "direction": "before", "format": "quoted"},
        {"at": ("middle", 2), "direction": "after", "format": "plain"},
        {"at": ("middle", 3), "direction": "before", "format": "bracketed"},
        {"at": ("tail", 6), "direction": "before", "format": "plain"},
        {"at": ("tail", 1), "direction": "after", "format": "quoted"},
    )


_MULTI_VARS: tuple[Mapping[str, Any], ...] = (
    {"at": (("head", 1), ("middle", 2))},
    {"at": (("head", 0), ("head", 5), ("tail", 8))},
    {"at": (("middle", 0), ("tail", 2), ("head", 9), ("middle", 4))},
    {"at": (("tail", 9), ("head", 2))},
    {"at": (("head", 4), ("middle", 1), ("tail", 5))},
)

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
        _single_vars(),
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
    ListSpec(
        "offset_query_id",
        "LIFBench List: return the entry just before or after a given position",
        (
            "What entry comes directly {direction} entry number {pos}? {fmt}",
            "Find the item immediately {direction} position {pos} in the list. {fmt}",
            "Which element is right {direction} the one numbered {pos}? {fmt}",
            "Look at entry {pos}, then give the entry just {direction} it. {fmt}",
            "Return the list element that immediately {follows} element {pos}. {fmt}",
        ),
        _offset_vars(),
    ),
    ListSpec(
        "offset_query_element",
        "LIFBench List: return the entry just before or after a given entry",
        (
            'In the list, which entry comes directly {direction} "{element}"? {fmt}',
            'Find "{element}" in the list and give the entry immediately {direction} it. {fmt}',
            'Which element is right {direction} the element "{element}"? {fmt}',
            'Locate the item "{element}"; what is the item just {direction} it? {fmt}',
            'Return the list entry that immediately {follows} "{element}". {fmt}',
        ),
        _offset_vars(),
    ),
    ListSpec(
        "blur_offset_query_id",
        "LIFBench List: return any one entry after or before a given position",
        (
            "Give any one entry that comes {direction} entry number {pos}. {fmt}",
            "Name a single item located somewhere {direction} position {pos}. {fmt}",
            "Pick one element, any you like, from those {direction} index {pos}. {fmt}",
            "Return one list entry placed {direction} entry {pos}; any of them will do. {fmt}",
            "Choose an item that appears {later} entry {pos} in the list. {fmt}",
        ),
        _blur_vars(),
    ),
    ListSpec(
        "blur_offset_query_element",
        "LIFBench List: return any one entry after or before a given entry",
        (
            'Give any one entry that comes {direction} "{element}". {fmt}',
            'Name a single item located somewhere {direction} "{element}" in the list. {fmt}',
            'Pick one element, any you like, from those {direction} "{element}". {fmt}',
            'Return one list entry placed {direction} "{element}"; any of them will do. {fmt}',
            'Choose an item that appears {later} "{element}" in the list. {fmt}',
        ),
        _blur_vars(),
    ),
)


def list_tasks() -> list[Task]:
    return [ListTask(spec) for spec in LIST_TASKS]
