"""`lctui query` can neither change the results nor reach outside them (issues 15 and
17): every attack of tests/sql_attacks.py exits 2 with one line saying why, the file
stays byte for byte as it was, nothing is written, fetched or shown; reading works.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from helpers.sql_attacks import ATTACK_PARAMS, READ_PARAMS, Attack, Witness, isolated_home
from lctui.cli import main


@pytest.fixture(scope="module")
def template_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("query-template") / "results.duckdb"
    args = ["run", "--model", "gold", "--tasks", "niah_single_1,vt", "--lengths", "1k"]
    assert main([*args, "--n", "2", "--db", str(db)]) == 0
    return db


@pytest.fixture
def results_db(template_db: Path, tmp_path: Path) -> Path:
    target = tmp_path / "db" / "results.duckdb"
    target.parent.mkdir()
    target.write_bytes(template_db.read_bytes())
    return target


def _query(db: Path, sql: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["query", "--db", str(db), "--format", "json", sql])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("attack", ATTACK_PARAMS)
def test_lctui_query_refuses_each_attack_and_nothing_changes(
    results_db: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    attack: Attack,
) -> None:
    witness = Witness(results_db, tmp_path)
    isolated_home(monkeypatch, witness)
    try:
        code, out, err = _query(results_db, witness.sql(attack), capsys)
        witness.assert_nothing_happened(out + err)  # first: what matters most
    finally:
        witness.close()
    assert code == 2 and out == "", out
    assert err.startswith("lctui: error: ") and attack.refusal in err, err
    if attack.refusal != "invalid SQL":
        assert err.startswith("lctui: error: refused (queries here are read-only): ")
        assert err.count("\n") == 1, err


@pytest.mark.parametrize(("sql", "column"), READ_PARAMS)
def test_reading_features_still_work_in_lctui_query(
    results_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], sql: str, column: str
) -> None:
    witness = Witness(results_db, tmp_path)
    try:
        code, out, err = _query(results_db, sql, capsys)
        assert code == 0, err
        rows = json.loads(out)
        assert rows and column in rows[0]
        witness.assert_nothing_happened("")
    finally:
        witness.close()


def test_the_environment_does_not_come_back_from_a_real_process(results_db: Path) -> None:
    # /proc/self/environ is the environment a process started with: a real one, then,
    # with a key in it, as the API key was.
    secret = f"sk-{uuid.uuid4().hex}"
    env = {**os.environ, "OPENAI_API_KEY": secret}
    for sql in (
        "SELECT * FROM read_text('/proc/self/environ')",
        "SELECT content FROM read_blob('/proc/self/environ')",
        "EXPLAIN ANALYZE SELECT * FROM read_text('/proc/self/environ')",
    ):
        done = subprocess.run(
            [sys.executable, "-m", "lctui", "query", "--db", str(results_db), sql],
            capture_output=True, text=True, env=env, timeout=120,
        )  # fmt: skip
        assert done.returncode == 2, done.stdout
        assert "out of reach" in done.stderr and "Traceback" not in done.stderr
        assert secret not in done.stdout + done.stderr
