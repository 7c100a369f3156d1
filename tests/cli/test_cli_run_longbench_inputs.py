"""`lctui run --inputs longbench:DATA --input-option checkout=LONGBENCH` end to end on
LongBench v2 rows in the dataset's format (helpers/longbench_data.py, our text) and a
checkout in THUDM/LongBench's layout with templates of our wording
(helpers/longbench_inputs.py): the stored prompt of every generation, and of the chain
of thought's second call, is what pred.py would send (restated in the helper), the run
keeps the file it read, and two models' runs pair. The slow test does the same with
the embedded SmolLM2, its prompts cut by its own tokenizer as pred.py cuts them for a
model of model2path.json, and reads the run's LongBench table.

The real CLI runs in-process (main).
"""

from __future__ import annotations

import hashlib
import json
import textwrap
from pathlib import Path
from typing import Any

import duckdb
import pytest

from helpers.longbench_data import longbench_rows, write_longbench
from helpers.longbench_inputs import MODES, TEMPLATES, pred_cut_hf, pred_fill, write_checkout
from lctui.cli import main


@pytest.fixture(autouse=True)
def _wide(monkeypatch: pytest.MonkeyPatch) -> None:
    # The data folder is the test's own already (tests/conftest.py).
    monkeypatch.setenv("COLUMNS", "200")


def stored(db: Path) -> list[dict[str, Any]]:
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT m.name, g.task, g.length, e.metadata, g.prompt_head, "
            "e.preamble || e.context || e.question, g.prompt_tail, g.output, g.calls "
            "FROM generations g JOIN examples e USING (example_id) JOIN models m "
            "USING (model_id) ORDER BY m.name, g.task, e.idx"
        ).fetchall()
    keys = ("model", "task", "length", "metadata", "head", "user_text", "tail", "output", "calls")
    found = [dict(zip(keys, row, strict=True)) for row in rows]
    for row in found:
        row["metadata"] = json.loads(row["metadata"])
        row["calls"] = json.loads(row["calls"]) if row["calls"] else []
    return found


def by_task(rows: list[dict[str, Any]], model: str) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        if row["model"] == model:
            out.setdefault(row["task"], []).append(row)
    return out


def test_gold_reads_pred_pys_prompts_and_two_models_pair(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data_rows = longbench_rows(3, words=(120,))
    data_rows[1]["question"] = " Is $C_B$ the one?\n"
    data = write_longbench(tmp_path, data_rows)
    checkout = write_checkout(tmp_path / "LongBench", {"gpt-test": 50_000})
    config = tmp_path / "lctui.toml"
    config.write_text(
        textwrap.dedent("""
        [models.gold-cl100k]
        backend = "gold"
        tokenizer = "cl100k_base"
    """)
    )
    db = tmp_path / "r.duckdb"
    inputs = [
        "--inputs", f"longbench:{data}", "--input-option", f"checkout={checkout}",
        "--input-option", "model=gpt-test",
    ]  # fmt: skip
    for model in ("gold", "gold-cl100k"):
        assert main(["run", "-m", model, *inputs, "--db", str(db), "--config", str(config)]) == 0
    capsys.readouterr()
    rows = stored(db)
    for model in ("gold", "gold-cl100k"):
        tasks = by_task(rows, model)
        assert set(tasks) == set(MODES)
        for task, template in MODES.items():
            sent = [r["head"] + r["user_text"] + r["tail"] for r in tasks[task]]
            assert sent == [pred_fill(TEMPLATES[template], r) for r in data_rows]
            assert {r["length"] for r in tasks[task]} == {50_000}
        # The second call reads the first call's reply, stripped, in 0shot_cot_ans.txt.
        for row, data_row in zip(tasks["longbench_v2_cot"], data_rows, strict=True):
            reasoning, answer = row["calls"]
            expected = pred_fill(TEMPLATES["0shot_cot_ans.txt"], data_row, reasoning["output"])
            assert answer["prompt"] == expected
    with duckdb.connect(str(db), read_only=True) as con:
        commands = [json.loads(c) for (c,) in con.execute("SELECT command FROM runs").fetchall()]
    digest = hashlib.sha256(data.read_bytes()).hexdigest()
    for command in commands:
        assert [(f["task"], f["sha256"], f["rows"]) for f in command["inputs"]] == [
            (task, digest, 3) for task in MODES
        ]

    assert main(["compare", "gold", "gold-cl100k", "--db", str(db), "--format", "json"]) == 0
    compared = json.loads(capsys.readouterr().out)
    assert sorted((c["task"], c["n"]) for c in compared["cells"]) == sorted(
        (task, 3) for task in MODES
    )


@pytest.mark.slow
@pytest.mark.model
def test_the_embedded_model_reads_pred_pys_cut_prompts_exactly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from transformers import AutoTokenizer

    from lctui.backends.embedded import embedded_checkpoint

    checkpoint = embedded_checkpoint()
    data_rows = longbench_rows(2, words=(80, 700))
    data = write_longbench(tmp_path, data_rows)
    checkout = write_checkout(tmp_path / "LongBench", {"smol": 400}, {"smol": str(checkpoint)})
    db = tmp_path / "r.duckdb"
    argv = [
        "run", "-m", "smollm2-135m", "--inputs", f"longbench:{data}",
        "--input-option", f"checkout={checkout}", "--input-option", "model=smol",
        "--tasks", "longbench_v2,longbench_v2_no_context", "--db", str(db),
    ]  # fmt: skip
    assert main(argv) == 0
    tokenizer = AutoTokenizer.from_pretrained(checkpoint)
    tasks = by_task(stored(db), "smollm2-135m")
    for task in ("longbench_v2", "longbench_v2_no_context"):
        prompts = [pred_fill(TEMPLATES[MODES[task]], r) for r in data_rows]
        assert [r["user_text"] for r in tasks[task]] == [
            pred_cut_hf(tokenizer, p, 400) for p in prompts
        ]
        for row in tasks[task]:  # one user message under SmolLM2's chat template
            assert row["head"].startswith("<|im_start|>") and row["head"].endswith("user\n")
            assert row["tail"] == "<|im_end|>\n<|im_start|>assistant\n"
    assert [r["metadata"]["cut"]["cut"] for r in tasks["longbench_v2"]] == [False, True]

    capsys.readouterr()
    assert main(["report", "--suite", "longbench", "--db", str(db), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert sorted((r["task"], r["length"], r["groups"]["overall"]["n"]) for r in rows) == [
        ("longbench_v2", 400, 2),
        ("longbench_v2_no_context", 400, 2),
    ]
