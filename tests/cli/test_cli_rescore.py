"""Missing scores on the command line: `lctui run`'s table, `show`, `compare` and
`report` say "not scored" (never 0.00), and `lctui rescore` scores them again."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest

from helpers.gold_runs import two_gold_runs
from helpers.unscored_runs import RUN_ARGS, delete_scores, score_count
from lctui.cli import main
from lctui.store import cell_scores, open_store


def _means(db: Path) -> dict[str, tuple[float | None, int]]:
    with open_store(db, read_only=True) as store:
        return {c.task: (c.mean_score, c.n_unscored) for c in cell_scores(store)}


def test_run_table_shows_missing_scores_as_not_scored(
    db: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The hint quotes the database's whole path: on one line however deep the temporary
    # folder is (a pytest-xdist worker's is a level deeper).
    monkeypatch.setenv("COLUMNS", "1000")
    delete_scores(db, "task = 'vt'")
    capsys.readouterr()
    assert main([*RUN_ARGS, "--n", "3", "--db", str(db)]) == 0  # all stored: nothing to do
    out = capsys.readouterr().out
    assert "Nothing to do" in out
    vt = next(line for line in out.splitlines() if " vt " in line)
    assert "- n=0 3 not scored" in vt and "0.00" not in vt
    assert "1.00 n=3" in next(line for line in out.splitlines() if "niah_single_1" in line)
    assert "3 generation(s) have no score" in out and f"lctui rescore --db {db}" in out


def test_rescore_scores_every_missing_score_again(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    delete_scores(db)
    assert _means(db) == {"niah_single_1": (None, 3), "vt": (None, 3)}
    capsys.readouterr()
    assert main(["rescore", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "Scoring 6 generation(s) that have no score" in out
    assert "Scored 6 of 6 generation(s)." in out
    assert "1.00 n=3" in out and "not scored" not in out
    assert _means(db) == {"niah_single_1": (1.0, 0), "vt": (1.0, 0)}  # gold reads 1.0 again
    assert score_count(db) == 6
    assert main(["rescore", "--db", str(db)]) == 0
    assert "Nothing to score: no generation without a score" in capsys.readouterr().out


def test_rescore_filters_and_all(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    delete_scores(db)
    assert main(["rescore", "--db", str(db), "--tasks", "vt", "--lengths", "1k"]) == 0
    assert _means(db) == {"niah_single_1": (None, 3), "vt": (1.0, 0)}
    assert main(["rescore", "--db", str(db), "--run", "no-such-run"]) == 0
    assert main(["rescore", "--db", str(db), "--model", "someone-else"]) == 0
    assert _means(db)["niah_single_1"] == (None, 3)
    assert main(["rescore", "--db", str(db), "--all", "--model", "gold"]) == 0
    assert "Scored 6 of 6" in capsys.readouterr().out
    assert score_count(db) == 9  # vt's three, then all six again (the latest is shown)
    assert _means(db) == {"niah_single_1": (1.0, 0), "vt": (1.0, 0)}


def test_rescore_counts_what_it_cannot_score(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    delete_scores(db, "task = 'vt'")
    with duckdb.connect(str(db)) as con:
        con.execute(
            "DELETE FROM examples WHERE example_id = "
            "(SELECT min(example_id) FROM generations WHERE task = 'vt')"
        )
    capsys.readouterr()
    assert main(["rescore", "--db", str(db)]) == 1
    out = capsys.readouterr().out
    assert "Scored 2 of 3 generation(s); 1 have no stored example" in out
    assert _means(db)["vt"] == (1.0, 1)


def test_rescore_of_a_file_that_does_not_exist(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nowhere.duckdb"
    assert main(["rescore", "--db", str(missing)]) == 2
    assert "no results file at" in capsys.readouterr().err
    assert not missing.exists()


def test_show_says_not_scored(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    delete_scores(db, "task = 'vt'")
    with duckdb.connect(str(db), read_only=True) as con:
        row = con.execute("SELECT min(generation_id) FROM generations WHERE task = 'vt'").fetchone()
    assert row is not None
    capsys.readouterr()
    assert main(["show", str(row[0]), "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "Score not scored: no score is stored for this output" in out


def test_compare_says_how_many_missing_scores_it_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    db, run_a, run_b = two_gold_runs(tmp_path, 4)
    a, b = f"run:{run_a}", f"run:{run_b}"
    delete_scores(
        db, "run_id = ? AND example_id IN (SELECT min(example_id) FROM examples)", [run_b]
    )
    capsys.readouterr()
    assert main(["compare", a, b, "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "0 not scored in A, 1 not scored in B" in out
    assert main(["compare", a, b, "--db", str(db), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["unmatched"]["unscored_b"] == 1 and out["cells"][0]["n"] == 3
    delete_scores(db, "run_id = ?", [run_b])
    assert main(["compare", a, b, "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert f"(4 not scored on {b})" in err and "lctui rescore scores the missing ones" in err


def test_report_counts_lifeval_responses_without_a_score(
    _published_lifbench_template: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "published.duckdb"
    shutil.copy(_published_lifbench_template, db)
    where = "model_id IN (SELECT model_id FROM models WHERE name = ?) AND task = 'qa'"
    lost = delete_scores(db, where, ["Qwen2.5-7B"])
    capsys.readouterr()
    assert main(["report", "--db", str(db), "--model", "Qwen2.5-7B"]) == 0
    out = capsys.readouterr().out
    assert f"Qwen2.5-7B: {lost} response(s) have no score" in out
