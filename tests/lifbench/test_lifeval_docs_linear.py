"""The MultiDoc and OneDoc rubric programs read output in time linear in its size.

The original's expressions are quadratic on some outputs: its patterns `\\{[^\\]]+\\}`
and `\\[\\[.*?\\]\\]` backtrack on runs of `{` or `[[`, it scans the prompt once per
value a find_dup_text answer lists, and repeat runs a full edit distance per line
and candidate. The tests time scoring at size N and at GROWTH times N, in the same
run, each the best of a few batches: linear code takes about GROWTH times as long,
quadratic code GROWTH squared. The bound, three times the linear ratio, leaves a
wide margin on a busy machine. No absolute time is asserted.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import cache

import pytest

from lctui.core.types import Example
from lctui.scoring import score_example
from lctui.tasks import get_task
from lctui.tasks.tokenizers import reference_tokenizer

GROWTH = 8
BOUND = 3 * GROWTH


def _per_call(work: Callable[[], object], repeats: int = 3, batch_s: float = 0.02) -> float:
    best = float("inf")
    for _ in range(repeats):
        calls, started = 0, time.perf_counter()
        while True:
            work()
            calls += 1
            elapsed = time.perf_counter() - started
            if elapsed >= batch_s:
                break
        best = min(best, elapsed / calls)
    return best


@cache
def _example(task: str) -> Example:
    return get_task(task).generate(13312, 5, 1, reference_tokenizer("o200k_base"))


def _numbers(n: int) -> str:
    return "[[" + ", ".join(f'"{i}"' for i in range(n // 8)) + "]]"


@pytest.mark.parametrize(
    ("task", "make", "n"),
    [
        ("lifbench_batch_label", lambda n: "{" * n, 4_000),
        ("lifbench_batch_label", lambda n: "{" + "a," * (n // 2) + "}", 4_000),
        ("lifbench_find_dup_text", lambda n: "[[" * (n // 2), 4_000),
        ("lifbench_find_dup_text", lambda n: "[[x" * (n // 3) + "]]", 4_000),
        ("lifbench_find_dup_text", _numbers, 8_000),
        ("lifbench_find_dup_text", lambda n: "[[1]]\\x" * (n // 7), 4_000),
        ("lifbench_repeat", lambda n: "Some words ### #Topic# *Evidence*\n" * (n // 35), 4_000),
        ("lifbench_repeat", lambda n: "a" * n + " ### #Topic#", 4_000),
        ("lifbench_extract", lambda n: "[" * n, 4_000),
        ("lifbench_extract", lambda n: '["a", ' * (n // 6) + "\\x", 4_000),
        ("lifbench_qa", lambda n: "Yes or No " * (n // 10), 4_000),
    ],
)
def test_scoring_grows_linearly_with_the_output(
    task: str, make: Callable[[int], str], n: int
) -> None:
    example = _example(task)
    small, large = make(n), make(GROWTH * n)
    score_example(example, small)  # warm caches (compiled patterns, prompt hashes)
    ratio = _per_call(lambda: score_example(example, large)) / _per_call(
        lambda: score_example(example, small)
    )
    assert ratio < BOUND, ratio
