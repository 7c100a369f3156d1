"""Real gold runs whose score rows are then deleted (a lost score), for the tests that
check a missing score is shown as missing: never as 0, counted apart everywhere."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import duckdb
import pytest

from lctui.cli import main

RUN_ARGS = ("run", "--model", "gold", "--tasks", "niah_single_1,vt", "--lengths", "1k")


def gold_run(db: Path, n: int = 3, *extra: str) -> str:
    """`lctui run` of gold on niah_single_1 and vt at 1K into `db`; the run's id."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LCTUI_DATA_DIR", str(db.parent / "data"))
        assert main([*RUN_ARGS, "--n", str(n), *extra, "--db", str(db)]) == 0
    con = duckdb.connect(str(db))
    try:
        row = con.execute("SELECT run_id FROM runs ORDER BY started_at DESC LIMIT 1").fetchone()
    finally:
        con.close()
    assert row is not None
    return str(row[0])


def delete_scores(db: Path, where: str = "TRUE", params: Sequence[object] = ()) -> int:
    """Delete the score rows (not the rubric points) of the generations matching `where`
    (SQL over `generations`), as a lost score row; returns how many generations lost one."""
    con = duckdb.connect(str(db))
    try:
        ids = [
            str(r[0])
            for r in con.execute(
                f"SELECT generation_id FROM generations WHERE {where} ORDER BY generation_id",
                list(params),
            ).fetchall()
        ]
        con.execute("DELETE FROM scores WHERE list_contains(?, generation_id)", [ids])
    finally:
        con.close()
    return len(ids)


def score_count(db: Path) -> int:
    con = duckdb.connect(str(db), read_only=True)
    try:
        row = con.execute("SELECT count(*) FROM scores").fetchone()
    finally:
        con.close()
    assert row is not None
    return int(row[0])
