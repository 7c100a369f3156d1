"""Judge calls are paid for: they are stored even when their text holds a lone
surrogate, kept and retried while the file refuses writes, and a write that never
succeeds is said in the summary instead of failing the run (found in review)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any

import duckdb
import pytest

from lctui.backends import load_backend
from lctui.core.errors import StoreError
from lctui.core.types import ModelSpec
from lctui.engine import judging
from lctui.engine.judging import Judging
from lctui.scoring.judge import QA, JudgeTask
from lctui.store import open_store
from lctui.tasks import get_task
from lctui.tasks.tokenizers import reference_tokenizer

GOLD = ModelSpec(name="gold", backend="gold", reference=True)


def _task(output: str) -> JudgeTask:
    return JudgeTask(QA, "When was it built?", ("1840",), output=output)


def _stored(db: Path) -> tuple[list[str], list[tuple[str, str]]]:
    with duckdb.connect(str(db), read_only=True) as con:
        prompts = [str(r[0]) for r in con.execute("SELECT prompt FROM judge_calls").fetchall()]
        scores = con.execute("SELECT status, metric FROM scores WHERE scorer = 'judge'").fetchall()
    return prompts, [(str(a), str(b)) for a, b in scores]


def test_calls_on_an_output_with_a_lone_surrogate_are_stored_repaired(tmp_path: Path) -> None:
    db = tmp_path / "judge.duckdb"
    example = get_task("niah_single_1").generate(
        1024, seed=0, index=0, tokenizer=reference_tokenizer("o200k_base")
    )
    example = replace(example, metadata={**example.metadata, "judge": QA})
    with open_store(db) as store:
        judge = Judging(GOLD, load_backend, store)
        judge.collect(example, "g1", "Built in 1840 \ud800.")  # as the engine hands it on
        summary = asyncio.run(judge.finish())
    prompts, scores = _stored(db)
    assert summary.errors == 0 and prompts and scores
    assert all("\ufffd" in p for p in prompts if "1840 " in p)


def test_calls_are_kept_and_written_once_the_file_takes_them_with_fake_refusals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store that refuses the first writes (a fake: a real busy file needs 15 s)."""
    real = judging.add_judge_calls
    refusals = {"left": 2}

    def refusing(src: Any, calls: Any) -> int:
        if refusals["left"]:
            refusals["left"] -= 1
            raise StoreError("the file is busy (a fake refusal)")
        return real(src, calls)

    monkeypatch.setattr(judging, "add_judge_calls", refusing)
    monkeypatch.setattr(judging, "WRITE_EVERY", 1)  # a write after each call
    db = tmp_path / "judge.duckdb"
    items = [(f"g{i}", _task(f"In {1840 + i}.")) for i in range(3)]
    with open_store(db) as store:
        summary = asyncio.run(Judging(GOLD, load_backend, store).judge(items))
    prompts, scores = _stored(db)
    assert summary.errors == 0 and refusals["left"] == 0
    assert len(prompts) == summary.calls == len(set(prompts)), "every paid call once"
    assert len(scores) == 3


def test_a_write_that_never_succeeds_is_said_not_raised_with_fake_refusals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refusing(src: Any, calls: Any) -> int:
        raise StoreError("No space left on device (a fake refusal)")

    monkeypatch.setattr(judging, "add_judge_calls", refusing)
    monkeypatch.setattr(judging, "FINAL_WRITE_TRIES", 2)
    db = tmp_path / "judge.duckdb"
    with open_store(db) as store:
        summary = asyncio.run(Judging(GOLD, load_backend, store).judge([("g1", _task("1840"))]))
    prompts, scores = _stored(db)
    assert prompts == [] and len(scores) == 1, "the verdict is a score, stored all the same"
    assert summary.errors == 1
    assert "could not be stored (No space left on device" in summary.messages[-1]
