"""RULER's generated rows as lctui reads them: its tasks, and what the recall scorer needs
to read an output of one (the answer rule, the gold values' places, the question asked).

Shared by the importer of RULER's prediction files (suites/ruler/importer.py) and the
`ruler` input kind (tasks/inputs/ruler.py): a row of RULER's is the same example whether
lctui runs it or imports what RULER's own run answered. RULER's task names, their
families' answer budgets (`tokens_to_generate` of its data/synthetic/constants.py) and
metrics (eval/synthetic/constants.py) are written here as strings and numbers; no text
of RULER's is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lctui.core.types import Span
from lctui.tasks.base import UUID_PATTERN


@dataclass(frozen=True)
class RulerTask:
    """One of RULER's tasks (its synthetic.yaml names) as lctui records it."""

    name: str
    kind: str  # niah | vt | cwe | fwe | qa: what its answers look like
    category: str  # lctui's category of the task
    metric: str  # RULER's metric of its family (eval/synthetic/constants.py)
    answer_tokens: int  # RULER's tokens_to_generate of its family


def _task(name: str, kind: str) -> RulerTask:
    qa = kind == "qa"
    tokens = {"niah": 128, "vt": 30, "cwe": 120, "fwe": 50, "qa": 32}[kind]
    return RulerTask(
        name,
        kind,
        "qa" if qa else "synthetic",
        "string_match_part" if qa else "string_match_all",
        tokens,
    )


_NIAH = (
    "niah_single_1", "niah_single_2", "niah_single_3", "niah_multikey_1", "niah_multikey_2",
    "niah_multikey_3", "niah_multivalue", "niah_multiquery",
)  # fmt: skip
RULER_TASKS: dict[str, RulerTask] = {
    task.name: task
    for task in (
        *(_task(name, "niah") for name in _NIAH),
        _task("vt", "vt"),
        _task("cwe", "cwe"),
        _task("fwe", "fwe"),
        _task("qa_1", "qa"),
        _task("qa_2", "qa"),
    )
}
_ASKED_CHARS = 500  # the end of the prompt's last line kept as the question


def gold_spans(context: str, golds: Sequence[str]) -> tuple[Span, ...]:
    """The first place of each gold value in `context`, as `gold` spans in order."""
    spans = []
    for gold in dict.fromkeys(golds):
        at = context.find(gold)
        if at >= 0:
            spans.append(Span(at, at + len(gold), "gold", gold))
    return tuple(sorted(spans, key=lambda s: s.start))


def asked_text(context: str, lines: int) -> str:
    """The question a prompt ends with: RULER's templates put it after the context's
    last line, so the last line with a letter (the last two when the answer prefix, on a
    line of its own after a chat template, was not cut off), at most 500 characters each."""
    found = [line for line in context.splitlines() if any(c.isalpha() for c in line)]
    return "\n".join(line[-_ASKED_CHARS:] for line in found[-lines:])


_GOLD_SHAPES = (
    (re.compile(UUID_PATTERN), lambda golds: UUID_PATTERN),
    (re.compile(r"\d+"), lambda golds: _sized(r"\d", golds)),
    (re.compile(r"[A-Z]+"), lambda golds: _sized("[A-Z]", golds)),
)


def _sized(unit: str, golds: Sequence[str]) -> str:
    sizes = {len(g) for g in golds}
    return rf"\b{unit}{{{sizes.pop()}}}\b" if len(sizes) == 1 else rf"\b{unit}+\b"


def _alternatives(golds: Sequence[str]) -> str:
    # Longest first, so an answer that holds a shorter one is found whole.
    return "(?i)" + "|".join(re.escape(g) for g in sorted(set(golds), key=len, reverse=True))


def answer_rule(task: RulerTask, golds: Sequence[str], context: str) -> dict[str, Any]:
    """What the recall scorer extracts as the output's values (its metadata)."""
    if task.kind == "qa":
        return {"value_pattern": _alternatives(golds), "gold_mode": "any"}
    if task.kind == "cwe":
        listed = re.findall(r"(?<!\S)\d+\. (\S+)", context)
        return {"candidates": sorted(set(listed) | set(golds))}
    if task.kind == "fwe":
        sizes = {len(g) for g in golds}
        if len(sizes) == 1 and all(g.isalpha() and g.islower() for g in golds):
            shape = re.compile(rf"[a-z]{{{sizes.pop()}}}")
            coded = {w for w in context.split() if shape.fullmatch(w)}
            return {"candidates": sorted(coded | set(golds))}
        return {"candidates": sorted(set(golds))}
    for shape, pattern in _GOLD_SHAPES:
        if all(shape.fullmatch(g) for g in golds):
            return {"value_pattern": pattern(golds)}
    return {"value_pattern": _alternatives(golds)}


def needle_depth(task: RulerTask, context: str, spans: Sequence[Span]) -> float | None:
    """A needle task's depth: its first gold value's place in percent of the context's
    characters, as lctui's own examples measure it; None for the other tasks."""
    if task.kind != "niah" or not spans:
        return None
    return round(100.0 * spans[0].start / max(1, len(context)), 2)
