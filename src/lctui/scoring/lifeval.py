"""LIFEval's rubric programs for the LIFBench List scenario (scorer `lifeval`).

Points, weights and capabilities come from `lifeval_points.LIFEVAL_TASKS`. The list
items are read back from the example's context, so an answer is placed by the
position of the entry it reproduces (exactly, or within a small edit distance).
Model output is parsed defensively (JSON first, then a bracketed span, then lines)
and never evaluated.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lctui.core.types import Example, RubricPoint, Score, ScoreStatus
from lctui.scoring.lifeval_points import LIFEVAL_TASKS, PointSpec
from lctui.scoring.rubric import make_point, share, weighted_fraction
from lctui.tasks.lifbench.list_context import parse_list

SCORER_NAME = "lifeval"
_CUE = re.compile(r"^\s*(?:output|answer|response)\s*:\s*", re.IGNORECASE)
_FENCE = re.compile(r"^```[a-zA-Z]*\s*\n?(.*?)\n?```$", re.DOTALL)
_NUMBERING = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s+")
_MAX_NEAR = 4


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def near_limit(text: str) -> int:
    """The largest edit distance still counted as a near miss of `text`."""
    return max(1, min(_MAX_NEAR, len(text) // 8))


def edit_distance(a: str, b: str, limit: int) -> int:
    """Levenshtein distance of a and b, or limit + 1 once it must exceed `limit`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        if min(cur) > limit:
            return limit + 1
        prev = cur
    return min(prev[-1], limit + 1)


@dataclass(frozen=True)
class Match:
    """Where an answer sits in the list: its position and edit distance (None: nowhere)."""

    position: int | None
    distance: int = 0


class ListIndex:
    """The list of an example, for placing answers."""

    def __init__(self, items: Sequence[str]) -> None:
        self.items = [_norm(item) for item in items]
        self.exact: dict[str, int] = {}
        for position, item in enumerate(self.items, 1):
            self.exact.setdefault(item, position)

    def place(self, answer: str, prefer: Sequence[int] = ()) -> Match:
        """The entry `answer` reproduces; near misses of the `prefer` positions first."""
        text = _norm(answer)
        if not text:
            return Match(None)
        for candidate in (text, _norm(_NUMBERING.sub("", answer))):
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


def _clean(output: str) -> str:
    text = _CUE.sub("", output.strip()).strip()
    fenced = _FENCE.match(text)
    return fenced.group(1).strip() if fenced else text


def _unwrap(text: str) -> str:
    for left, right in (('"', '"'), ("'", "'"), ("[", "]"), ("“", "”")):
        if len(text) >= 2 and text.startswith(left) and text.endswith(right):
            return text[1:-1].strip()
    return text


def _single_answer(output: str) -> tuple[str, str]:
    """(answer, cleaned output) of a single-element task; answer "" when there is none."""
    text = _clean(output)
    if not text:
        return "", text
    try:
        value: Any = json.loads(text)
    except ValueError:
        value = None
    if isinstance(value, str):
        return value.strip(), text
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str):
        return value[0].strip(), text
    first = next(line.strip() for line in text.splitlines() if line.strip())
    return _unwrap(first), text


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
        earned, why = 0.0, f"{_short(answer)!r} reproduces no entry of the list"
    elif match.distance == 0:
        earned, why = 1.0, f"reproduces entry {match.position} exactly"
    else:
        limit = near_limit(index.items[match.position - 1])
        earned = 1.0 - match.distance / (limit + 1)
        why = (
            f"near miss of entry {match.position}: {match.distance} character edit(s) "
            f"(up to {limit} earn partial credit)"
        )
    return _point(spec, earned, why)


def _point(spec: PointSpec, earned: float, explanation: str) -> RubricPoint:
    return make_point(spec.name, spec.weight, earned, explanation, spec.capabilities)


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _where(position: int, meta: Mapping[str, Any]) -> str:
    pivot, direction = meta.get("pivot"), meta.get("direction")
    if direction in ("after", "before") and pivot is not None:
        return f"position {position} (the one {direction} {pivot})"
    return f"position {position}"


