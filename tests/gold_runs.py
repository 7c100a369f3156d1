"""Results files filled by real `lctui run`s of the gold model, for tests that compare runs."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from lctui.cli import main


def two_gold_runs(folder: Path, n: int) -> tuple[Path, str, str]:
    """Two runs of gold on the same `n` examples into `folder`/ab.duckdb (the second at
    another temperature, so a new generation key): the file and both run ids, oldest first."""
    run = ["run", "--model", "gold", "--tasks", "niah_single_1", "--lengths", "1k", "--n", str(n)]
    db = folder / "ab.duckdb"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LCTUI_DATA_DIR", str(folder / "data"))
        assert main([*run, "--db", str(db)]) == 0
        assert main([*run, "--temperature", "0.5", "--db", str(db)]) == 0
    con = duckdb.connect(str(db))
    runs = [r[0] for r in con.execute("SELECT run_id FROM runs ORDER BY started_at").fetchall()]
    con.close()
    assert len(runs) == 2
    return db, runs[0], runs[1]
