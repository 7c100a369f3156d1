"""`lctui compare`, `lctui correlate` and `lctui export-report` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from helpers.gold_runs import two_gold_runs
from lctui.cli import main
from lctui.store.derived import refresh_derived


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """Two gold runs of 6 examples; B is made wrong on the first two."""
    db, run_a, run_b = two_gold_runs(tmp_path_factory.mktemp("cli-compare"), 6)
    con = duckdb.connect(str(db))
    con.execute(
        "UPDATE scores SET value = 0 WHERE generation_id IN (SELECT generation_id FROM "
        "generations WHERE run_id = ? ORDER BY example_id LIMIT 2)",
        [run_b],
    )
    # rows changed by hand: what the writer keeps on write (store/result_cells.py)
    refresh_derived(con)
    con.close()
    return db, f"run:{run_a}", f"run:{run_b}"


def test_compare_json_is_the_issue_shape(
    two_runs: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    db, a, b = two_runs
    assert main(["compare", a, b, "--db", str(db), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"a", "b", "unmatched", "cells"}
    assert out["unmatched"] == {
        "only_a": 0,
        "only_b": 0,
        "errors_a": 0,
        "errors_b": 0,
        "unscored_a": 0,
        "unscored_b": 0,
    }
    (cell,) = out["cells"]
    assert {k: cell[k] for k in ("task", "length", "n", "mean_a", "test")} == {
        "task": "niah_single_1",
        "length": 1024,
        "n": 6,
        "mean_a": 1.0,
        "test": "mcnemar",
    }
    assert cell["mean_b"] == pytest.approx(4 / 6)
    assert cell["diff"] == pytest.approx(2 / 6) and cell["p"] == pytest.approx(0.5)
    assert len(cell["ci"]) == 2 and -1 <= cell["ci"][0] < 2 / 6 < cell["ci"][1] <= 1


def test_compare_table_and_markdown(
    two_runs: tuple[Path, str, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    db, a, b = two_runs
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["compare", a, b, "--db", str(db)]) == 0
    table = capsys.readouterr().out
    assert "niah_single_1" in table and "mcnemar" in table and "+0.333" in table
    assert "changed (|A - B| >= 0.5): 2 A better, 0 B better" in table
    out = tmp_path / "ab.md"
    assert main(["compare", a, b, "--db", str(db), "--format", "md", "--out", str(out)]) == 0
    markdown = out.read_text(encoding="utf-8")
    assert "| task | length | n | A | B | A - B | 95% CI | test | p |" in markdown
    assert "| niah_single_1 | 1k | 6 | 1.000 | 0.667 | +0.333 |" in markdown
    assert "Newcombe's interval for paired proportions" in markdown


def test_two_pairs_print_too_few_pairs_instead_of_an_impossible_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue's cell: n = 2, A 1.000, B 0.500. A t interval read [-5.853, +6.853];
    a difference of scores in [0, 1] lies in [-1, 1], and 2 pairs give no interval."""
    db, run_a, run_b = two_gold_runs(tmp_path, 2)
    con = duckdb.connect(str(db))
    con.execute(
        "UPDATE scores SET value = 0 WHERE generation_id IN (SELECT generation_id FROM "
        "generations WHERE run_id = ? ORDER BY example_id LIMIT 1)",
        [run_b],
    )
    refresh_derived(con)  # rows changed by hand
    con.close()
    monkeypatch.setenv("COLUMNS", "200")
    capsys.readouterr()  # the runs' own output
    a, b = f"run:{run_a}", f"run:{run_b}"
    assert main(["compare", a, b, "--db", str(db)]) == 0
    table = capsys.readouterr().out
    row = next(line for line in table.splitlines() if "niah_single_1" in line)
    assert "+0.500" in row and "too few pairs" in row and "[" not in row
    assert "too few pairs: no interval below 5 pairs, for niah_single_1 @ 1k (n = 2)" in table
    assert "both sides are gold" in table
    assert main(["compare", a, b, "--db", str(db), "--format", "json"]) == 0
    (cell,) = json.loads(capsys.readouterr().out)["cells"]
    assert cell["n"] == 2 and cell["ci"] == [None, None]
    out = tmp_path / "ab.md"
    assert main(["compare", a, b, "--db", str(db), "--format", "md", "--out", str(out)]) == 0
    markdown = out.read_text(encoding="utf-8")
    assert "| niah_single_1 | 1k | 2 | 1.000 | 0.500 | +0.500 | too few pairs |" in markdown


def test_bad_sides_exit_2_with_a_clear_message(
    two_runs: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    db, a, _ = two_runs
    assert main(["compare", a, "nope", "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert "no model 'nope' in the database (models: gold)" in err
    assert "Traceback" not in err
    assert main(["compare", "run:xyz", a, "--db", str(db)]) == 2
    assert "no generations of run 'xyz'" in capsys.readouterr().err


def test_correlate_with_too_few_models_says_so(
    two_runs: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    db, _, _ = two_runs
    assert main(["correlate", "--db", str(db), "--length", "1k"]) == 2
    err = capsys.readouterr().err
    assert "only 0 model(s) have scores at 1k" in err and "at least 5" in err


def test_export_report_goes_to_the_exports_folder_unless_out_names_a_file(
    two_runs: tuple[Path, str, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db, _, b = two_runs
    run_b = b.removeprefix("run:")
    assert main(["export-report", "--db", str(db), "--run", run_b]) == 0
    out, err = capsys.readouterr()
    (written,) = (tmp_path / "data" / "exports").glob(f"run-{run_b.replace('-', '_')}-*.md")
    assert out == "" and f"wrote {written}" in err  # where it went, said on stderr
    markdown = written.read_text(encoding="utf-8")
    assert f"## Run {run_b}" in markdown
    assert "| gold (reference) | niah_single_1 | 0.67 n=6 |" in markdown
    assert main(["export-report", "--db", str(db), "--run", run_b, "--out", "-"]) == 0
    assert capsys.readouterr().out == markdown  # `--out -` prints the same report
    out_file = tmp_path / "run.html"
    assert (
        main(["export-report", "--db", str(db), "--run", run_b, "--html", "--out", str(out_file)])
        == 0
    )
    page = out_file.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "background:#" in page and "0.67 n=6" in page
    assert main(["export-report", "--db", str(db), "--run", "nope"]) == 2
    assert "no run 'nope'" in capsys.readouterr().err
