"""The real embedded model end to end: generate, stream, score, store, read back, resume."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import duckdb
import pytest

from lctui.backends import load_backend, resolve_model
from lctui.cli import main
from lctui.tasks import select_tasks


@pytest.mark.slow
@pytest.mark.model
def test_smollm2_two_tasks_two_lengths_three_examples(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # rich wraps tables at the terminal width
    db = tmp_path / "smol.duckdb"
    args = [
        "run",
        "--model",
        "smollm2-135m",
        "--tasks",
        "niah_single_1,vt",
        "--lengths",
        "1k,2k",
        "--n",
        "3",
        "--db",
        str(db),
    ]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "12 done, 0 error(s)" in out

    backend = load_backend(resolve_model("smollm2-135m", {}))
    try:
        framing = {
            task.name: backend.template_overhead(task.answer_prefix)
            for task in select_tasks("niah_single_1,vt")
        }
    finally:
        asyncio.run(backend.close())

    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute(
        "SELECT r.task, r.length, r.status, r.score, r.prompt_tokens, r.output, "
        "r.generation_id, e.prompt_tokens, "
        # The template allowance: what the example reserves less its own answer prefix.
        "e.template_overhead - coalesce(TRY_CAST(e.metadata->>'prefix_tokens' AS INT), 0) "
        "FROM results AS r JOIN examples AS e USING (example_id) ORDER BY r.task, r.length"
    ).fetchall()
    assert len(rows) == 12
    assert {(r[0], r[1]) for r in rows} == {
        (t, n) for t in ("niah_single_1", "vt") for n in (1024, 2048)
    }
    for task, length, status, score, prompt_tokens, _output, _gid, built, allowance in rows:
        assert status in ("ok", "unparsed")
        assert score is not None and 0.0 <= score <= 1.0
        max_new = 128 if task.startswith("niah") else 30
        # The example (its user text, the template allowance, the answer) fills the length.
        assert length - max(8, length // 200) <= built + max_new <= length
        # The prompt the model read holds its own template instead of the allowance (64),
        # give or take a token where BPE merges across the seams. The example's answer
        # prefix is reserved apart (metadata.prefix_tokens), so the template is counted
        # with the task's own prefix, as the engine does.
        assert abs(prompt_tokens - (built - allowance + framing[task])) <= 2
    # Every stored generation has its rubric points and the exact prompt pieces.
    points = con.execute("SELECT count(*) FROM rubric").fetchone()
    assert points is not None and points[0] >= 24
    head = con.execute("SELECT prompt_head, prompt_tail FROM generations LIMIT 1").fetchone()
    assert head is not None and "<|im_start|>" in head[0] and "assistant" in head[1]
    con.close()

    # `lctui show` prints the prompt, output and rubric of one generation.
    assert main(["show", rows[0][6], "--db", str(db)]) == 0
    shown = capsys.readouterr().out
    assert "all requested values present" in shown and "Gold:" in shown

    # The same command again adds nothing and says so.
    assert main(args) == 0
    assert "Nothing to do" in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.model
def test_smollm2_and_gold_read_the_same_examples_with_a_shared_tokenizer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 15's case: SmolLM2's chat template (32 tokens) and gold's plain prompt (3)
    no longer move the budget, so both read one example each and every one pairs."""
    db = tmp_path / "pair.duckdb"
    args = ["run", "-m", "smollm2-135m", "-m", "gold", "--tokenizer", "o200k_base"]
    args += ["--tasks", "niah_single_1,vt", "--lengths", "1k", "--n", "2", "--db", str(db)]
    assert main(args) == 0
    con = duckdb.connect(str(db), read_only=True)
    per_model = dict(
        con.execute(
            "SELECT model, list(DISTINCT example_id ORDER BY example_id) FROM results "
            "GROUP BY model"
        ).fetchall()
    )
    examples = con.execute("SELECT count(*) FROM examples").fetchone()
    con.close()
    assert per_model["gold"] == per_model["smollm2-135m"] and examples == (4,)
    capsys.readouterr()
    assert main(["compare", "gold", "smollm2-135m", "--db", str(db), "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert sum(cell["n"] for cell in result["cells"]) == 4
    assert result["unmatched"] == {
        "only_a": 0,
        "only_b": 0,
        "errors_a": 0,
        "errors_b": 0,
        "unscored_a": 0,
        "unscored_b": 0,
    }
