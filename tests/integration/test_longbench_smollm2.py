"""The embedded SmolLM2 model on LongBench v2's three modes at 2K, on a fixture set in the
original's format, into a real DuckDB file: direct answers to a question whose context
fits and one whose context is cut in its middle, the same two without the document, and
one chain of thought (a reasoning call of up to 1,024 tokens, then the answer call
without the document).

The model's outputs are not asserted (no hard-coded model output): only the structure
of what was stored (every generation, both calls of the chain of thought and what each
read, scores 0 or 1 as ok or unparsed, the original's sampling settings) and that
`lctui report --suite longbench` reads it. The scores are printed for the notes."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from helpers.longbench_data import longbench_rows, write_longbench
from lctui.cli import main
from lctui.suites.longbench.tasks.task import ANSWER_TOKENS, REASONING_TOKENS

LENGTH = 2048
# Question 0's context fits 2K; question 1's (about 4,000 tokens) is cut in its middle.
WORDS = (300, 3_000)


@pytest.mark.slow
@pytest.mark.model
def test_smollm2_answers_every_longbench_mode_into_duckdb(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    rows = longbench_rows(2, words=WORDS)
    write_longbench(tmp_path / "data", rows)
    db = tmp_path / "longbench.duckdb"
    common = ["--model", "smollm2-135m", "--lengths", "2k", "--data", str(tmp_path / "data")]
    tasks = "longbench_v2,longbench_v2_no_context"
    assert main(["run", *common, "--tasks", tasks, "-n", "2", "--db", str(db)]) == 0
    assert main(["run", *common, "--tasks", "longbench_v2_cot", "-n", "1", "--db", str(db)]) == 0
    capsys.readouterr()

    with duckdb.connect(str(db), read_only=True) as con:
        stored = con.execute(
            "SELECT e.task, e.metadata->>'longbench_id', e.truncated, e.prompt_tokens, "
            "e.max_new_tokens, g.status, g.output, g.calls, "
            "CAST(g.config->>'temperature' AS DOUBLE), g.output_tokens, g.latency_s "
            "FROM generations AS g JOIN examples AS e USING (example_id) ORDER BY e.task, e.idx"
        ).fetchall()
        scores = con.execute(
            "SELECT task, scorer, metric, status, score FROM results ORDER BY task"
        ).fetchall()
    assert [(r[0], r[1]) for r in stored] == [
        ("longbench_v2", rows[0]["_id"]),
        ("longbench_v2", rows[1]["_id"]),
        ("longbench_v2_cot", rows[0]["_id"]),
        ("longbench_v2_no_context", rows[0]["_id"]),
        ("longbench_v2_no_context", rows[1]["_id"]),
    ]
    notes = []
    for (
        task,
        _,
        truncated,
        prompt_tokens,
        max_new,
        status,
        output,
        calls,
        temperature,
        *timing,
    ) in stored:
        assert status == "ok" and temperature == 0.1, task
        notes.append(
            f"{task:24} {prompt_tokens:5} prompt, {timing[0]:5} new tokens, {timing[1]:.1f} s"
        )
        assert prompt_tokens + max_new <= LENGTH, task
        if task != "longbench_v2_cot":
            assert calls is None and max_new == ANSWER_TOKENS, task
            continue
        assert max_new == REASONING_TOKENS and not truncated
        reasoning, answer = json.loads(calls)
        assert (reasoning["role"], answer["role"]) == ("reasoning", "answer")
        assert reasoning["prompt"] == "" and 0 < reasoning["output_tokens"] <= REASONING_TOKENS
        assert 0 < answer["output_tokens"] <= ANSWER_TOKENS and answer["output"] == output
        # The answer call reads the question and the reasoning, not the document.
        assert reasoning["output"].strip() in answer["prompt"]
        assert rows[0]["question"] in answer["prompt"]
        assert rows[0]["context"][:200] not in answer["prompt"]
    assert [r[2] for r in stored if r[0] == "longbench_v2"] == [False, True]

    assert len(scores) == len(stored)
    for task, scorer, metric, status, score in scores:
        assert (scorer, metric) == ("longbench", "accuracy"), task
        assert status in ("ok", "unparsed") and score in (0.0, 1.0), (task, status, score)
        notes.append(f"{task:24} {status:9} {score:.0f}")

    assert main(["report", "--suite", "longbench", "--db", str(db)]) == 0
    table = capsys.readouterr().out
    assert "smollm2-135m" in table
    assert main(["report", "--suite", "longbench", "--db", str(db), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    print("\n".join(notes), table, sep="\n")
    assert sorted(r["task"] for r in report) == [
        "longbench_v2",
        "longbench_v2_cot",
        "longbench_v2_no_context",
    ]
    assert {r["groups"]["overall"]["n"] for r in report} == {1, 2}
