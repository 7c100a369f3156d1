"""Unencodable text from a server never loses a run: every generation is stored, its
text made storable and flagged (`repaired`).

A server that splits a UTF-16 surrogate pair between two stream chunks sends lone
surrogates; one of them used to fail every flush of the run (0 of 40 stored, and 0
again on every rerun). No real server does this on demand, so a fake one does
(tests/fake_openai_server.py), through the real `openai` backend and `lctui run`.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from helpers.fake_openai_server import FakeOpenAIServer
from lctui.cli import main

# "The answer is 😀 and", its emoji split into its two UTF-16 halves, then a half alone.
CHUNKS = ["The answer is ", "\ud83d", "\ude00", " and ", "\ud800", " more."]
ARGS = ["run", "--model", "fake", "--tasks", "niah_single_1", "--lengths", "1k", "--n", "10"]


def _config(tmp_path: Path, server: FakeOpenAIServer) -> Path:
    config = tmp_path / "lctui.toml"
    config.write_text(
        f'[models.fake]\nbackend = "openai"\nbase_url = "{server.base_url}"\n'
        f'model = "{server.model}"\nmax_retries = 0\n'
    )
    return config


def test_lone_surrogates_from_a_fake_server_are_stored_repaired_and_flagged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "s.duckdb"
    with FakeOpenAIServer(
        "fake-model", CHUNKS, fail=[3, 7], error_message="cannot read \ud800 here"
    ) as server:
        config = _config(tmp_path, server)
        argv = [*ARGS, "--db", str(db), "--config", str(config)]
        assert main(argv) == 1  # two requests failed: stored as errors, retried next time
        first = capsys.readouterr().out
        con = duckdb.connect(str(db), read_only=True)
        rows = con.execute(
            "SELECT status, output, error, repaired FROM generations ORDER BY status"
        ).fetchall()
        con.close()
        assert len(rows) == 10, first
        ok = [r for r in rows if r[0] == "ok"]
        errors = [r for r in rows if r[0] == "error"]
        assert len(ok) == 8 and len(errors) == 2
        assert {r[1] for r in ok} == {"The answer is \U0001f600 and \ufffd more."}
        assert all(r[3] for r in rows)  # every one of them was changed to be storable
        assert all("cannot read \ufffd here" in r[2] for r in errors)

        assert main(argv) == 0  # the rerun retries the two errors, and stores them
        assert "2 done" in " ".join(capsys.readouterr().out.split())
        assert main(argv) == 0
        assert "Nothing to do" in capsys.readouterr().out
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute(
        "SELECT count(*), count(repaired) FILTER (WHERE repaired) FROM results"
    ).fetchone() == (10, 10)
    con.close()
