"""Ctrl-C and kill -9 in the middle of a run: finished work is kept, a rerun completes it.

These run the real `lctui` command in a subprocess on the gold pseudo-model over
long contexts (building 32K-64K examples keeps the run busy long enough to stop it).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

ARGS = ["run", "--model", "gold", "--tasks", "synthetic", "--lengths", "32k,64k", "--n", "6"]
TOTAL = 12 * 2 * 6


def _start(db: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "lctui", *ARGS, "--db", str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "COLUMNS": "120"},
    )


def _wait_for_rows(db: Path, proc: subprocess.Popen[str]) -> None:
    """Wait until the run has committed a few examples (their contexts grow the files)."""
    deadline = time.monotonic() + 120
    wal = Path(str(db) + ".wal")
    while time.monotonic() < deadline and proc.poll() is None:
        size = sum(p.stat().st_size for p in (wal, db) if p.exists())
        if size > 2_000_000:
            return
        time.sleep(0.2)
    pytest.fail("the run did not write anything in time")


def _counts(db: Path) -> tuple[int, int, int]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("SELECT count(*) FROM generations").fetchone()
        keys = con.execute("SELECT count(DISTINCT gen_key) FROM generations").fetchone()
        results = con.execute("SELECT count(*) FROM results WHERE score = 1.0").fetchone()
    finally:
        con.close()
    assert rows and keys and results
    return rows[0], keys[0], results[0]


@pytest.mark.slow
def test_kill_9_then_the_same_command_finishes_without_duplicates(tmp_path: Path) -> None:
    db = tmp_path / "k.duckdb"
    proc = _start(db)
    _wait_for_rows(db, proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    rows, keys, _ = _counts(db)
    assert 0 < rows < TOTAL and rows == keys
    rerun = subprocess.run(
        [sys.executable, "-m", "lctui", *ARGS, "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert f"{TOTAL - rows} done" in rerun.stdout.replace("\n", " ")
    rows, keys, perfect = _counts(db)
    assert rows == keys == perfect == TOTAL
    again = subprocess.run(
        [sys.executable, "-m", "lctui", *ARGS, "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert "Nothing to do" in again.stdout and _counts(db)[0] == TOTAL


@pytest.mark.slow
def test_ctrl_c_stops_cleanly_and_keeps_what_finished(tmp_path: Path) -> None:
    db = tmp_path / "c.duckdb"
    proc = _start(db)
    _wait_for_rows(db, proc)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 130, out
    assert "Cancelled" in out and "Traceback" not in out
    rows, keys, perfect = _counts(db)
    assert 0 < rows < TOTAL and rows == keys == perfect
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT status FROM runs").fetchall() == [("cancelled",)]
