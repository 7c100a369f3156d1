"""LIFEval's rubric programs for the MultiDoc scenario of LIFBench.

find_dup_text: an answer value is placed by the document field value it reproduces
(exactly, or within a small edit distance); a group is found when its placed values
are those of a true group. batch_label: labels are read per document key and placed
in the label set the same way. Output is parsed as JSON first, then as bracketed or
"key: value" lines; it is never evaluated.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lctui.core.types import Example, RubricPoint
from lctui.scoring.json_text import loads_or_none
from lctui.scoring.lifeval_points import PointSpec
from lctui.scoring.lifeval_text import (
    NUMBERING,
    bracketed,
    clean_output,
    edit_distance,
    in_spec_order,
    near_limit,
    norm,
    point,
    short,
    unwrap,
)
from lctui.scoring.rubric import list_values, plural, share

NONE = "None"
_DOC_KEY = re.compile(r"^\s*doc\s*(\d+)\s*$", re.IGNORECASE)
_ASKED_KEY = re.compile(r"doc[1-9][0-9]*")
# "doc3: label" up to the separator; the label is the rest of the line. The former
# single pattern's `\W*?\s*` and `(.+?)\s*,?$` backtracked quadratically on runs of
# spaces; this head is unambiguous, so a long line fails in linear time.
_LABEL_HEAD = re.compile(r"\W*(doc\s*\d+)\W*?[:=]", re.IGNORECASE)
_NEAR_MIN = 4  # shorter values (labels such as "A") have no near misses


@dataclass(frozen=True)
class Placed:
    """What an answer value reproduces: the normalised real value (None: nothing), credit."""

    value: str | None
    credit: float


class Values:
    """The values of one field over the documents, for placing answer values."""

    def __init__(self, values: Sequence[str | None]) -> None:
        self.real = sorted({norm(v if v is not None else NONE) for v in values})
        self.exact = set(self.real)

    def place(self, answer: str) -> Placed:
        text = norm(answer)
        if text in self.exact:
            return Placed(text, 1.0)
        best: Placed = Placed(None, 0.0)
        for real in (r for r in self.real if len(r) >= _NEAR_MIN):
            limit = near_limit(real)
            distance = edit_distance(text, real, limit)
            if distance <= limit and 1.0 - distance / (limit + 1) > best.credit:
                best = Placed(real, 1.0 - distance / (limit + 1))
        return best


def _scalar(value: Any) -> str:
    return NONE if value is None else value if isinstance(value, str) else json.dumps(value)


def _group_line(line: str, fmt: str) -> tuple[list[str] | None, bool]:
    """(values, in the asked shape) of one output line; values None when it holds no group."""
    value: Any = loads_or_none(line)
    if isinstance(value, list) and all(not isinstance(v, list | dict) for v in value):
        strings = all(isinstance(v, str) or v is None for v in value)
        return [_scalar(v) for v in value], fmt == "json" and strings
    span = bracketed(line)
    if not span:
        return None, False
    inner = span[1:-1].strip()
    items = [item.strip() for item in inner.split(",")] if inner else []
    quoted = any(unwrap(item) != item for item in items)
    return [unwrap(item) for item in items], fmt == "bare" and span == line and not quoted


def _dup_groups(output: str, fmt: str) -> tuple[list[list[str]], float, str]:
    """(groups of values, format fraction earned, why) of a find_dup_text output."""
    text = clean_output(output)
    if not text:
        return [], 0.0, "empty output"
    whole: Any = loads_or_none(text)
    if isinstance(whole, list) and whole and all(isinstance(g, list) for g in whole):
        groups = [[_scalar(v) for v in g] for g in whole]
        earned = 0.25 if fmt == "json" else 0.0
        return groups, earned, "one JSON list of all groups, not one group per line"
    lines = [NUMBERING.sub("", line.strip()).rstrip(",").strip() for line in text.splitlines()]
    lines = [line for line in lines if line]
    groups, good = [], 0
    for line in lines:
        values, ok = _group_line(line, fmt)
        if values is not None:
            groups.append(values)
        good += ok
    shape = "JSON lists of strings" if fmt == "json" else "unquoted lists in square brackets"
    why = f"{good} of {len(lines)} line(s) are groups written as {shape}"
    return groups, share(good, len(lines)), why


def _sizes(sizes: Sequence[int]) -> str:
    return list_values([str(s) for s in sizes], 6)


def _dup_points(
    meta: Mapping[str, Any], specs: Mapping[str, PointSpec], groups: list[list[str]],
    format_earned: float, format_why: str,
) -> list[RubricPoint]:  # fmt: skip
    field = str(meta["field"])
    real: list[str | None] = list(meta["values"])
    truth: list[list[int]] = [list(g) for g in meta["groups"]]
    index = Values(real)
    placed = [[index.place(v) for v in group] for group in groups]
    flat = [
        (v, p)
        for group, ps in zip(groups, placed, strict=True)
        for v, p in zip(group, ps, strict=True)
    ]
    exact = sum(p.credit == 1.0 for _, p in flat)
    near = sum(0.0 < p.credit < 1.0 for _, p in flat)
    unknown = [short(v, 30) for v, p in flat if p.value is None]
    ori_why = f"{exact} of {plural(len(flat), 'value')} reproduce the {field} of a document"
    if near:
        ori_why += f", {near} more nearly (partial credit)"
    if unknown:
        ori_why += f"; no {field} matches {list_values([repr(u) for u in unknown], 3)}"
    ori = sum(p.credit for _, p in flat) / len(flat) if flat else 0.0

    # A group is its sorted placed values; a value placed nowhere matches no group.
    true_keys = [tuple(sorted(norm(real[k - 1] or NONE) for k in group)) for group in truth]
    answer_keys = Counter(
        tuple(sorted(p.value if p.value is not None else f"\0{i}" for i, p in enumerate(ps)))
        for ps in placed
    )
    missed: list[str] = []
    found = 0
    for group, true_key in zip(truth, true_keys, strict=True):
        if answer_keys[true_key] > 0:
            answer_keys[true_key] -= 1
            found += 1
        else:
            missed.append(", ".join(f"doc{k}" for k in group))
    correct_why = f"found {found} of {plural(len(truth), 'group')} exactly"
    if missed:
        correct_why += "; missed " + "; ".join(f"({m})" for m in missed[:3])
    true_sizes, given_sizes = [len(g) for g in truth], [len(g) for g in groups]
    count_part = max(0.0, 1.0 - abs(len(groups) - len(truth)) / len(truth))
    common = sum((Counter(true_sizes) & Counter(given_sizes)).values())
    size_part = share(common, max(len(truth), len(groups)))
    num_why = (
        f"expected {plural(len(truth), 'group')} of sizes {_sizes(true_sizes)}, got {len(groups)}"
    )
    if groups:
        num_why += f" of sizes {_sizes(given_sizes)}"
    points = {
        "correct": point(specs["correct"], share(found, len(truth)), correct_why),
        "num_text": point(specs["num_text"], (count_part + size_part) / 2, num_why),
        "ori": point(specs["ori"], ori, ori_why),
        "format": point(specs["format"], format_earned, format_why),
    }
    return in_spec_order(specs, points)


class _Pairs(list[tuple[str, Any]]):
    """A JSON object's (key, value) pairs in order, duplicates kept."""


