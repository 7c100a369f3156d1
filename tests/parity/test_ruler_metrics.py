"""RULER's metrics in lctui equal RULER's own, row by row (tests/parity/ruler_metrics.jsonl).

The fixture holds outputs we wrote for lctui's examples of every RULER task and the
score RULER's own code gave each (scripts/parity/ruler_metrics.py). RULER reports a row
as its share x 100 rounded to 2 decimals, and a task as the mean share x 100 rounded to
2 decimals: lctui's unrounded values, rounded the same way, must give those numbers.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from helpers.parity_fixtures import load_fixture
from lctui.core.types import Example
from lctui.scoring.metrics import string_match_all, string_match_part
from lctui.scoring.recall import score_recall
from lctui.tasks import get_task
from lctui.tasks.tokenizers import reference_tokenizer

FIXTURE = load_fixture("ruler_metrics")
ROWS = [row for row in FIXTURE.rows if "case" in row]
SUMMARIES = [row for row in FIXTURE.rows if "summary" in row]
METRICS = {"string_match_all": string_match_all, "string_match_part": string_match_part}
FROM_EXAMPLES = [row for row in ROWS if "length" in row]


def output_of(row: dict[str, Any]) -> str:
    if "output" in row:
        return str(row["output"])
    recipe = row["output_recipe"]
    return (
        str(recipe.get("first", "")) + recipe["repeat"] * recipe["times"] + recipe.get("then", "")
    )


@cache
def example_of(task: str, length: int, seed: int, index: int, tokenizer: str) -> Example:
    return get_task(task).generate(length, seed, index, reference_tokenizer(tokenizer))


def _example(row: dict[str, Any]) -> Example:
    return example_of(row["task"], row["length"], row["seed"], row["index"], row["tokenizer"])


def _row_id(row: dict[str, Any]) -> str:
    return f"{row['task']}-{row.get('length', '')}-{row.get('index', '')}-{row['case']}"


def test_the_fixture_names_ruler_and_reaches_every_branch() -> None:
    assert FIXTURE.repository == "NVIDIA/RULER"
    assert FIXTURE.commit == "c3f5e3b4f87f97e048793bb510a3a6b19a46bf3a"
    scores = {row["ruler"]["score_x100"] for row in ROWS}
    assert {0.0, 100.0} <= scores and any(0 < s < 100 for s in scores)  # partial credit
    assert any(row["ruler"]["null"] for row in ROWS)  # an output RULER counts as empty
    assert {row["ruler"]["metric"] for row in ROWS} == set(METRICS)
    tasks = {row["task"] for row in FROM_EXAMPLES}
    assert tasks == {t.name for t in (get_task(n) for n in tasks) if t.suite == "ruler"}
    assert len(tasks) == 11
    assert any(len(output_of(row)) > 100_000 for row in ROWS)


@pytest.mark.parametrize("row", ROWS, ids=_row_id)
def test_string_match_equals_ruler_on_every_row(row: dict[str, Any]) -> None:
    metric = METRICS[row["ruler"]["metric"]]
    value = metric(output_of(row), row["gold"])
    assert round(value * 100, 2) == row["ruler"]["score_x100"]


@pytest.mark.parametrize("summary", SUMMARIES, ids=lambda s: s["summary"])
def test_task_scores_equal_ruler_summary(summary: dict[str, Any]) -> None:
    rows = [row for row in ROWS if row["task"] == summary["summary"]]
    metric = METRICS[summary["ruler"]["metric"]]
    values = [metric(output_of(row), row["gold"]) for row in rows]
    assert len(values) == summary["ruler"]["rows"]
    assert round(sum(values) / len(values) * 100, 2) == summary["ruler"]["score_x100"]


@pytest.mark.parametrize("row", FROM_EXAMPLES, ids=_row_id)
def test_the_recall_scorer_gives_rulers_value_on_lctui_examples(row: dict[str, Any]) -> None:
    example = _example(row)
    assert list(example.gold) == row["gold"], (
        "the generator changed: regenerate the fixture with scripts/parity/ruler_metrics.py"
    )
    assert example.metadata["metric"] == row["ruler"]["metric"]
    score = score_recall(example, output_of(row))
    assert score.value is not None
    assert round(score.value * 100, 2) == row["ruler"]["score_x100"]


@pytest.mark.parametrize("row", FROM_EXAMPLES, ids=_row_id)
def test_the_explanation_agrees_with_rulers_count(row: dict[str, Any]) -> None:
    """Where the extraction's count of found golds differs from RULER's, the explanation
    names the golds the metric counts differently, so it never contradicts the value."""
    example = _example(row)
    score = score_recall(example, output_of(row))
    assert score.value is not None
    found = score.points[0].earned * len(set(g.lower() for g in example.gold))
    counted = score.value * len(example.gold)
    if round(found) != round(counted) and len(set(example.gold)) == len(example.gold):
        assert "the metric" in score.explanation, score.explanation
    # RULER counts an output as empty (its Nulls) after its clean-up; lctui says so too.
    empty = ("unparsed: the output is empty", "unparsed: the output holds only whitespace")
    assert score.explanation.startswith(empty) == row["ruler"]["null"], score.explanation
