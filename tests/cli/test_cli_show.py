"""`lctui show`: under each score, how the score relates to its rubric points."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from helpers.issue15_outputs import add_issue15_generation
from lctui.cli import main


def _gold_generation(db: Path, task: str) -> str:
    with duckdb.connect(str(db), read_only=True) as con:
        row = con.execute(
            "SELECT generation_id FROM results WHERE task = ? AND model = 'gold'", [task]
        ).fetchone()
    assert row is not None
    return str(row[0])


def _show(gid: str, db: Path, capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("COLUMNS", "400")  # table cells on one line each
        assert main(["show", gid, "--db", str(db)]) == 0
    return " ".join(capsys.readouterr().out.split())


def test_show_says_the_points_are_diagnostics_beside_the_metric(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "cwe.duckdb"
    args = ["run", "--model", "gold", "--tasks", "cwe", "--lengths", "1k", "--n", "1"]
    assert main([*args, "--db", str(db)]) == 0
    capsys.readouterr()
    gid = add_issue15_generation(db, _gold_generation(db, "cwe"))

    shown = _show(gid, db, capsys)

    assert "Score string_match_all = 0.100 (ok)" in shown
    assert (
        "score = RULER's string_match_all, the share of the 10 gold answers that occur in "
        "the output (case-insensitive substrings); the rubric points are diagnostics and do "
        "not add up to the score"
    ) in shown
    assert "output lists 3 words that were not asked for" in shown
    assert "every word" not in shown
    assert "fliers (38 times)" in shown


def test_show_says_a_lifeval_score_is_its_points(
    published_db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with duckdb.connect(str(published_db), read_only=True) as con:
        row = con.execute("SELECT generation_id FROM scores WHERE scorer = 'lifeval'").fetchone()
    assert row is not None
    shown = _show(str(row[0]), published_db, capsys)
    assert (
        "score = LIFEval's ARS, the earned weight of the rubric points over their total "
        "weight: the points are the score"
    ) in shown
    assert "diagnostics" not in shown


def test_show_says_when_the_example_text_is_not_stored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "no-example.duckdb"
    args = ["run", "--model", "gold", "--tasks", "niah_single_1", "--lengths", "1k", "--n", "1"]
    assert main([*args, "--db", str(db)]) == 0
    capsys.readouterr()
    gid = _gold_generation(db, "niah_single_1")
    with duckdb.connect(str(db)) as con:
        con.execute("DELETE FROM examples")

    shown = _show(gid, db, capsys)

    assert "the example's text is not stored in this results file" in shown
    assert "Output (ok)" in shown
