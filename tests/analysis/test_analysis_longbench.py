"""LongBench v2's table over stored answers: accuracy per group (overall, easy/hard,
short/medium/long, domain), compensated accuracy, unparsed and errors counted apart,
and `lctui report --suite longbench` printing it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers.longbench_data import longbench_rows, write_answered_run, write_longbench
from lctui.cli import main
from lctui.store import open_store
from lctui.suites.longbench.analysis import OVERALL, longbench_table
from lctui.tasks import get_task
from lctui.tasks.datasets import DataSource
from lctui.tasks.tokenizers import reference_tokenizer


@pytest.fixture(scope="module")
def answered_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """12 questions answered: right on 0-4, wrong on 5-7, unparsed on 8-9, errors 10-11."""
    folder = tmp_path_factory.mktemp("lb")
    write_longbench(folder, longbench_rows(12, words=(200,)))
    task = get_task("longbench_v2").with_data(DataSource(folder=folder))
    o200k = reference_tokenizer("o200k_base")
    examples = [task.generate(4096, 0, i, o200k) for i in range(12)]
    outputs = []
    for i, example in enumerate(examples):
        gold = example.gold[0]
        wrong = "ABCD"[("ABCD".index(gold) + 1) % 4]
        outputs.append(
            f"The correct answer is ({gold})"
            if i < 5
            else f"The correct answer is ({wrong})"
            if i < 8
            else "I cannot tell."
        )
    db = folder / "runs.duckdb"
    with open_store(db) as store:
        write_answered_run(store, examples, outputs, errors=(10, 11))
    return db


def test_accuracy_per_group_counts_unparsed_as_wrong_and_leaves_errors_out(
    answered_db: Path,
) -> None:
    with open_store(answered_db, read_only=True) as store:
        (row,) = longbench_table(store)
    rows = longbench_rows(12)
    assert (row.model, row.task, row.length, row.left_out) == ("answerer", "longbench_v2", 4096, 2)
    overall = row.groups[OVERALL]
    assert (overall.n, overall.unparsed, overall.accuracy) == (10, 2, 50.0)
    assert overall.compensated == 55.0  # (5 + 2 x 0.25) / 10
    for group in ("easy", "hard", "short", "medium", "long", *{r["domain"] for r in rows}):
        members = [
            i
            for i, r in enumerate(rows[:10])
            if group in (r["difficulty"], r["length"], r["domain"])
        ]
        right = sum(1 for i in members if i < 5)
        unparsed = sum(1 for i in members if i >= 8)
        assert row.groups[group].n == len(members)
        assert row.groups[group].accuracy == round(100 * right / len(members), 1)
        assert row.groups[group].compensated == round(
            100 * (right + 0.25 * unparsed) / len(members), 1
        )


def test_report_prints_the_table_and_its_json(
    answered_db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", "--suite", "longbench", "--db", str(answered_db)]) == 0
    shown = capsys.readouterr().out
    assert "LongBench v2, direct answer: accuracy (%)" in shown
    assert "50.0" in shown and "55.0" in shown and "+2 err" in shown
    assert (
        main(["report", "--suite", "longbench", "--db", str(answered_db), "--format", "json"]) == 0
    )
    (data,) = json.loads(capsys.readouterr().out)
    assert data["groups"]["overall"] == {
        "n": 10,
        "unparsed": 2,
        "accuracy": 50.0,
        "compensated": 55.0,
    }


def test_report_without_longbench_scores_says_how_to_get_some(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "empty.duckdb"
    with open_store(db):
        pass
    assert main(["report", "--suite", "longbench", "--db", str(db)]) != 0
    assert "lctui import longbench-results" in capsys.readouterr().err
