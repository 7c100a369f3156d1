"""LIFEval's rubric programs for the List scenario of LIFBench.

The list items are read back from the example's context, so an answer is placed by
the position of the entry it reproduces (exactly, or within a small edit distance).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from lctui.core.types import Example, RubricPoint
from lctui.scoring.json_text import loads_or_none
from lctui.scoring.lifeval_points import PointSpec
from lctui.scoring.lifeval_text import (
    NUMBERING,
    clean_output,
    edit_distance,
    in_spec_order,
    json_list,
    near_limit,
    norm,
    point,
    short,
    unwrap,
)
from lctui.scoring.rubric import share
from lctui.tasks.lifbench.list_context import parse_list


@dataclass(frozen=True)
class Match:
    """Where an answer sits in the list: its position and edit distance (None: nowhere)."""

    position: int | None
    distance: int = 0


class ListIndex:
    """The list of an example, for placing answers."""

    def __init__(self, items: Sequence[str]) -> None:
        self.items = [norm(item) for item in items]
        self.exact: dict[str, int] = {}
        for position, item in enumerate(self.items, 1):
            self.exact.setdefault(item, position)

    def place(self, answer: str, prefer: Sequence[int] = ()) -> Match:
        """The entry `answer` reproduces; near misses of the `prefer` positions first."""
        text = norm(answer)
        if not text:
            return Match(None)
        for candidate in (text, norm(NUMBERING.sub("", answer))):
            if candidate in self.exact:
                return Match(self.exact[candidate])
        best = Match(None)
        for positions in (prefer, range(1, len(self.items) + 1)):
            for position in positions:
                if not 1 <= position <= len(self.items):
                    continue
                item = self.items[position - 1]
                limit = near_limit(item)
                distance = edit_distance(text, item, limit)
                if distance <= limit and (best.position is None or distance < best.distance):
                    best = Match(position, distance)
            if best.position is not None:
                return best
        return best


_MAX_CANDIDATES = 6


def _single_answer(output: str, pattern: str | None) -> tuple[list[str], str]:
    """(candidate answers, cleaned output) of a single-element task, best first.

    The first candidate is the answer as asked for (the JSON string, or the first
    line); when the model wrapped its answer in other text, the later lines and the
    values matching the task's value pattern are tried too, so reproducing an entry
    still earns its `ori` point (the format point is lost all the same).
    """
    text = clean_output(output)
    if not text:
        return [], text
    value: Any = loads_or_none(text)
    if isinstance(value, str):
        return [value.strip()], text
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str):
        return [value[0].strip()], text
    lines = [unwrap(NUMBERING.sub("", line).strip()) for line in text.splitlines()]
    candidates = [line for line in lines if line]
    if pattern:
        candidates += re.findall(pattern, text)
    return list(dict.fromkeys(candidates))[:_MAX_CANDIDATES], text


def _format_ok(text: str, fmt: str) -> bool:
    if not text or "\n" in text:
        return False
    wrapped_quotes = len(text) >= 2 and text[0] == text[-1] == '"'
    wrapped_brackets = len(text) >= 2 and text[0] == "[" and text[-1] == "]"
    if fmt == "quoted":
        return wrapped_quotes and '"' not in text[1:-1]
    if fmt == "bracketed":
        return wrapped_brackets
    return not wrapped_quotes and not wrapped_brackets


_FORMAT_NAMES = {
    "plain": "the entry alone on one line",
    "quoted": "the entry in double quotes",
    "bracketed": "the entry in square brackets",
    "json": "a JSON list of strings",
}


def _ori_point(spec: PointSpec, match: Match, answer: str, index: ListIndex) -> RubricPoint:
    if match.position is None:
        earned, why = 0.0, f"{short(answer)!r} reproduces no entry of the list"
    elif match.distance == 0:
        earned, why = 1.0, f"reproduces entry {match.position} exactly"
    else:
        limit = near_limit(index.items[match.position - 1])
        earned = 1.0 - match.distance / (limit + 1)
        why = (
            f"near miss of entry {match.position}: {match.distance} character edit(s) "
            f"(up to {limit} earn partial credit)"
        )
    return point(spec, earned, why)


def _where(position: int, meta: Mapping[str, Any]) -> str:
    pivot, direction = meta.get("pivot"), meta.get("direction")
    if direction in ("after", "before") and pivot is not None:
        return f"position {position} (the one {direction} {pivot})"
    return f"position {position}"


def _single_points(
    meta: Mapping[str, Any], specs: Mapping[str, PointSpec], candidates: Sequence[str],
    text: str, index: ListIndex,
) -> tuple[str, list[RubricPoint]]:  # fmt: skip
    """(the answer that was scored, the points) of a single-element task."""
    fmt = str(meta["format"])
    expected = int(meta["expected_positions"][0])
    task = str(meta["lifeval_task"])
    blur = task.startswith("blur_")
    allowed = meta.get("allowed")
    prefer = [expected]
    if blur and isinstance(allowed, Sequence):
        lo, hi = int(allowed[0]), int(allowed[1])
        prefer = list(range(lo, hi + 1))
    answer, match = (candidates[0] if candidates else ""), Match(None)
    for candidate in candidates:
        placed = index.place(candidate, prefer)
        if placed.position is not None:
            answer, match = candidate, placed
            break
    # The entry must be the whole output: one found inside other text loses the format.
    format_ok = _format_ok(text, fmt) and answer == (candidates[0] if candidates else "")
    points = {
        "format": point(
            specs["format"],
            1.0 if format_ok else 0.0,
            f"{'is' if format_ok else 'is not'} {_FORMAT_NAMES[fmt]}, as asked",
        ),
        "ori": _ori_point(specs["ori"], match, answer, index),
    }
    if blur and isinstance(allowed, Sequence):
        lo, hi = int(allowed[0]), int(allowed[1])
        side = f"{meta.get('direction')} position {meta.get('pivot')} ({lo} to {hi})"
        if match.position is None:
            points["position"] = point(specs["position"], 0.0, f"no entry found; wanted one {side}")
        elif lo <= match.position <= hi:
            points["position"] = point(
                specs["position"], 1.0, f"entry {match.position} lies {side}"
            )
        else:
            points["position"] = point(
                specs["position"], 0.0, f"entry {match.position} does not lie {side}"
            )
    else:
        wanted = _where(expected, meta)
        if match.position is None:
            why, earned = f"expected the element at {wanted}, got no entry of the list", 0.0
        elif match.position == expected:
            why, earned = f"gave the element at {wanted}", 1.0
        else:
            why, earned = f"expected the element at {wanted}, got the one at {match.position}", 0.0
        points["correct"] = point(specs["correct"], earned, why)
    return answer, in_spec_order(specs, points)


def _multi_answers(output: str) -> tuple[list[str], float]:
    """The answers of a multi-element task and the format fraction earned."""
    text = clean_output(output)
    if not text:
        return [], 0.0
    value, whole = json_list(text)
    if value is not None:
        earned = 1.0 if whole else 0.5
        strings = all(isinstance(v, str) for v in value)
        return [v if isinstance(v, str) else json.dumps(v) for v in value], (
            earned if strings else earned / 2
        )
    lines = [unwrap(NUMBERING.sub("", line).strip().rstrip(",")) for line in text.splitlines()]
    return [line for line in lines if line], 0.0


def _multi_points(
    meta: Mapping[str, Any], specs: Mapping[str, PointSpec], answers: Sequence[str],
    format_earned: float, index: ListIndex,
) -> list[RubricPoint]:  # fmt: skip
    expected = [int(p) for p in meta["expected_positions"]]
    placed = [index.place(a, expected).position for a in answers]
    wanted = len(expected)
    found = [p for p in expected if p in placed]
    in_place = [i for i, p in enumerate(expected) if i < len(placed) and placed[i] == p]
    num_earned = max(0.0, 1.0 - abs(len(answers) - wanted) / wanted)
    format_why = {
        1.0: "a JSON list of strings, as asked",
        0.5: "a JSON list, but with other text around it",
        0.25: "a JSON list, but not all of strings",
        0.0: "not a JSON list",
    }
    misplaced = [
        f"#{i + 1}: expected position {p}, got "
        + (f"position {placed[i]}" if i < len(placed) and placed[i] else "no entry")
        for i, p in enumerate(expected)
        if i not in in_place
    ]
    points = {
        "format": point(
            specs["format"], format_earned, format_why.get(format_earned, "partly JSON")
        ),
        "num": point(
            specs["num"], num_earned, f"gave {len(answers)} element(s) for {wanted} positions"
        ),
        "correct": point(
            specs["correct"],
            share(len(found), wanted),
            f"{len(found)} of {wanted} requested elements present",
        ),
        "order": point(
            specs["order"],
            share(len(in_place), wanted),
            f"{len(in_place)} of {wanted} in the asked place"
            + (f"; {'; '.join(misplaced[:3])}" if misplaced else ""),
        ),
    }
    return in_spec_order(specs, points)


@lru_cache(maxsize=8)
def _list_index(context: str) -> ListIndex:
    """The list of a context, parsed once for all the responses scored against it."""
    return ListIndex(parse_list(context))


def list_points(
    example: Example, output: str, specs: Mapping[str, PointSpec]
) -> tuple[tuple[str, ...], list[RubricPoint]]:
    """(extracted answers, rubric points) of one output of a List task."""
    meta = example.metadata
    index = _list_index(example.context)
    if meta["lifeval_task"] == "multi_query_id":
        answers, format_earned = _multi_answers(output)
        return tuple(answers), _multi_points(meta, specs, answers, format_earned, index)
    candidates, text = _single_answer(output, meta.get("value_pattern"))
    answer, points = _single_points(meta, specs, candidates, text, index)
    return ((answer,) if answer else ()), points
