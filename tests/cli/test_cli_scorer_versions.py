"""Scores made by an older scorer version on the command line: `lctui run`, `report`,
`compare`, `correlate` and `export-report` name the runs and `lctui rescore --run ID`;
`lctui rescore --outdated` scores exactly those again, keeping the old rows."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from helpers.gold_runs import two_gold_runs
from helpers.lifbench_data import write_csv
from helpers.outdated_runs import bump, run_ids, stored_versions
from helpers.unscored_runs import RUN_ARGS, delete_scores
from lctui.cli import main
from lctui.store.derived import refresh_derived


def _warnings(err: str) -> list[str]:
    """The warning lines of stderr, without their `Warning: `."""
    return [line[9:] for line in err.splitlines() if line.startswith("Warning: ")]


def test_run_table_marks_and_warns_about_an_older_scorer_version(
    db: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (run_id,) = run_ids(db)
    capsys.readouterr()
    assert main([*RUN_ARGS, "--n", "3", "--db", str(db)]) == 0  # all stored: nothing to do
    assert _warnings(capsys.readouterr().err) == []
    newer = bump(monkeypatch)
    assert main([*RUN_ARGS, "--n", "3", "--db", str(db)]) == 0
    out, err = capsys.readouterr()
    vt = next(line for line in out.splitlines() if " vt " in line)
    assert "1.00 n=3 3 outdated" in vt
    (warning,) = _warnings(err)
    assert (
        f"6 score(s) were made by an older version of their scorer (recall v{newer - 1}, "
        f"now v{newer}): 6 in run {run_id}." in warning
    )
    assert f"`lctui rescore --run {run_id} --db {db}` re-scores them" in warning


def test_rescore_outdated_scores_exactly_those_and_keeps_the_old_rows(
    db: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    old = bump(monkeypatch) - 1
    capsys.readouterr()
    assert main(["rescore", "--outdated", "--tasks", "vt", "--db", str(db)]) == 0
    out, err = capsys.readouterr()
    assert "Scoring 3 generation(s) scored by an older version of their scorer" in out
    assert "Scored 3 of 3 generation(s)." in out
    assert "1.00 n=3" in out and " outdated" not in out and _warnings(err) == []
    assert stored_versions(db) == {
        ("recall", old, True): 3,  # niah_single_1, not asked for
        ("recall", old, False): 3,  # vt's old rows: kept, superseded
        ("recall", old + 1, True): 3,  # vt's new rows, the latest
    }
    # The old scores' rubric points stay with them, superseded too.
    assert stored_versions(db, "rubric_points") == {
        ("recall", old, True): 9,
        ("recall", old, False): 9,
        ("recall", old + 1, True): 9,
    }
    assert main(["rescore", "--outdated", "--db", str(db)]) == 0
    assert "Scoring 3 generation(s) scored by an older version" in capsys.readouterr().out
    assert main(["rescore", "--outdated", "--db", str(db)]) == 0
    assert "Nothing to score: no generation scored by an older scorer version" in (
        capsys.readouterr().out
    )
    assert main([*RUN_ARGS, "--n", "3", "--db", str(db)]) == 0
    out, err = capsys.readouterr()
    assert " outdated" not in out and _warnings(err) == []  # the flags are gone


def test_rescore_without_a_flag_scores_the_missing_and_the_outdated(
    db: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    delete_scores(db, "task = 'vt'")
    bump(monkeypatch)
    capsys.readouterr()
    assert main(["rescore", "--missing", "--db", str(db)]) == 0
    out, err = capsys.readouterr()
    assert "Scoring 3 generation(s) that have no score" in out
    assert "vt   │ 1.00 n=3 │" in out and _warnings(err) == []  # scored now
    assert main([*RUN_ARGS, "--n", "3", "--db", str(db)]) == 0
    out, err = capsys.readouterr()
    assert "1.00 n=3 3 outdated" in out  # niah_single_1 was left as it was
    assert "3 score(s) were made by an older version" in _warnings(err)[0]
    delete_scores(db, "task = 'vt'")
    assert main(["rescore", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert (
        "Scoring 6 generation(s): 3 that have no score and 3 scored by an older version of "
        "their scorer" in out
    )
    assert "Scored 6 of 6 generation(s)." in out and " outdated" not in out


QA_HEADER = ("model", "ins_id", "param_id", "length", "correct", "format", "total_score")


def test_report_names_lifeval_runs_of_an_older_version_not_published_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "lifeval.duckdb"
    folder = tmp_path / "published"
    folder.mkdir()
    write_csv(folder / "onedoc-qa.csv", QA_HEADER, [("m", 0, 0, 3, 1.0, 1.0, 1.0)])
    assert main(["import", "lifbench-scores", str(folder), "--db", str(db)]) == 0
    run = ["run", "--model", "gold", "--tasks", "lifbench_qa", "--lengths", "2k", "--n", "2"]
    assert main([*run, "--db", str(db)]) == 0
    gold_run_id = run_ids(db)[-1]
    capsys.readouterr()
    assert main(["report", "--db", str(db)]) == 0
    assert _warnings(capsys.readouterr().err) == []
    bump(monkeypatch, "lifeval")
    assert main(["report", "--db", str(db), "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert {r["model"] for r in json.loads(out)} == {"gold", "m"}  # stdout stays JSON
    (warning,) = _warnings(err)
    assert "2 score(s) were made by an older version of their scorer (lifeval v" in warning
    assert f"2 in run {gold_run_id}." in warning and "lifbench-" not in warning
    assert main(["rescore", "--all", "--db", str(db)]) == 0  # the published: never re-scored
    assert "Scoring 2 generation(s) in" in capsys.readouterr().out
    assert main(["report", "--db", str(db)]) == 0
    assert _warnings(capsys.readouterr().err) == []


@pytest.fixture
def two_runs(tmp_path: Path) -> tuple[Path, str, str]:
    db, run_a, run_b = two_gold_runs(tmp_path, 3)
    return db, run_a, run_b


def test_compare_says_which_side_an_older_version_scored(
    two_runs: tuple[Path, str, str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    db, run_a, run_b = two_runs
    bump(monkeypatch)
    assert main(["rescore", "--run", run_b, "--db", str(db)]) == 0  # B scored again, A not
    capsys.readouterr()
    a, b = f"run:{run_a}", f"run:{run_b}"
    assert main(["compare", a, b, "--db", str(db), "--format", "json"]) == 0  # refuses nothing
    out, err = capsys.readouterr()
    result = json.loads(out)
    assert result["outdated"] == {"a": {run_a: 3}, "b": {}}
    assert result["cells"][0]["n"] == 3
    (warning,) = _warnings(err)
    assert warning.startswith(f"side A ({a}): 3 score(s) were made by an older version")
    assert f"`lctui rescore --run {run_a} --db {db}`" in warning
    assert main(["compare", a, b, "--db", str(db), "--format", "md"]) == 0
    out, err = capsys.readouterr()
    assert f"Warning: side A ({a}): 3 score(s)" in out and len(_warnings(err)) == 1
    assert main(["compare", b, a, "--db", str(db)]) == 0
    assert _warnings(capsys.readouterr().err)[0].startswith(f"side B ({a}): 3 score(s)")
    assert main(["rescore", "--run", run_a, "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["compare", a, b, "--db", str(db), "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert "outdated" not in json.loads(out) and _warnings(err) == []


def test_export_report_of_a_run_carries_the_warning(
    db: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (run_id,) = run_ids(db)
    bump(monkeypatch)
    report = tmp_path / "report.md"
    capsys.readouterr()
    assert main(["export-report", "--db", str(db), "--out", str(report)]) == 0
    text = report.read_text(encoding="utf-8")
    (warning,) = _warnings(capsys.readouterr().err)
    assert f"6 in run {run_id}" in warning
    assert f"Warning: {warning}" in text  # the report says so as well as the terminal
    assert main(["export-report", "--db", str(db), "--html", "--out", str(report)]) == 0
    html = report.read_text()
    assert '<p class="warning">Warning: 6 score(s) were made by an older version' in html
    assert main(["rescore", "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["export-report", "--db", str(db), "--out", str(report)]) == 0
    assert "Warning" not in report.read_text() and _warnings(capsys.readouterr().err) == []


def _three_models(db: Path) -> list[str]:
    """Three gold runs (seeds 0-2) recorded as three models that are not references, as
    three real models would be: correlations leave reference models out."""
    for seed in ("1", "2"):
        assert main([*RUN_ARGS, "--n", "3", "--seed", seed, "--db", str(db)]) == 0
    runs = run_ids(db)
    con = duckdb.connect(str(db))
    try:
        for i, run_id in enumerate(runs):
            con.execute(
                "INSERT INTO models SELECT * REPLACE ($id AS model_id, $id AS name, "
                "false AS reference) FROM models WHERE name = 'gold'",
                {"id": f"model-{i}"},
            )
            con.execute(
                "UPDATE generations SET model_id = ? WHERE run_id = ?", [f"model-{i}", run_id]
            )
        # rows changed by hand: what the writer keeps on write (store/result_cells.py)
        refresh_derived(con)
    finally:
        con.close()
    return runs


def test_correlate_and_its_report_name_the_runs_of_an_older_version(
    db: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    runs = _three_models(db)
    bump(monkeypatch)
    assert main(["rescore", "--run", runs[2], "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["correlate", "--db", str(db), "--min-models", "3", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["models"] == ["model-0", "model-1", "model-2"]
    (warning,) = _warnings(err)
    assert "12 score(s) were made by an older version" in warning
    assert f"6 in run {runs[0]}, 6 in run {runs[1]}." in warning
    assert f"`lctui rescore --run {runs[0]} --db {db}`, `lctui rescore --run {runs[1]}" in warning
    report = tmp_path / "corr.md"
    assert main(["export-report", "--correlate", "--min-models", "3", "--db", str(db),
                 "--out", str(report)]) == 0  # fmt: skip
    assert f"Warning: {warning}" in report.read_text(encoding="utf-8")
