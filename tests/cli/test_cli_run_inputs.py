"""`lctui run --inputs KIND:PATH` and `lctui data inputs`: an original's files run as they
are, the run's command keeping what it read, and what cannot run refused with what to do.

The real CLI runs in-process (main) on files written here in the `prompts` kind's format,
with invented text, against the gold pseudo-model.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

from lctui.cli import main

ROWS: list[dict[str, Any]] = [
    {"input": "Seven owls nest here.\nHow many owls?", "answer_prefix": " Owls:", "outputs": ["7"]},
    {"input": "The gate code is 3310.\r\nThe code?", "outputs": ["3310"]},
]


@pytest.fixture(autouse=True)
def _wide(monkeypatch: pytest.MonkeyPatch) -> None:
    # The data folder is the test's own already (tests/conftest.py).
    monkeypatch.setenv("COLUMNS", "200")


def write_inputs(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "niah_single_1.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    (folder / "vt.jsonl").write_text(json.dumps(ROWS[1]) + "\n{broken\n", encoding="utf-8")
    return path


def test_a_run_sends_the_files_prompts_and_keeps_what_it_read(tmp_path: Path) -> None:
    path = write_inputs(tmp_path / "in")
    db = tmp_path / "r.duckdb"
    argv = ["run", "-m", "gold", "--inputs", f"prompts:{path}", "--lengths", "1k", "--db", str(db)]
    assert main(argv) == 0
    with duckdb.connect(str(db), read_only=True) as con:
        prompts = con.execute(
            "SELECT g.prompt_head || e.preamble || e.context || e.question || g.prompt_tail, "
            "g.task, g.length FROM generations g JOIN examples e USING (example_id) ORDER BY e.idx"
        ).fetchall()
        (command,) = con.execute("SELECT command FROM runs").fetchone() or ("",)
        scores = con.execute("SELECT value FROM scores").fetchall()
    assert [p for p, _, _ in prompts] == [r["input"] + r.get("answer_prefix", "") for r in ROWS]
    assert {(t, n) for _, t, n in prompts} == {("niah_single_1", 1024)}
    assert scores == [(1.0,), (1.0,)]
    (read,) = json.loads(command)["inputs"]
    assert read["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert (read["kind"], read["path"], read["rows"]) == ("prompts", str(path), 2)
    # Again: every generation is stored, nothing runs.
    assert main(argv) == 0


def test_what_would_change_the_prompts_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_inputs(tmp_path / "in")
    base = ["run", "-m", "gold", "--inputs", f"prompts:{path}", "--lengths", "1k"]
    cases = [
        (["--seed", "3"], "--seed with --inputs"),
        (["--tokenizer", "o200k_base"], "--tokenizer with --inputs"),
        (["--truncate"], "--truncate with --inputs"),
        (["--set", "vt.num_hops=3"], "--set with --inputs"),
        (["--prompt-format", "chat"], "--prompt-format chat: examples from an original"),
        (["--input-option", "framing=both"], "framing must be one of completion, user"),
    ]
    for extra, said in cases:
        assert main([*base, *extra, "--db", str(tmp_path / "r.duckdb")]) == 2, extra
        assert said in capsys.readouterr().err
    assert main(["run", "-m", "gold", "--input-option", "framing=user"]) == 2
    assert "--input-option needs --inputs" in capsys.readouterr().err
    assert main(["run", "-m", "gold"]) == 2
    assert "give --tasks" in capsys.readouterr().err
    assert main(["run", "-m", "gold", "--inputs", f"prompts:{path}", "--db", "x"]) == 2
    assert "--lengths 4k" in capsys.readouterr().err


def test_data_inputs_lists_the_kinds_and_reads_a_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["data", "inputs", "--format", "json"]) == 0
    kinds = json.loads(capsys.readouterr().out)
    assert "prompts" in {k["kind"] for k in kinds}
    assert all(k["files"] and k["origin"] and k["options"] for k in kinds)
    path = write_inputs(tmp_path / "in")
    code = main(["data", "inputs", f"prompts:{path.parent}", "--lengths", "2k", "--format", "json"])
    found = json.loads(capsys.readouterr().out)
    assert code == 1  # vt.jsonl's second line is no row
    assert [(f["task"], f["rows"], f["length"]) for f in found["files"]] == [
        ("niah_single_1", 2, 2048),
        ("vt", 1, 2048),
    ]
    (problem,) = found["problems"]
    assert problem.startswith(f"{path.parent / 'vt.jsonl'}:2: not valid JSON")
