"""The embedded SmolLM2 model on HELMET's RAG tasks at 2K, on the invented KILT fixtures,
into a real DuckDB file: real generations, scored with SubEM, depths stored."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from helpers.helmet_data import HELMET_FIXTURES
from lctui.cli import main


@pytest.mark.slow
def test_smollm2_answers_the_rag_fixtures_at_2k(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    db = tmp_path / "rag.duckdb"
    args = ["run", "--model", "smollm2-135m", "--tasks", "rag", "--lengths", "2k", "--n", "2"]
    assert main([*args, "--data", str(HELMET_FIXTURES), "--db", str(db)]) == 0
    assert "8 done, 0 error(s)" in capsys.readouterr().out
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute(
        "SELECT r.task, r.status, r.score, r.depth, r.output, e.max_new_tokens "
        "FROM results AS r JOIN examples AS e USING (example_id)"
    ).fetchall()
    con.close()
    assert len(rows) == 8
    for task, status, score, depth, output, max_new in rows:
        assert task.startswith("kilt_") and max_new == 20
        assert score in (0.0, 1.0) and depth is not None
        assert status in ("ok", "unparsed") and isinstance(output, str)