def _pairs_of(text: str) -> _Pairs | None:
    value: Any = loads_or_none(text, object_pairs_hook=_Pairs)
    return value if isinstance(value, _Pairs) else None


def _label_line(line: str) -> tuple[str, str] | None:
    """(key, label) of a "docN: label" line; a trailing comma is not part of the label."""
    head = _LABEL_HEAD.match(line)
    if head is None or head.end() == len(line):
        return None
    label = line[head.end() :].strip()
    if len(label) > 1 and label.endswith(","):
        label = label[:-1].rstrip()
    return head.group(1), unwrap(label)


def _label_pairs(output: str) -> tuple[list[tuple[str, str]], float, str]:
    """((key, label) pairs, format fraction earned, why) of a batch_label output."""
    text = clean_output(output)
    start, end = text.find("{"), text.rfind("}")
    for candidate, earned in (
        (text, 1.0),
        (text[start : end + 1] if 0 <= start < end else "", 0.5),
    ):
        pairs = _pairs_of(candidate) if candidate else None
        if pairs is None:
            continue
        shaped = all(_ASKED_KEY.fullmatch(k) and isinstance(v, str) for k, v in pairs)
        why = "a JSON object" + ("" if earned == 1.0 else " with other text around it")
        if not shaped:
            earned, why = earned / 2, why + ', but not all keys "docN" with string labels'
        return (
            [(k, _scalar(v)) for k, v in pairs],
            earned,
            why + (", as asked" if earned == 1.0 else ""),
        )
    lines = [pair for pair in map(_label_line, text.splitlines()) if pair]
    return lines, 0.0, "not a JSON object" + (" (read as 'docN: label' lines)" if lines else "")


