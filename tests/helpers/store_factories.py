"""Factories for store tests: small but realistic examples, generations and scores."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from lctui.core.types import (
    Example,
    Generation,
    GenerationStatus,
    ModelSpec,
    RubricPoint,
    Score,
    ScoreStatus,
    Span,
)
from lctui.store import Store

MODEL = ModelSpec(name="tiny", backend="hf", path="/models/tiny", params={"dtype": "bf16"})
GOLD = ModelSpec(name="gold", backend="gold", reference=True)


def make_example(i: int = 0, task: str = "niah_single", length: int = 4096) -> Example:
    context = f"Haystack {i}. " * 20 + "The magic number is 4217. " + "More hay. " * 10
    return Example(
        example_id=f"ex-{task}-{length}-{i}",
        task=task,
        category="retrieval",
        suite="ruler",
        length=length,
        seed=2**62 + 7,  # seeds are 63-bit hashes
        index=i,
        tokenizer="o200k_base",
        params={"needles": 1, "haystack": "essay"},
        preamble="Read the text and answer.\n",
        context=context,
        question="\nWhat is the magic number?",
        answer_prefix="The magic number is",
        gold=("4217",),
        max_new_tokens=32,
        prompt_tokens=3900,
        template_overhead=12,
        depth=42.5,
        spans=(Span(280, 306, "needle", "n0"),),
        truncated=False,
        metadata={"metric": "recall"},
    )


def make_generation(
    example: Example,
    gen_key: str = "key-0",
    generation_id: str = "gen-0",
    status: GenerationStatus = GenerationStatus.OK,
    started_at: float | None = None,
    run_id: str = "run-1",
    model_id: str = "fp-tiny",
) -> Generation:
    failed = status is GenerationStatus.ERROR
    return Generation(
        generation_id=generation_id,
        gen_key=gen_key,
        run_id=run_id,
        model_id=model_id,
        example_id=example.example_id,
        config_hash="cfg-1",
        status=status,
        output="" if failed else "4217.",
        prompt_tokens=0 if failed else 3911,
        output_tokens=0 if failed else 3,
        ttft_s=None if failed else 0.25,
        latency_s=1.5,
        finish_reason=None if failed else "stop",
        error="TimeoutError: server did not answer" if failed else None,
        started_at=time.time() if started_at is None else started_at,
        prompt_head="<|user|>\n",
        prompt_tail="\n<|assistant|>\nThe magic number is",
    )


def make_score(value: float = 1.0, status: ScoreStatus = ScoreStatus.OK) -> Score:
    return Score(
        scorer="recall",
        metric="recall",
        value=None if status is ScoreStatus.ERROR else value,
        status=status,
        extracted=("4217",),
        explanation="all gold values found",
        points=(
            RubricPoint("finds the number", 2.0, value, "4217 present", ("retrieval",)),
            RubricPoint("answers briefly", 1.0, 1.0, "3 tokens", ("format", "brevity")),
        ),
        extras={"matched": 1},
    )


def error_score() -> Score:
    return Score("recall", "recall", None, ScoreStatus.ERROR, (), "request failed")


def write_tiny_run(store: Store) -> None:
    """run-1 of `tiny`: @ 4096 scores 1.0, 0.5, unparsed (0) and one error; @ 8192 one 1.0.

    Generation ids are `g-{length}-{i}`, keys `k-{length}-{i}`; the run is finished and
    the rows stay buffered (the caller flushes or reads through the store)."""
    store.add_model(MODEL, "fp-tiny", "o200k_base", 8192)
    store.start_run("run-1", {"argv": ["run"]})
    cases = [
        (4096, 0, make_score(1.0)),
        (4096, 1, make_score(0.5)),
        (4096, 2, make_score(0.0, ScoreStatus.UNPARSED)),
        (4096, 3, error_score()),
        (8192, 0, make_score(1.0)),
    ]
    for length, i, score in cases:
        example = make_example(i, length=length)
        failed = score.status is ScoreStatus.ERROR
        status = GenerationStatus.ERROR if failed else GenerationStatus.OK
        gid = f"g-{length}-{i}"
        generation = make_generation(example, f"k-{length}-{i}", gid, status)
        store.add_example(example)
        store.add_generation(generation, {"max_new_tokens": 32})
        store.add_score(gid, score)
    store.finish_run("run-1", "finished")


SRC = Path(__file__).resolve().parents[2] / "src"


def start_python(code: str, ready: str) -> subprocess.Popen[str]:
    """Run `code` (dedented) in another Python process and wait until it prints `ready`."""
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(SRC)},
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == ready
    return proc