def _single_points(
    meta: Mapping[str, Any], specs: Mapping[str, PointSpec], answer: str, text: str,
    index: ListIndex,
) -> list[RubricPoint]:  # fmt: skip
    fmt = str(meta["format"])
    expected = int(meta["expected_positions"][0])
    task = str(meta["lifeval_task"])
    blur = task.startswith("blur_")
    allowed = meta.get("allowed")
    prefer = [expected]
    if blur and isinstance(allowed, Sequence):
        lo, hi = int(allowed[0]), int(allowed[1])
        prefer = list(range(lo, hi + 1))
    match = index.place(answer, prefer) if answer else Match(None)
    format_ok = _format_ok(text, fmt)
    points = {
        "format": _point(
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
            points["position"] = _point(
                specs["position"], 0.0, f"no entry found; wanted one {side}"
            )
        elif lo <= match.position <= hi:
            points["position"] = _point(
                specs["position"], 1.0, f"entry {match.position} lies {side}"
            )
        else:
            points["position"] = _point(
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
        points["correct"] = _point(specs["correct"], earned, why)
    return [points[name] for name in specs]


def _multi_answers(output: str) -> tuple[list[str], float]:
    """The answers of a multi-element task and the format fraction earned."""
    text = _clean(output)
    if not text:
        return [], 0.0
    for candidate, earned in ((text, 1.0), (_bracketed(text), 0.5)):
        if not candidate:
            continue
        try:
            value: Any = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, list):
            strings = all(isinstance(v, str) for v in value)
            return [v if isinstance(v, str) else json.dumps(v) for v in value], (
                earned if strings else earned / 2
            )
    lines = [_unwrap(_NUMBERING.sub("", line).strip().rstrip(",")) for line in text.splitlines()]
    return [line for line in lines if line], 0.0


def _bracketed(text: str) -> str:
    start, end = text.find("["), text.rfind("]")
    return text[start : end + 1] if 0 <= start < end else ""


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
        "format": _point(
            specs["format"], format_earned, format_why.get(format_earned, "partly JSON")
        ),
        "num": _point(
            specs["num"], num_earned, f"gave {len(answers)} element(s) for {wanted} positions"
        ),
        "correct": _point(
            specs["correct"],
            share(len(found), wanted),
            f"{len(found)} of {wanted} requested elements present",
        ),
        "order": _point(
            specs["order"],
            share(len(in_place), wanted),
            f"{len(in_place)} of {wanted} in the asked place"
            + (f"; {'; '.join(misplaced[:3])}" if misplaced else ""),
        ),
    }
    return [points[name] for name in specs]


def score_lifeval(example: Example, output: str) -> Score:
    """The LIFEval rubric score (ARS) of one output of a LIFBench List task."""
    meta = example.metadata
    task = meta.get("lifeval_task")
    if not isinstance(task, str) or task not in LIFEVAL_TASKS:
        raise ValueError(
            f"example {example.example_id} of task {example.task}: metadata 'lifeval_task' "
            f"is {task!r}; known: {', '.join(LIFEVAL_TASKS)}"
        )
    spec = LIFEVAL_TASKS[task]
    if spec.scenario != "list":
        raise ValueError(f"the lifeval scorer does not handle the {spec.scenario} scenario yet")
    specs = {p.name: p for p in spec.points}
    index = ListIndex(parse_list(example.context))
    extracted: tuple[str, ...]
    if task == "multi_query_id":
        answers, format_earned = _multi_answers(output)
        extracted = tuple(answers)
        points = _multi_points(meta, specs, answers, format_earned, index)
    else:
        answer, text = _single_answer(output)
        extracted = (answer,) if answer else ()
        points = _single_points(meta, specs, answer, text, index)
    if not extracted:
        points = [_point(p, 0.0, "nothing could be extracted from the output") for p in spec.points]
        return Score(
            scorer=SCORER_NAME,
            metric=str(meta.get("metric", "lifeval_ars")),
            value=0.0,
            status=ScoreStatus.UNPARSED,
            extracted=(),
            explanation="no answer could be extracted from the output.",
            points=tuple(points),
        )
    value = weighted_fraction(points)
    explanation = f"ARS = {value:.2f}: " + "; ".join(
        f"{p.name} {p.earned * p.weight:g}/{p.weight:g} ({p.explanation})" for p in points
    )
    return Score(
        scorer=SCORER_NAME,
        metric=str(meta.get("metric", "lifeval_ars")),
        value=value,
        status=ScoreStatus.OK,
        extracted=extracted,
        explanation=explanation + ".",
        points=tuple(points),
        extras={"expression": meta.get("expression"), "variable": meta.get("variable")},
    )
