"""LongBench v2's answer reading and result table are the original's
(tests/parity/longbench_metrics.jsonl, made by THUDM/LongBench's own pred.py and result.py).

Answer rows: lctui reads the option each response names as pred.py's extract_answer
does (every branch: parentheses or bare, asterisks anywhere, several sentences, case,
letters outside A-D, look-alike characters, empty, very long), and scores it as its
judge; a response naming no option is `unparsed`, compensated 0.25. The original writes
no line for an empty response (it asks again on its next run); lctui scores it unparsed.

Set rows: each set's questions, answered with its responses and stored through the real
store as one model's run, give lctui's table the numbers result.py printed for the set's
file: Overall, Easy, Hard, Short, Medium, Long, plain and compensated. Where a set lacks
a group, result.py stops with a ZeroDivisionError and lctui shows the group as empty.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest

from helpers.longbench_data import expand_output, write_answered_run, write_longbench
from helpers.parity_fixtures import load_fixture
from lctui.core.types import Example, ScoreStatus
from lctui.store import open_store
from lctui.suites.longbench.analysis import LongBenchScores, longbench_table
from lctui.suites.longbench.scoring import GUESS_CREDIT, extract_choice, score_longbench
from lctui.tasks import get_task
from lctui.tasks.datasets import DataSource
from lctui.tasks.tokenizers import reference_tokenizer

FIXTURE = load_fixture("longbench_metrics")
ANSWERS = [row for row in FIXTURE.rows if row["kind"] == "answer"]
SETS = [row for row in FIXTURE.rows if row["kind"] == "set"]
COLUMNS = {"Overall": "overall", "Easy": "easy", "Hard": "hard"}
COLUMNS |= {"Short": "short", "Medium": "medium", "Long": "long"}
TASK = "longbench_v2_no_context"  # the scoring is the same in every mode; no context to cut


def _items() -> list[dict[str, Any]]:
    items = [row["item"] for row in ANSWERS]
    return items + [item for row in SETS for item in row["items"]]


@cache
def _examples(folder: Path) -> dict[str, Example]:
    """lctui's example of every fixture question, by the question's _id."""
    items = _items()
    write_longbench(folder, [{k: v for k, v in item.items() if k != "output"} for item in items])
    task = get_task(TASK).with_data(DataSource(folder=folder))
    o200k = reference_tokenizer("o200k_base")
    examples = [task.generate(4096, 0, i, o200k) for i in range(len(items))]
    return {str(e.metadata["longbench_id"]): e for e in examples}


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Example]:
    return _examples(tmp_path_factory.mktemp("longbench-metrics"))


def _check_answer(example: Example, output: str, pred: str | None, judge: bool) -> None:
    assert extract_choice(output) == pred, output[:200]
    score = score_longbench(example, output)
    assert score.value == float(judge)
    assert score.status == (ScoreStatus.UNPARSED if pred is None else ScoreStatus.OK)
    assert score.extras["compensated"] == (GUESS_CREDIT if pred is None else float(judge))


@pytest.mark.parametrize("row", ANSWERS, ids=[row["name"] for row in ANSWERS])
def test_each_response_names_the_option_the_original_reads(
    row: dict[str, Any], examples: dict[str, Example]
) -> None:
    example = examples[row["item"]["_id"]]
    assert example.gold == (row["item"]["answer"],)
    output = expand_output(row["output"])
    if row["written"]:
        _check_answer(example, output, row["pred"], row["judge"])
    else:  # the original drops an empty response; lctui keeps it as unparsed
        assert output == ""
        _check_answer(example, output, None, False)


def test_the_answers_reach_every_branch_of_the_reading() -> None:
    preds = [row.get("pred") for row in ANSWERS if row["written"]]
    judges = [row["judge"] for row in ANSWERS if row["written"]]
    assert set(preds) == {"A", "B", "C", "D", None} and set(judges) == {True, False}
    assert [row["name"] for row in ANSWERS if not row["written"]] == ["empty"]
    assert any(len(expand_output(row["output"])) > 20_000 for row in ANSWERS)


@pytest.fixture(scope="module")
def tables(
    tmp_path_factory: pytest.TempPathFactory, examples: dict[str, Example]
) -> dict[str, LongBenchScores]:
    """lctui's table of every set, each stored as the run of a model named after it."""
    db = tmp_path_factory.mktemp("longbench-sets") / "runs.duckdb"
    with open_store(db) as store:
        for row in SETS:
            asked = [examples[item["_id"]] for item in row["items"]]
            outputs = [item["output"] for item in row["items"]]
            write_answered_run(store, asked, outputs, model=row["name"], run_id=row["name"])
    with open_store(db, read_only=True) as store:
        return {scores.model: scores for scores in longbench_table(store)}


@pytest.mark.parametrize("row", SETS, ids=[row["name"] for row in SETS])
def test_each_sets_table_is_what_result_py_printed(
    row: dict[str, Any], examples: dict[str, Example], tables: dict[str, LongBenchScores]
) -> None:
    for item, pred, judge in zip(row["items"], row["preds"], row["judges"], strict=True):
        _check_answer(examples[item["_id"]], item["output"], pred, judge)
    scores = tables[row["name"]]
    assert (scores.task, scores.left_out, scores.overall.n) == (TASK, 0, len(row["items"]))
    for flag in ("plain", "compensated"):
        if "error" in row[flag]:  # result.py divided by an empty group
            assert row[flag] == {"error": "ZeroDivisionError"}
            missing = [group for group in COLUMNS.values() if group not in scores.groups]
            assert missing, "the original stopped on an empty group; lctui has them all"
            continue
        ours = {
            column: getattr(scores.groups[group], "accuracy" if flag == "plain" else flag)
            for column, group in COLUMNS.items()
        }
        assert ours == row[flag], flag


def test_the_sets_cover_every_group_and_the_releases_shape() -> None:
    items = [item for row in SETS for item in row["items"]]
    assert {i["domain"] for i in items} == {
        "Single-Document QA",
        "Multi-Document QA",
        "Long In-context Learning",
        "Long-dialogue History Understanding",
        "Code Repository Understanding",
        "Long Structured Data Understanding",
    }
    assert {i["difficulty"] for i in items} == {"easy", "hard"}
    assert {i["length"] for i in items} == {"short", "medium", "long"}
    assert max(len(row["items"]) for row in SETS) == 503
    assert sum("error" in row["plain"] for row in SETS) == 2
