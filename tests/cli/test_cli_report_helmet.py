"""`lctui report --suite helmet` on a real DuckDB file: HELMET's seven categories and the
overall mean per model and length, in 80 columns and as JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.helmet_runs import HELMET_TASKS, write_helmet_run
from lctui.cli import main
from lctui.store import open_store


def _db(tmp_path: Path) -> Path:
    db = tmp_path / "helmet.duckdb"
    with open_store(db) as store:
        complete = {(t, 8192): [0.5] for t in HELMET_TASKS}
        write_helmet_run(store, "a-model-with-a-rather-long-name-7B-Instruct", complete)
        partial = {(t, 8192): [1.0] for t in HELMET_TASKS if t not in ("alce_asqa", "infbench_sum")}
        partial.update({(t, 16384): [1.0] for t in ("kilt_nq", "msmarco_rerank")})
        write_helmet_run(store, "b", partial)
        store.flush(force=True)
    return db


def test_table_fits_80_columns_and_marks_partial(tmp_path: Path) -> None:
    db = _db(tmp_path)
    env = {**os.environ, "COLUMNS": "80", "PYTHONPATH": str(Path("src").resolve())}
    proc = subprocess.run(
        [sys.executable, "-m", "lctui", "report", "--suite", "helmet", "--db", str(db)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    header = next(line for line in lines if "Recall" in line)
    assert header.split()[2:] == [
        "Recall",
        "RAG",
        "Cite",
        "Re-rank",
        "ICL",
        "LongQA",
        "Summ",
        "Overall",
    ]
    b8k, b16k = (line.split() for line in lines if line.startswith(" b "))
    assert b8k[1:] == [
        "8k",
        "100.0",
        "100.0",
        "100.0*",
        "100.0",
        "100.0",
        "100.0",
        "100.0*",
        "100.0*",
    ]
    assert b16k[1:] == ["16k", "-", "100.0*", "-", "100.0", "-", "-", "-", "100.0*"]
    assert "50.0 " in proc.stdout and "50.0*" not in proc.stdout  # the complete model
    assert "alce_asqa str_em" in proc.stdout and "never counted as 0" in proc.stdout
    assert "icl_nlu" not in proc.stdout  # a wholly missing category reads "-", not a list


def test_json_and_no_helmet_scores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = _db(tmp_path)
    assert (
        main(["report", "--suite", "helmet", "--db", str(db), "--model", "b", "--format", "json"])
        == 0
    )
    rows = json.loads(capsys.readouterr().out)
    assert [(r["model"], r["length"]) for r in rows] == [("b", 8192), ("b", 16384)]
    cite = rows[0]["categories"]["cite"]
    assert cite["partial"] and cite["missing"] == [
        "alce_asqa str_em",
        "alce_asqa citation_rec",
        "alce_asqa citation_prec",
    ]
    assert rows[0]["overall_partial"] and rows[0]["overall"] == pytest.approx(100)
    assert main(["report", "--suite", "helmet", "--db", str(db), "--model", "nobody"]) == 2
    assert "holds no scores of HELMET's tasks for nobody" in capsys.readouterr().err
