"""`lctui run --inputs lifbench:CHECKOUT` end to end on prompt files in the format of
LIFBench's released data/prompts (helpers/lifbench_inputs.py, our text): the stored
prompt of every generation is the record's prompt exactly, the cells are LIFBench's task
x length interval, two models' runs pair in `lctui compare`, and `lctui report --suite
lifeval` reads the run. The slow test does the same with the embedded SmolLM2, the
prompt sent as one chat user message (LIFBench's API inference) and as a completion
followed by "\\noutput: " (its Inference.py for a model without chat template).

The real CLI runs in-process (main).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import duckdb
import pytest

from helpers.lifbench_inputs import FILES, file_prompts, prompt_file, write_lifbench
from lctui.cli import main

INTERVALS = (3, 6)


@pytest.fixture(autouse=True)
def _wide(monkeypatch: pytest.MonkeyPatch) -> None:
    # The data folder is the test's own already (tests/conftest.py).
    monkeypatch.setenv("COLUMNS", "200")


def stored(db: Path) -> list[dict[str, Any]]:
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT m.name, g.task, g.length, e.metadata, g.prompt_head, "
            "e.preamble || e.context || e.question, g.prompt_tail, g.config, g.output "
            "FROM generations g JOIN examples e USING (example_id) JOIN models m USING "
            "(model_id)"
        ).fetchall()
    keys = ("model", "task", "length", "metadata", "head", "user_text", "tail", "config", "out")
    return [dict(zip(keys, row, strict=True)) for row in rows]


def prompts_by_file(rows: list[dict[str, Any]], model: str, whole: bool) -> dict[str, list[str]]:
    """Each prompt file's stored prompts (the user text, or `whole`: head + user text +
    tail), in the file's order."""
    found: dict[str, list[tuple[int, str]]] = {}
    for row in rows:
        if row["model"] != model:
            continue
        source = json.loads(row["metadata"])["inputs"]
        text = row["head"] + row["user_text"] + row["tail"] if whole else row["user_text"]
        found.setdefault(source["file"], []).append((source["line"], text))
    return {path: [text for _, text in sorted(lines)] for path, lines in found.items()}


def test_gold_runs_lifbenchs_prompts_and_two_models_pair(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_lifbench(tmp_path / "LIFBench-2024", intervals=INTERVALS)
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
        argv = ["run", "-m", model, "--inputs", f"lifbench:{root}", "--db", str(db)]
        assert main([*argv, "--config", str(config)]) == 0
    capsys.readouterr()
    rows = stored(db)
    expected = {str(prompt_file(root, t)): file_prompts(prompt_file(root, t)) for t in FILES}
    assert prompts_by_file(rows, "gold", whole=True) == expected
    assert prompts_by_file(rows, "gold-cl100k", whole=True) == expected
    assert {(r["task"], r["length"]) for r in rows} == {
        (f"lifbench_{t}", n * 1024) for t in FILES for n in INTERVALS
    }

    assert main(["compare", "gold", "gold-cl100k", "--db", str(db), "--format", "json"]) == 0
    compared = json.loads(capsys.readouterr().out)
    assert len(compared["cells"]) == len(FILES) * len(INTERVALS)
    assert compared["unmatched"]["only_a"] == compared["unmatched"]["only_b"] == 0

    # The reference answers earn every point: LIFEval's views read the run's scores.
    assert main(["report", "--db", str(db), "--format", "json"]) == 0
    reports = {r["model"]: r for r in json.loads(capsys.readouterr().out)}
    assert reports.keys() == {"gold", "gold-cl100k"}
    assert reports["gold"]["ars"] == pytest.approx(1.0)


@pytest.mark.slow
@pytest.mark.model
def test_the_embedded_model_reads_each_records_prompt_exactly(tmp_path: Path) -> None:
    tasks = ("single_query_id", "blur_offset_query_element", "qa")
    root = write_lifbench(tmp_path / "LIFBench-2024", tasks=tasks, records=1)
    db = tmp_path / "r.duckdb"
    base = ["run", "-m", "smollm2-135m", "--inputs", f"lifbench:{root}", "--db", str(db)]
    expected = {str(prompt_file(root, t)): file_prompts(prompt_file(root, t)) for t in tasks}

    # LIFBench's API inference: the prompt as one chat user message, templated.
    assert main(base) == 0
    rows = stored(db)
    assert prompts_by_file(rows, "smollm2-135m", whole=False) == expected
    for row in rows:
        assert row["head"].startswith("<|im_start|>") and row["head"].endswith("user\n")
        assert row["tail"] == "<|im_end|>\n<|im_start|>assistant\n"

    # Inference.py for a model without chat template: the prompt and "\noutput: ", plain.
    assert main([*base, "--input-option", "framing=completion"]) == 0
    plain = [r for r in stored(db) if json.loads(r["config"])["prompt_format_used"] == "plain"]
    assert len(plain) == len(tasks)
    assert {(r["head"], r["tail"]) for r in plain} == {("", "")}
    assert sorted(r["user_text"] for r in plain) == sorted(
        p + "\noutput: " for ps in expected.values() for p in ps
    )
