"""The lifeval rubric: wrong answers lose the right points, near misses earn part of ori."""

from __future__ import annotations

import json
import re

import pytest

from lctui.backends.gold import reference_answer
from lctui.core.types import Example, Score, ScoreStatus
from lctui.scoring import score_example
from lctui.scoring.lifeval_text import edit_distance
from lctui.tasks import get_task
from lctui.tasks.lifbench.list_context import parse_list

HEX32 = re.compile(r"^[0-9a-f]{32}$")


def _points(score: Score) -> dict[str, float]:
    return {p.name: p.earned for p in score.points}


def _example(name: str, o200k, fmt: str | None = None, uuid: bool = False) -> Example:  # type: ignore[no-untyped-def]
    """The first example of `name` with the given format (and a UUID as expected element)."""
    task = get_task(f"lifbench_{name}")
    for seed in range(40):
        for index in range(40):
            example = task.generate(3072, seed=seed, index=index, tokenizer=o200k)
            meta = example.metadata
            if fmt is not None and meta["format"] != fmt:
                continue
            if uuid and not HEX32.match(meta["expected"][0]):
                continue
            return example
    raise AssertionError("no such example")


def _items(example: Example) -> list[str]:
    return parse_list(example.context)


def test_edit_distance_is_bounded() -> None:
    assert edit_distance("abcdef", "abcdef", 2) == 0
    assert edit_distance("abcdef", "abcxef", 2) == 1
    assert edit_distance("abcdef", "zzzzzz", 2) == 3
    assert edit_distance("a", "abcdefgh", 2) == 3


@pytest.mark.parametrize("name", ["single_query_id", "offset_query_id", "offset_query_element"])
def test_wrong_position_loses_correct_but_keeps_ori(name: str, o200k) -> None:  # type: ignore[no-untyped-def]
    example = _example(name, o200k, fmt="plain")
    position = example.metadata["expected_positions"][0]
    wrong = _items(example)[position]  # the entry at position + 1
    score = score_example(example, wrong)
    points = _points(score)
    assert points["correct"] == 0.0 and points["ori"] == 1.0 and points["format"] == 1.0
    assert f"position {position}" in score.explanation
    assert f"got the one at {position + 1}" in score.explanation
    assert score.value is not None and score.value < 1.0


@pytest.mark.parametrize("name", ["single_query_id", "offset_query_id", "blur_offset_query_id"])
def test_wrong_format_loses_only_the_format_point(name: str, o200k) -> None:  # type: ignore[no-untyped-def]
    example = _example(name, o200k, fmt="quoted")
    plain = example.metadata["expected"][0]
    points = _points(score_example(example, plain))
    assert points["format"] == 0.0
    assert all(v == 1.0 for k, v in points.items() if k != "format")
    bracketed = _example(name, o200k, fmt="bracketed")
    assert (
        _points(score_example(bracketed, f'"{bracketed.metadata["expected"][0]}"'))["format"] == 0.0
    )


def test_near_miss_uuid_earns_part_of_ori(o200k) -> None:  # type: ignore[no-untyped-def]
    example = _example("single_query_id", o200k, fmt="plain", uuid=True)
    gold = example.metadata["expected"][0]
    near = gold[:-1] + ("0" if gold[-1] != "0" else "1")
    points = _points(score_example(example, near))
    assert 0.0 < points["ori"] < 1.0
    assert points["correct"] == 1.0
    far = "f" * 32
    assert _points(score_example(example, far))["ori"] == 0.0


def test_answer_cue_quotes_and_json_string_are_read(o200k) -> None:  # type: ignore[no-untyped-def]
    example = _example("single_query_id", o200k, fmt="quoted")
    gold = example.metadata["expected"][0]
    assert score_example(example, f'Output: "{gold}"').value == 1.0
    assert _points(score_example(example, json.dumps([gold])))["correct"] == 1.0


def test_multi_order_count_and_format(o200k) -> None:  # type: ignore[no-untyped-def]
    example = _example("multi_query_id", o200k)
    expected = list(example.metadata["expected"])
    swapped = _points(score_example(example, json.dumps(expected[::-1])))
    assert swapped["correct"] == 1.0 and swapped["num"] == 1.0 and swapped["order"] < 1.0
    missing = _points(score_example(example, json.dumps(expected[:-1])))
    assert missing["num"] < 1.0 and missing["correct"] < 1.0 and missing["format"] == 1.0
    as_lines = _points(score_example(example, "\n".join(expected)))
    assert as_lines["format"] == 0.0 and as_lines["correct"] == 1.0 and as_lines["order"] == 1.0
    wrapped = _points(score_example(example, "Here you go: " + json.dumps(expected)))
    assert wrapped["format"] == 0.5 and wrapped["correct"] == 1.0


@pytest.mark.parametrize("name", ["blur_offset_query_id", "blur_offset_query_element"])
def test_blur_accepts_any_entry_on_the_asked_side_only(name: str, o200k) -> None:  # type: ignore[no-untyped-def]
    example = _example(name, o200k, fmt="plain")
    lo, hi = example.metadata["allowed"]
    items = _items(example)
    inside = items[(lo + hi) // 2 - 1]
    assert score_example(example, inside).value == 1.0
    pivot = example.metadata["pivot"]
    outside = items[pivot - 1]  # the pivot itself is never allowed
    points = _points(score_example(example, outside))
    assert points["position"] == 0.0 and points["ori"] == 1.0


@pytest.mark.parametrize(
    "name",
    [
        "single_query_id",
        "multi_query_id",
        "offset_query_id",
        "offset_query_element",
        "blur_offset_query_id",
        "blur_offset_query_element",
    ],
)
def test_empty_is_unparsed_and_garbage_scores_low(name: str, o200k) -> None:  # type: ignore[no-untyped-def]
    example = _example(name, o200k)
    empty = score_example(example, "  \n")
    assert empty.status is ScoreStatus.UNPARSED and empty.value == 0.0
    assert all(p.earned == 0.0 for p in empty.points)
    garbage = score_example(example, "I am not sure, sorry. Maybe blue? 42.")
    assert garbage.value is not None and garbage.value < 0.5
    assert score_example(example, reference_answer(example)).value == 1.0


@pytest.mark.parametrize("name", ["single_query_id", "offset_query_id", "blur_offset_query_id"])
def test_answer_wrapped_in_prose_keeps_ori_and_correct_but_loses_format(name: str, o200k) -> None:  # type: ignore[no-untyped-def]
    example = _example(name, o200k, fmt="plain", uuid=True)
    expected = example.metadata["expected"][0]
    for output in (f"Here is the entry you asked for:\n{expected}", f"The answer is {expected}."):
        score = score_example(example, output)
        points = _points(score)
        assert points["format"] == 0.0
        assert points["ori"] == 1.0, score.explanation
        assert points.get("correct", points.get("position")) == 1.0, score.explanation
        assert score.extracted == (expected,)
