"""LIFEval metrics and the score import on small hand-checked folders."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from helpers.lifbench_data import write_csv
from lctui.cli import main
from lctui.store import open_store
from lctui.suites.lifbench.analysis.metrics import lifbench_reports
from lctui.suites.lifbench.importer import LifbenchImportError, import_lifbench_scores

QA_HEADER = ("model", "ins_id", "param_id", "length", "correct", "format", "total_score")
OFFSET_HEADER = ("model", "ins_id", "param_id", "length", "format", "correct", "ori", "total_score")
TABLES = ("models", "runs", "examples", "generations", "scores", "rubric_points")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """qa (correct 3 Logic, format 2 Fmt): ARS 1, 0.4, 0.6, 0 on a 2x2 grid of levels;
    offset_query_id (format 1 Fmt, correct 2 Recog+Spat, ori 1 Ori): one response, 0.75."""
    root = tmp_path / "scores"
    root.mkdir()
    write_csv(
        root / "onedoc-qa.csv",
        QA_HEADER,
        [
            ("m", 0, 0, 3, 1.0, 1.0, 1.0),
            ("m", 1, 0, 3, 0.0, 1.0, 0.4),
            ("m", 0, 1, 6, 1.0, 0.0, 0.6),
            ("m", 1, 1, 6, 0.0, 0.0, 0.0),
        ],
    )
    write_csv(root / "list-offset_query_id.csv", OFFSET_HEADER, [("m", 0, 0, 3, 1, 1, 0, 0.75)])
    return root


def test_hand_checked_ars_ifp_ifs(folder: Path) -> None:
    with open_store(":memory:") as store:
        import_lifbench_scores(store, folder)
        (report,) = lifbench_reports(store)
    assert report.ars_by_task == pytest.approx({"qa": 0.5, "offset_query_id": 0.75})
    assert report.ars == pytest.approx((5 * 0.5 + 4 * 0.75) / 9)
    # Length 3: qa 0.7, offset 0.75; length 6: qa 0.3 alone.
    assert report.ars_by_length == pytest.approx({3: (5 * 0.7 + 4 * 0.75) / 9, 6: 0.3})
    # Fmt: qa's format earns 2 * 0.5 of 2, offset's 1 of 1; correct counts for Recog and Spat.
    assert report.ifp == pytest.approx(
        {"logic": 0.5, "fmt": 2 / 3, "recog": 1.0, "spat": 1.0, "ori": 0.0, "num": None}
    )
    # qa per-level means: expression 0.8 / 0.2, variable and length 0.7 / 0.3; the offset
    # task has one level only, so its CV is undefined and it is left out of the mean.
    cv_expression = math.sqrt(2 * 0.3**2) / 0.5
    cv_variable = math.sqrt(2 * 0.2**2) / 0.5
    assert report.ifs == pytest.approx(
        {
            "expression": cv_expression,
            "variable": cv_variable,
            "length": cv_variable,
            "mean": (cv_expression + 2 * cv_variable) / 3,
        }
    )


def test_reimport_adds_nothing(folder: Path, tmp_path: Path) -> None:
    with open_store(tmp_path / "db.duckdb") as store:
        first = import_lifbench_scores(store, folder)
        cur = store.cursor()
        before = {t: cur.execute(f"SELECT count(*) FROM {t}").fetchone() for t in TABLES}
        again = import_lifbench_scores(store, folder)
        after = {t: cur.execute(f"SELECT count(*) FROM {t}").fetchone() for t in TABLES}
    assert (first.added, again.added) == (5, 0)
    assert after == before


@pytest.mark.parametrize(
    ("name", "header", "row", "message"),
    [
        ("onedoc-qaa.csv", QA_HEADER, ("m", 0, 0, 3, 1, 1, 1), "not a LIFBench score file name"),
        ("list-qa.csv", QA_HEADER, ("m", 0, 0, 3, 1, 1, 1), "not a LIFBench score file name"),
        ("onedoc-qa.csv", QA_HEADER[:-2] + QA_HEADER[-1:], ("m", 0, 0, 3, 1, 1), "missing column"),
        ("onedoc-qa.csv", QA_HEADER, ("m", 0, 0, 3, 1.5, 1, 1), "row 2, column 'correct'"),
        ("onedoc-qa.csv", QA_HEADER, ("m", 0, 0, 3, 1, -0.1, 1), "row 2, column 'format'"),
        ("onedoc-qa.csv", QA_HEADER, ("m", 0, 0, 3, 1, "x", 1), "'x' is not a number"),
        ("onedoc-qa.csv", QA_HEADER, ("m", "a", 0, 3, 1, 1, 1), "column 'ins_id'"),
    ],
)
def test_malformed_files_are_named(
    tmp_path: Path, name: str, header: tuple[str, ...], row: tuple[object, ...], message: str
) -> None:
    root = tmp_path / "bad"
    root.mkdir()
    write_csv(root / name, header, [row])
    with open_store(":memory:") as store:
        with pytest.raises(LifbenchImportError, match=message) as info:
            import_lifbench_scores(store, root)
        assert name in str(info.value)
        count = store.cursor().execute("SELECT count(*) FROM generations").fetchone()
    assert count == (0,)


def test_duplicate_rows_are_refused(tmp_path: Path) -> None:
    root = tmp_path / "dup"
    root.mkdir()
    write_csv(root / "onedoc-qa.csv", QA_HEADER, [("m", 0, 0, 3, 1, 1, 1)] * 2)
    with open_store(":memory:") as store, pytest.raises(LifbenchImportError, match="row 3"):
        import_lifbench_scores(store, root)


def test_cli_import_and_report(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "cli.duckdb")
    assert main(["import", "lifbench-scores", str(folder), "--db", db]) == 0
    assert "Imported 5 new response(s)" in capsys.readouterr().out
    assert main(["report", "--db", db, "--format", "json", "--model", "m"]) == 0
    (entry,) = json.loads(capsys.readouterr().out)
    assert set(entry) == {"model", "ars", "ars_by_task", "ars_by_length", "ifp", "ifs"}
    assert entry["ars_by_length"]["6"] == pytest.approx(0.3)
    assert set(entry["ifs"]) == {"expression", "variable", "length", "mean"}
    assert main(["report", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "LIFEval ARS" in out and "LIFEval IFS" in out
    assert main(["report", "--db", db, "--model", "nobody"]) == 2
    assert "no lifeval scores for nobody" in capsys.readouterr().err
