"""The gold check: through the real pipeline the reference answer scores 1.0 on every
task, and empty or garbage answers score low, with the right status."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import duckdb
import pytest

from lctui.backends.gold import reference_answer
from lctui.cli import main
from lctui.core.types import Example, ScoreStatus
from lctui.scoring import score_example
from lctui.tasks import all_tasks, get_task
from lctui.tasks.base import Task
from lctui.tasks.budget import Budget
from lctui.tasks.tokenizers import reference_tokenizer

TASKS = [t.name for t in all_tasks()]
SYNTHETIC = [t.name for t in all_tasks() if t.category == "synthetic"]


@pytest.mark.parametrize("task", all_tasks(), ids=TASKS)
def test_reference_scores_one_and_garbage_scores_low(task: Task) -> None:
    tokenizer = reference_tokenizer("o200k_base")
    for index in range(3):
        example = task.generate(4096, seed=11, index=index, tokenizer=tokenizer)
        gold = score_example(example, reference_answer(example))
        assert gold.value == 1.0 and gold.status is ScoreStatus.OK, gold.explanation
        assert all(p.earned == 1.0 for p in gold.points), gold.points
        empty = score_example(example, "")
        # HELMET's MC exact match deletes articles, so the gold letter "A" normalises to
        # "" and an empty answer earns it (kept for parity; its points say so).
        if not (example.metadata.get("scorer") == "helmet_mc" and example.gold[0] == "A"):
            assert empty.value == 0.0 and empty.status is ScoreStatus.UNPARSED
        else:
            assert min(p.earned for p in empty.points) == 0.0
        garbage = score_example(example, "I am not sure, sorry. Maybe blue? 42.")
        assert garbage.value is not None and garbage.value < 0.5
        # Listing the whole context (every candidate) is not a perfect answer when the
        # context holds other values of the asked kind.
        if _other_values(example):
            everything = score_example(example, example.context)
            assert min(p.earned for p in everything.points) < 1.0


def _other_values(example: Example) -> set[str]:
    """Values of the asked kind in the context that are not the answer (none for tasks
    whose answers are not values copied from the context: LIFBench MultiDoc and OneDoc
    have their own wrong-answer tests per rubric point)."""
    if "candidates" in example.metadata:
        values = set(example.metadata["candidates"])
    elif "value_pattern" in example.metadata:
        values = set(re.findall(example.metadata["value_pattern"], example.context))
    else:
        return set()
    return values - set(example.gold)


def _tolerance_ok(task: str, length: int, prompt_tokens: int, max_new: int) -> bool:
    """Under the length, and within its tolerance for a task that fills its budget
    (json_kv keeps HELMET's fixed pair counts instead)."""
    floor = length - Budget(length, max_new).tolerance if get_task(task).fills_budget else 0
    return floor <= prompt_tokens + max_new <= length


@pytest.mark.slow
def test_gold_run_over_all_synthetic_tasks_at_8k_and_128k(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "gold.duckdb"
    args = ["run", "--model", "gold", "--tasks", "synthetic", "--lengths", "8k,128k"]
    args += ["--n", "2", "--db", str(db)]
    assert main(args) == 0
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute(
        "SELECT r.task, r.length, r.score, r.status, e.prompt_tokens, e.max_new_tokens "
        "FROM results r JOIN examples e USING (example_id)"
    ).fetchall()
    con.close()
    assert len(rows) == len(SYNTHETIC) * 2 * 2
    for task, length, score, status, prompt_tokens, max_new in rows:
        assert score == 1.0 and status == "ok", (task, length)
        assert _tolerance_ok(task, length, prompt_tokens, max_new), (task, length, prompt_tokens)
    capsys.readouterr()
    assert main(args) == 0
    assert "Nothing to do" in capsys.readouterr().out


def _config_with_small_window(tmp_path: Path) -> Path:
    config = tmp_path / "lctui.toml"
    config.write_text(
        textwrap.dedent("""
            [models.gold-4k]
            backend = "gold"
            description = "the reference answers, with a 4K window"
            max_context = 4096
        """)
    )
    return config


def test_length_above_the_window_is_refused_with_the_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config_with_small_window(tmp_path)
    db = tmp_path / "w.duckdb"
    args = ["run", "--config", str(config), "--model", "gold-4k", "--tasks", "niah_single_2"]
    code = main([*args, "--lengths", "2k,8k", "--n", "1", "--db", str(db)])
    out = capsys.readouterr()
    assert code == 2
    assert "window of 4096 tokens" in out.err and "8k" in out.err and "--truncate" in out.err
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM generations").fetchone() == (0,)
    con.close()


def test_truncate_cuts_the_context_to_the_window_and_records_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config_with_small_window(tmp_path)
    db = tmp_path / "t.duckdb"
    args = ["run", "--config", str(config), "--model", "gold-4k", "--tasks", "niah_single_2"]
    assert main([*args, "--lengths", "2k,8k", "--n", "2", "--truncate", "--db", str(db)]) == 0
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute(
        # r.prompt_tokens: what the model read (its own framing, not the allowance)
        "SELECT e.length, e.truncated, r.prompt_tokens, e.max_new_tokens, "
        "json_extract(e.metadata, '$.truncated_from')::INT "
        "FROM results r JOIN examples e USING (example_id) ORDER BY e.length"
    ).fetchall()
    con.close()
    assert [r[0] for r in rows] == [2048, 2048, 8192, 8192]
    for length, truncated, prompt_tokens, max_new, truncated_from in rows:
        if length == 2048:
            assert not truncated
        else:
            assert truncated and prompt_tokens + max_new <= 4096
            assert truncated_from > 4096


@pytest.mark.slow
def test_real_model_refuses_lengths_above_its_window(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["run", "--model", "smollm2-135m", "--tasks", "vt", "--lengths", "16k", "--n", "1",
         "--db", str(tmp_path / "s.duckdb")]
    )  # fmt: skip
    assert code == 2
    assert "window of 8192 tokens" in capsys.readouterr().err
