"""The point values lctui's MultiDoc and OneDoc rules can award are those in the
published per-response scores of LIFBench's 20 models.

Each point's rule is a function of a few counts (lifeval's multidoc_scenario,
find_dup_text and onedoc_scenario export them; the scorers compute with them). The
tests enumerate those counts over the ranges the original's own prompts allow (its documents per
length, duplicate groups, tagged sentences) and compare with the values in
shared/data/lifbench-scores, read in place:

- a point with a few values (qa, extract's format/order/ori, repeat's ori/hit/num,
  find_dup_text's format/num_text): the values lctui can award are the published
  ones, apart from values named in UNSEEN that the rule allows but no published
  response happened to earn;
- a point that is a share of something (labels right of N documents, lines of an
  answer): every published value is one lctui can award.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from functools import cache

import pytest

from helpers.lifbench_data import published_folder, read_published
from lctui.suites.lifbench.scoring.find_dup_text import dup_format, dup_num
from lctui.suites.lifbench.scoring.multidoc_scenario import label_count, label_format
from lctui.suites.lifbench.scoring.onedoc_scenario import (
    extract_correct,
    extract_format,
    extract_order,
    qa_correct,
    qa_format,
    repeat_format,
    repeat_hit,
    repeat_num,
    repeat_ori,
)
from lctui.suites.lifbench.tasks.onedoc import REPEAT_COUNTS
from lctui.suites.lifbench.tasks.onedoc_context import KEY_COUNTS

# The original's MultiDoc prompts (its data/meta/multidoc_input.json) at 3K ... 120K:
# documents shown, duplicate groups among them, documents in those groups.
DOCS = (10, 20, 45, 98, 215, 433)
GROUPS = (1, 1, 3, 4, 5, 5)
DUPLICATED = (2, 3, 8, 21, 48, 112)
FIELD_COUNTS = (1, 2, 3)  # find_dup_text asks for one, two or three fields
TAGGED = 23
TRUE_PER_TYPE = (0, *sorted(set(KEY_COUNTS.values())))  # |Summary| has none
# Values a rule allows that no published response earned: find_dup_text's format
# 4.5 of 5 needs an answer of [[...]] lines with text after the last "]" only.
UNSEEN: dict[tuple[str, str], set[float]] = {("find_dup_text", "format"): {0.9}}


def _key(value: float) -> float:
    return round(value, 9)


def _values(values: Iterable[float]) -> set[float]:
    return {_key(v) for v in values}


@cache
def _published() -> dict[str, dict[str, frozenset[float]]]:
    out: dict[str, dict[str, frozenset[float]]] = {}
    for task, rows in read_published(published_folder()).items():
        points = [c for c in rows[0] if c not in ("model", "ins_id", "param_id", "length")]
        out[task] = {p: frozenset(_key(float(r[p])) for r in rows) for p in points}
    return out


def published(task: str, point: str) -> frozenset[float]:
    return _published()[task][point]


def _check_equal(task: str, point: str, attainable: set[float]) -> None:
    seen = published(task, point)
    assert seen <= attainable, sorted(seen - attainable)
    assert attainable - seen == UNSEEN.get((task, point), set()), sorted(attainable - seen)


def _check_covers(task: str, point: str, attainable: set[float]) -> None:
    missing = published(task, point) - attainable
    assert not missing, sorted(missing)[:10]


BOOLS = (False, True)


def test_qa() -> None:
    correct = _values(
        qa_correct(o, a, k) / 3 for o in (0, 1, 2) for a in BOOLS for k in ("key", "fake", "plain")
    )
    assert correct == _values([0, 1 / 30, 1 / 6, 2 / 3, 1])
    _check_equal("qa", "correct", correct)
    _check_equal("qa", "format", _values(qa_format(f, o) / 2 for f in (0, 1, 2) for o in (0, 1, 2)))


def test_extract() -> None:
    formats = _values(
        extract_format(w, lst, s) / 4 for w in (0, 1, 2) for lst in BOOLS for s in BOOLS
    )
    _check_equal("extract", "format", formats)
    found = range(TAGGED + 1)
    _check_equal("extract", "order", _values(extract_order(f, f) / 4 for f in found))
    _check_equal("extract", "ori", _values(float(f > 0) for f in found))
    correct = {1.0}  # the empty list for |Summary|: every point
    for trues, hits, fake in itertools.product(TRUE_PER_TYPE, range(6), BOOLS):
        if hits <= trues:
            for over in range(max(trues, hits), 400):
                correct.add(_key(extract_correct(hits, over, 0, trues, fake) / 4))
    _check_covers("extract", "correct", correct)


def test_repeat() -> None:
    _check_equal(
        "repeat",
        "ori",
        _values([0.0] + [repeat_ori(q, n, False) / 2 for q in BOOLS for n in BOOLS]),
    )
    counts = range(30)
    _check_equal(
        "repeat",
        "num",
        _values(
            repeat_num(s, ln, h, n) / 4
            for s, ln, h, n in itertools.product(counts, counts, range(TAGGED + 1), REPEAT_COUNTS)
        ),
    )
    hits = _values(
        max(0.0, repeat_hit(h, f, n)) / 2
        for h in range(TAGGED + 1)
        for f in range(min(3, h) + 1)
        for n in REPEAT_COUNTS
    )
    _check_equal("repeat", "hit", hits)
    formats: set[float] = set()
    for lines_ok, sep, n in itertools.product(BOOLS, BOOLS, REPEAT_COUNTS):
        for lines in range(0, 300 if sep else 1):
            for shaped in range(lines + 1):
                formats.add(_key(repeat_format(lines_ok, sep, shaped, lines, n) / 3))
    _check_covers("repeat", "format", formats)
    correct = {_key(right / lines) for lines in range(1, 300) for right in range(lines + 1)}
    _check_covers("repeat", "correct", correct | {0.0})


def test_find_dup_text() -> None:
    formats = {0.0}  # the empty output
    for only, per_line, parsed, none_failed, all_tables in itertools.product(BOOLS, repeat=5):
        # No [[...]] span: none parses or fails, no line is one, and both "all" checks
        # hold vacuously. With spans: brackets occur; if none parsed, one failed and
        # none was parsed into something other than a list of lists.
        if not (per_line or parsed) and none_failed and all_tables:
            formats.add(_key(dup_format(only, only, False, False, True, True) / 5))
            formats.add(_key(dup_format(True, only, False, False, True, True) / 5))
        if parsed or (not none_failed and all_tables):
            formats.add(_key(dup_format(True, only, per_line, parsed, none_failed, all_tables) / 5))
    _check_equal("find_dup_text", "format", formats)
    nums = _values(dup_num(spans, g) / 5 for g in set(GROUPS) for spans in range(60))
    _check_equal("find_dup_text", "num_text", nums)
    for value in published("find_dup_text", "correct"):
        assert any(
            _correct_from(value, docs, fields)
            for docs, fields in itertools.product(DUPLICATED, FIELD_COUNTS)
        ), value


def _correct_from(value: float, docs: int, fields: int) -> bool:
    """Whether 4 * value = 3 * present / (docs * fields) + pairs / docs**2 for counts
    within range (the two parts of find_dup_text's correct)."""
    for present in range(docs * fields + 1):
        pairs = (4 * value - 3 * present / (docs * fields)) * docs * docs
        if -1e-6 <= pairs <= docs * docs + 1e-6 and abs(pairs - round(pairs)) < 1e-4:
            return True
    return False


@pytest.mark.parametrize("point", ["candi_ori", "logit_correct"])
def test_batch_label_label_points(point: str) -> None:
    _check_covers("batch_label", point, {_key(k / n) for n in DOCS for k in range(n + 1)})


def test_batch_label_count_and_format() -> None:
    counts = _values(label_count(given, n) / 3 for n in DOCS for given in range(3 * n))
    _check_covers("batch_label", "num_doc", counts)
    formats = _values(
        label_format(whole, span, mapping, named, n) / 5
        for n in DOCS
        for whole, span, mapping in itertools.product(BOOLS, repeat=3)
        for named in range(n + 1)
    )
    _check_covers("batch_label", "format", formats)
