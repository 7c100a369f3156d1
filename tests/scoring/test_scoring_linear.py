"""Extraction and reply parsing grow linearly with the output (issue 17.6).

Each case was quadratic or worse before: an input of the smaller size took from a
few hundredths of a second to a fifth of one, the larger one seconds. The tests
compare the time per call at size N and at GROWTH times N, in the same run, each
the best of a few batches: linear code takes about GROWTH times as long, quadratic code GROWTH
squared. The bound, three times the linear ratio, leaves a wide margin for a busy
machine on both sides. No absolute time is asserted.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from functools import cache, partial

import pytest

from lctui.core.types import Example
from lctui.scoring import score_example
from lctui.scoring.extract import extract_values
from lctui.scoring.judge import ROLE_QA, ROLE_RECALL, JudgePrompt, find_json_object, parse_reply
from lctui.tasks import get_task
from lctui.tasks.tokenizers import reference_tokenizer

GROWTH = 8
BOUND = 3 * GROWTH  # linear: about GROWTH; quadratic: GROWTH ** 2 = 64


def _per_call(work: Callable[[], object], repeats: int = 3, batch_s: float = 0.02) -> float:
    """Seconds per call of `work`: the best of `repeats` batches of calls, each batch
    long enough (`batch_s`) that a call of microseconds is timed as well as a slow one."""
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


def _growth(run: Callable[[str], object], make: Callable[[int], str], n: int) -> float:
    small, large = make(n), make(GROWTH * n)
    run(small)  # warm caches (compiled patterns, parsed contexts)
    return _per_call(lambda: run(large)) / _per_call(lambda: run(small))


@cache
def _example(task: str) -> Example:
    return get_task(task).generate(2048, 5, 0, reference_tokenizer("o200k_base"))


def test_extraction_of_a_repeated_answer_is_linear() -> None:
    # Every gold hit was compared with every pattern match: 64 KB took 0.8 s, 128 KB 3 s.
    gold = ["1234567", "7654321"]
    pattern = re.compile(r"\b\d{7}\b")

    def make(n: int) -> str:
        return "1234567 7654321 " * (n // 16)

    ratio = _growth(lambda out: extract_values(out, gold, pattern=pattern), make, 32_000)
    assert ratio < BOUND, ratio


def test_extraction_of_repeated_multiword_candidates_is_linear() -> None:
    golds = ["ice cream", "hot dog"]
    candidates = ["ice cream", "hot dog", "apple pie", "ice", "dog"]

    def make(n: int) -> str:
        return "ice cream hot dog apple pie ice " * (n // 32)

    ratio = _growth(lambda out: extract_values(out, golds, candidates=candidates), make, 32_000)
    assert ratio < BOUND, ratio


def test_extraction_of_many_distinct_values_is_linear() -> None:
    pattern = re.compile(r"\b\d{7}\b")

    def make(n: int) -> str:
        return " ".join(f"{i:07d}" for i in range(n // 8))

    ratio = _growth(
        lambda out: extract_values(out, ["9999999"], pattern=pattern, instruction="q?"),
        make,
        64_000,
    )
    assert ratio < BOUND, ratio


QA = JudgePrompt(ROLE_QA, "grade", 256)
RECALL = JudgePrompt(ROLE_RECALL, "recall", 256, 3)


@pytest.mark.parametrize(
    ("name", "make", "n"),
    [
        # Issue 17.6: "a" + 2,000 spaces + "x" took 10 s, 4,000 spaces over 30 s.
        ("blank run", lambda n: "a" + " " * n + "x", 500),
        ("name and blank run", lambda n: "point 1: a" + " " * n + "x", 2_000),
        ("grade and blank run", lambda n: "correctness: 2" + " " * n + "x", 2_000),
        ("blank lines", lambda n: "\n" * n, 4_000),
    ],
)
def test_judge_reply_lines_are_read_in_linear_time(
    name: str, make: Callable[[int], str], n: int
) -> None:
    for prompt in (QA, RECALL):
        ratio = _growth(partial(parse_reply, prompt), make, n)
        assert ratio < BOUND, (name, prompt.role, ratio)


def test_json_objects_in_a_judge_reply_are_found_in_linear_time() -> None:
    # Every "{" started a decode running to the end: 280 KB took 1.8 s.
    ratio = _growth(find_json_object, lambda n: '{"k":1,' * (n // 7), 40_000)
    assert ratio < BOUND, ratio


@pytest.mark.parametrize(
    ("task", "make", "n"),
    [
        ("lifbench_batch_label", lambda n: "doc1: a" + " " * n + "x", 2_000),
        ("lifbench_single_query_id", lambda n: "```" + " " * n + "x", 2_000),
        ("lifbench_repeat", lambda n: "<Topic-1>" * (n // 9), 4_000),
        ("lifbench_repeat", lambda n: "Topic" + " " * n + "x", 2_000),
        ("lifbench_extract", lambda n: "a" + " " * n + "x", 2_000),
        ("lifbench_extract", lambda n: "<Topic-1>" * (n // 9), 4_000),
    ],
)
def test_lifeval_rubric_programs_read_output_in_linear_time(
    task: str, make: Callable[[int], str], n: int
) -> None:
    example = _example(task)
    ratio = _growth(lambda out: score_example(example, out), make, n)
    assert ratio < BOUND, ratio