def _label_points(
    meta: Mapping[str, Any], specs: Mapping[str, PointSpec], pairs: Sequence[tuple[str, str]],
    format_earned: float, format_why: str,
) -> list[RubricPoint]:  # fmt: skip
    labels = [str(label) for label in meta["labels"]]
    expected = [str(label) for label in meta["expected"]]
    n = len(expected)
    candidates = Values(labels)
    by_norm = {norm(label): label for label in labels}
    credits = [candidates.place(label).credit for _, label in pairs]
    outside = [short(label, 20) for (_, label), c in zip(pairs, credits, strict=True) if c < 1.0]
    candi_why = f"{len(pairs) - len(outside)} of {plural(len(pairs), 'label')} "
    candi_why += f"from the set {', '.join(labels)}"
    if outside:
        candi_why += f"; not in it: {list_values([repr(o) for o in outside], 3)}"
    given: dict[int, str] = {}
    extra: list[str] = []
    for key, label in pairs:
        match = _DOC_KEY.match(key)
        number = int(match.group(1)) if match else 0
        if 1 <= number <= n and number not in given:
            given[number] = label
        else:
            extra.append(short(key, 20))
    wrong: list[str] = []
    right = 0
    for number, want in enumerate(expected, 1):
        if number not in given:
            continue
        got = candidates.place(given[number])
        if got.value is not None and by_norm[got.value] == want:
            right += 1
        else:
            wrong.append(f"doc{number}: expected {want!r}, got {short(given[number], 20)!r}")
    logic_why = f"{right} of {plural(n, 'document')} labelled right"
    if wrong:
        logic_why += (
            "; " + "; ".join(wrong[:3]) + (f" and {len(wrong) - 3} more" if len(wrong) > 3 else "")
        )
    missing = [f"doc{k}" for k in range(1, n + 1) if k not in given]
    num_why = f"labelled {len(given)} of {plural(n, 'document')}"
    if missing:
        num_why += f"; missing {list_values(missing, 4)}"
    if extra:
        num_why += f"; {plural(len(extra), 'extra key')}: {list_values(extra, 4)}"
    candi = sum(credits) / len(pairs) if pairs else 0.0
    points = {
        "candi_ori": point(specs["candi_ori"], candi, candi_why),
        "logit_correct": point(specs["logit_correct"], share(right, n), logic_why),
        "num_doc": point(specs["num_doc"], max(0.0, share(len(given) - len(extra), n)), num_why),
        "format": point(specs["format"], format_earned, format_why),
    }
    return in_spec_order(specs, points)


def multidoc_points(
    example: Example, output: str, specs: Mapping[str, PointSpec]
) -> tuple[tuple[str, ...], list[RubricPoint]]:
    """(extracted answers, rubric points) of one output of a MultiDoc task."""
    meta = example.metadata
    if meta["lifeval_task"] == "find_dup_text":
        groups, format_earned, format_why = _dup_groups(output, str(meta["format"]))
        extracted = tuple("[" + ", ".join(g) + "]" for g in groups)
        return extracted, _dup_points(meta, specs, groups, format_earned, format_why)
    pairs, format_earned, format_why = _label_pairs(output)
    extracted = tuple(f"{key}: {label}" for key, label in pairs)
    return extracted, _label_points(meta, specs, pairs, format_earned, format_why)
