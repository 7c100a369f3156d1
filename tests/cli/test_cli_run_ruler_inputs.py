"""`lctui run --inputs ruler:BENCHMARK_ROOT` end to end on files in RULER's prepare.py
format laid out as its run.sh lays them out (helpers/ruler_inputs.py, our text): the
stored prompt of every generation is the file's input + answer_prefix exactly, the
cells are RULER's task x length, two models' runs pair in `lctui compare`, and `lctui
export-report` reads the run. The slow test does the same with the embedded SmolLM2,
sent as a completion and as one chat user message (RULER's openai server type).

The real CLI runs in-process (main).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import duckdb
import pytest

from helpers.ruler_inputs import data_file, sent_prompts, write_ruler_root
from lctui.cli import main

TASKS = ("niah_single_1", "vt", "qa_1")
LENGTHS = (1024, 2048)


@pytest.fixture(autouse=True)
def _wide(monkeypatch: pytest.MonkeyPatch) -> None:
    # The data folder is the test's own already (tests/conftest.py).
    monkeypatch.setenv("COLUMNS", "200")


def stored(db: Path) -> list[dict[str, Any]]:
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT m.name, g.task, g.length, e.metadata, g.prompt_head, "
            "e.preamble || e.context || e.question, g.prompt_tail, g.config "
            "FROM generations g JOIN examples e USING (example_id) JOIN models m USING "
            "(model_id) ORDER BY m.name, g.length, g.task, e.idx"
        ).fetchall()
    keys = ("model", "task", "length", "metadata", "head", "user_text", "tail", "config")
    return [dict(zip(keys, row, strict=True)) for row in rows]


def prompts_by_file(rows: list[dict[str, Any]], model: str) -> dict[str, list[str]]:
    """Each data file's stored prompts (head + user text + tail), in the file's order."""
    found: dict[str, list[tuple[int, str]]] = {}
    for row in rows:
        if row["model"] != model:
            continue
        source = json.loads(row["metadata"])["inputs"]
        found.setdefault(source["file"], []).append(
            (source["line"], row["head"] + row["user_text"] + row["tail"])
        )
    return {path: [text for _, text in sorted(lines)] for path, lines in found.items()}


def test_gold_runs_rulers_prompts_and_two_models_pair(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_ruler_root(tmp_path / "benchmark_root", tasks=TASKS, lengths=LENGTHS)
    config = tmp_path / "lctui.toml"
    config.write_text(
        textwrap.dedent("""
        [models.gold-cl100k]
        backend = "gold"
        tokenizer = "cl100k_base"
    """)
    )
    db = tmp_path / "r.duckdb"
    for model in ("gold", "gold-cl100k"):
        argv = ["run", "-m", model, "--inputs", f"ruler:{root}", "--db", str(db)]
        assert main([*argv, "--config", str(config)]) == 0
    capsys.readouterr()
    rows = stored(db)
    expected = {
        str(data_file(root, t, n)): sent_prompts(data_file(root, t, n))
        for t in TASKS
        for n in LENGTHS
    }
    assert prompts_by_file(rows, "gold") == expected
    assert prompts_by_file(rows, "gold-cl100k") == expected
    assert {(r["task"], r["length"]) for r in rows} == {(t, n) for t in TASKS for n in LENGTHS}
    assert {json.loads(r["config"])["prompt_format_used"] for r in rows} == {"plain"}

    assert main(["compare", "gold", "gold-cl100k", "--db", str(db), "--format", "json"]) == 0
    compared = json.loads(capsys.readouterr().out)
    assert sorted((c["task"], c["length"], c["n"]) for c in compared["cells"]) == sorted(
        (t, n, 2) for t in TASKS for n in LENGTHS
    )
    assert compared["unmatched"]["only_a"] == compared["unmatched"]["only_b"] == 0

    report = tmp_path / "report.md"
    assert main(["export-report", "--db", str(db), "--out", str(report)]) == 0
    text = report.read_text(encoding="utf-8")
    assert all(task in text for task in TASKS)


@pytest.mark.slow
@pytest.mark.model
def test_the_embedded_model_reads_each_files_prompt_exactly(tmp_path: Path) -> None:
    root = write_ruler_root(tmp_path / "benchmark_root", tasks=TASKS, lengths=(1024,), rows=1)
    db = tmp_path / "r.duckdb"
    base = ["run", "-m", "smollm2-135m", "--inputs", f"ruler:{root}", "--db", str(db)]
    assert main(base) == 0
    rows = stored(db)
    expected = {
        str(data_file(root, t, 1024)): sent_prompts(data_file(root, t, 1024)) for t in TASKS
    }
    assert prompts_by_file(rows, "smollm2-135m") == expected
    assert {(r["head"], r["tail"]) for r in rows} == {("", "")}

    # RULER's openai server type: input + answer_prefix as one user message, templated.
    assert main([*base, "--input-option", "framing=user"]) == 0
    user = [r for r in stored(db) if json.loads(r["config"])["prompt_format_used"] == "chat"]
    assert len(user) == len(TASKS)
    for row in user:
        assert row["head"].startswith("<|im_start|>") and row["head"].endswith("user\n")
        assert row["tail"] == "<|im_end|>\n<|im_start|>assistant\n"
    assert sorted(r["user_text"] for r in user) == sorted(p for ps in expected.values() for p in ps)
