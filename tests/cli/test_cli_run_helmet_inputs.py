"""`lctui run --inputs helmet:CHECKOUT` end to end on an invented checkout and invented
release files (helpers/helmet_inputs.py): the stored prompt of every generation is
HELMET's prompt exactly (its template filled as its loader fills it, sent as its model
class sends it), the cells are HELMET's datasets at their configs' lengths, the run
keeps the files it read, and the gold pseudo-model scores 1 under HELMET's metrics.
The slow test does the same with the embedded SmolLM2, its tokenizer cutting as HELMET
cuts, sent as a completion (use_chat_template false) and under its chat template.

The real CLI runs in-process (main).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

from helpers.helmet_inputs import KV_FILE, read_jsonl, write_checkout
from lctui.backends.embedded import embedded_checkpoint
from lctui.cli import main
from lctui.tasks.inputs import parse_inputs_arg, read_inputs


@pytest.fixture(autouse=True)
def _wide(monkeypatch: pytest.MonkeyPatch) -> None:
    # The data folder is the test's own already (tests/conftest.py).
    monkeypatch.setenv("COLUMNS", "200")


def stored(db: Path) -> list[dict[str, Any]]:
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT g.task, g.length, e.example_id, g.prompt_head, "
            "e.preamble || e.context || e.question, g.prompt_tail, g.config, s.value "
            "FROM generations g JOIN examples e USING (example_id) "
            "LEFT JOIN scores s ON s.generation_id = g.generation_id AND s.latest "
            "ORDER BY g.length, g.task, e.idx"
        ).fetchall()
    keys = ("task", "length", "example_id", "head", "user_text", "tail", "config", "score")
    return [dict(zip(keys, row, strict=True)) for row in rows]


def run_command(db: Path) -> dict[str, Any]:
    with duckdb.connect(str(db), read_only=True) as con:
        (command,) = con.execute("SELECT command FROM runs").fetchone() or ("{}",)
    found: dict[str, Any] = json.loads(command)
    return found


def test_gold_runs_helmets_prompts_scored_by_helmets_metrics(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_checkout(tmp_path / "HELMET")
    db = tmp_path / "h.duckdb"
    options = ["--input-option", "tokenizer=none"]
    argv = ["run", "-m", "gold", "--inputs", f"helmet:{root}", *options, "--db", str(db)]
    assert main(argv) == 0
    capsys.readouterr()
    rows = stored(db)
    expected = read_inputs(parse_inputs_arg(f"helmet:{root}"), options={"tokenizer": "none"})
    by_id = {e.example_id: e for e in expected.examples}
    assert sorted(r["example_id"] for r in rows) == sorted(by_id)
    for row in rows:
        assert row["user_text"] == by_id[row["example_id"]].user_text
        assert (row["head"], row["tail"]) == ("", "")  # gold sends the text as it is
    assert {(r["task"], r["length"]) for r in rows} == {
        ("json_kv", 4096),
        ("kilt_nq", 4096),
        ("kilt_popqa", 4096),
        ("msmarco_rerank", 4096),
        ("kilt_triviaqa", 2048),
    }
    # One JSON KV prompt written out: the row's context, demos, key, answer prefix.
    kv = read_jsonl(root / "data" / KV_FILE)
    first = next(r for r in rows if r["task"] == "json_kv")
    asked = next(r for r in kv if r["question"] in first["user_text"][-60:])
    assert first["user_text"].startswith(asked["context"] + "\n\nGive the value")
    assert first["user_text"].endswith(f"K: {asked['question']}\nV:")
    assert {r["score"] for r in rows} == {1.0}  # gold: HELMET's SubEM and NDCG@10 are 1
    files = run_command(db)["inputs"]
    assert {(f["task"], f["length"], f["framing"]) for f in files} >= {
        ("json_kv", 4096, "completion"),
        ("kilt_triviaqa", 2048, "user"),
    }
    assert all(len(f["sha256"]) == 64 for f in files)

    assert main(["data", "inputs", f"helmet:{root}", *options, "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {f["task"] for f in listed["files"]} == {r["task"] for r in rows}


@pytest.mark.slow
@pytest.mark.model
def test_the_embedded_model_reads_helmets_prompt_exactly(tmp_path: Path) -> None:
    root = write_checkout(tmp_path / "HELMET")
    checkpoint = embedded_checkpoint()
    db = tmp_path / "h.duckdb"
    options = ["--input-option", f"tokenizer={checkpoint}", "--n", "1"]
    argv = ["run", "-m", "smollm2-135m", "--inputs", f"helmet:{root}", *options, "--db", str(db)]
    assert main(argv) == 0
    rows = stored(db)
    expected = read_inputs(
        parse_inputs_arg(f"helmet:{root}"), options={"tokenizer": str(checkpoint)}, n=1
    )
    by_id = {e.example_id: e for e in expected.examples}
    assert sorted(r["example_id"] for r in rows) == sorted(by_id)
    for row in rows:
        example = by_id[row["example_id"]]
        assert row["user_text"] == example.user_text
        if example.metadata["framing"] == "completion":  # use_chat_template false
            assert (row["head"], row["tail"]) == ("", "")
        else:  # SmolLM2's chat template around the one user message
            assert row["head"].startswith("<|im_start|>") and row["head"].endswith("user\n")
            assert row["tail"] == "<|im_end|>\n<|im_start|>assistant\n"
    assert {json.loads(r["config"])["prompt_format_used"] for r in rows} == {"plain", "chat"}
    assert all(r["score"] is not None for r in rows)
