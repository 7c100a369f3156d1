"""LIFEval's List points equal the original's on every fixture row.

The fixtures (tests/parity/lifeval_<task>.jsonl, made by scripts/parity/lifeval_list.py)
hold, for lctui's List examples and outputs written to reach every branch of the
original's rules, the point fractions and total that LIFBench's own
evaluation/EvaluateFunc.py computed. Each row's example is rebuilt from its name and
checked against the stored id, then scored by lctui's rubric: every point's fraction
and the response's total must equal the original's (to 1e-9).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from helpers.parity_fixtures import load_fixture
from lctui.core.types import Example, Score, ScoreStatus
from lctui.scoring import score_example
from lctui.tasks import get_task
from lctui.tasks.tokenizers import reference_tokenizer

TASKS = (
    "single_query_id",
    "multi_query_id",
    "offset_query_id",
    "offset_query_element",
    "blur_offset_query_id",
    "blur_offset_query_element",
)
TOLERANCE = 1e-9


@cache
def _example(task: str, length: int, seed: int, index: int, tokenizer: str) -> Example:
    return get_task(f"lifbench_{task}").generate(
        length, seed, index, reference_tokenizer(tokenizer)
    )


def _disagreements(row: dict[str, Any], score: Score) -> list[str]:
    """What differs between lctui's score and the original's numbers for `row`."""
    original = row["original"]
    ours = {p.name: p.earned for p in score.points}
    out = []
    if set(ours) != set(original["points"]):
        out.append(f"points {sorted(ours)} vs {sorted(original['points'])}")
    for name, fraction in original["points"].items():
        if abs(ours.get(name, -1.0) - fraction) > TOLERANCE:
            out.append(f"{name} {ours.get(name)} vs {fraction}")
    if score.value is None or abs(score.value - original["total"]) > TOLERANCE:
        out.append(f"total {score.value} vs {original['total']}")
    return out


@pytest.mark.parametrize("task", TASKS)
def test_every_point_and_total_equal_the_originals(task: str) -> None:
    fixture = load_fixture(f"lifeval_{task}")
    assert fixture.repository == "SheldonWu0327/LIFBench-2024"
    cases = {row["case"] for row in fixture.rows}
    assert {"right", "empty", "whitespace", "trailing_backslash"} <= cases
    failures = []
    for row in fixture.rows:
        assert row["task"] == task
        key = (task, row["length"], row["seed"], row["index"], row["tokenizer"])
        example = _example(*key)
        assert example.example_id == row["example_id"], (
            f"{key}: lctui now builds another example; regenerate the fixture "
            "(scripts/parity/lifeval_list.py)"
        )
        score = score_example(example, row["output"])
        if problems := _disagreements(row, score):
            failures.append(f"{key} {row['case']}: {'; '.join(problems)}")
    assert not failures, f"{len(failures)} of {len(fixture.rows)} rows differ:\n" + "\n".join(
        failures[:20]
    )


def test_the_rows_where_the_original_crashes_are_marked_and_explained() -> None:
    fixture = load_fixture("lifeval_multi_query_id")
    crashed = [row for row in fixture.rows if row.get("original_error")]
    assert {row["case"] for row in crashed} == {
        "trailing_backslash",
        "bad_hex_escape",
        "deep_brackets",
    }
    for row in crashed:
        example = _example("multi_query_id", row["length"], row["seed"], row["index"], "o200k_base")
        score = score_example(example, row["output"])
        assert score.status is ScoreStatus.OK
        if row["original_error"].startswith("UnicodeDecodeError"):
            assert "the original cannot decode" in score.explanation, score.explanation


@pytest.mark.parametrize("task", TASKS)
def test_the_reference_scores_one_on_every_fixture_example(task: str) -> None:
    fixture = load_fixture(f"lifeval_{task}")
    rights = [row for row in fixture.rows if row["case"] == "right"]
    assert rights
    for row in rights:
        assert row["original"]["total"] == 1.0, row
