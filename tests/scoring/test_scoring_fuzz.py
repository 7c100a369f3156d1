"""Property: every scorer takes whatever a model writes, quickly, with a score in range.

Hypothesis drives the scorer of a real example of every registered task, and the
judge's reply reader, with outputs from fuzz_outputs.py: junk of every kind, the
example's own material in its own answer formats, runs that make patterns
backtrack, 100,000-level nesting and 1 MB outputs. Each score must come from the
scorer itself (no exception), be ok or unparsed, and hold a value and points in
[0, 1]. The slowest score of each task must stay under `HANG_S` of CPU time of the
scoring thread: a bound that a quadratic or backtracking scorer (minutes on a 1 MB
output) cannot meet, and a linear one meets with room to spare on a loaded machine.
The issue's target of 1 s a score is a timing, measured by bench/fuzz_scorers.py (the
slowest score, of a 1 MB output, takes about 0.25-0.35 s here on an idle machine; in
one full CI run the same score took 1.03 s of CPU time, which failed a 1 s bound).

Reproducible: the same outputs on every run and machine (each task's drawn with a seed
of its own, the judge's derandomized) and no example database. Other outputs, many
more: bench/fuzz_scorers.py runs 100,000.
"""

from __future__ import annotations

import time
import zlib
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from helpers.fuzz_outputs import (
    JUNK,
    TASKS,
    example_of,
    judge_replies,
    outputs,
    score_output,
    score_problems,
    verdict_problems,
)
from lctui.core.types import ScoreStatus
from lctui.scoring.judge import (
    QA,
    ROLE_QA,
    ROLE_RECALL,
    SUMM,
    JudgePrompt,
    JudgeTask,
    judge_prompts,
    judge_score,
    parse_reply,
)

HANG_S = 5.0  # no score this slow; the 1 s target (issue 10.6) is bench/fuzz_scorers.py's
OUTPUTS_PER_TASK = 80
JUDGE_REPLIES = 150


def _settings(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,  # timed below, in CPU time
        derandomize=True,
        database=None,
        # Large outputs are built by repeating small draws: slow to score, not to draw.
        suppress_health_check=[HealthCheck.too_slow],
        print_blob=False,
    )


class Slowest:
    """The slowest call seen, for one assertion after all outputs ran."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.what = "nothing"

    def note(self, seconds: float, output: str) -> None:
        if seconds > self.seconds:
            self.seconds = seconds
            self.what = f"an output of {len(output):,} characters starting {output[:80]!r}"


@pytest.mark.slow
@pytest.mark.parametrize("task", TASKS)
# The original LIFEval decodes escapes as Python's codec does, which warns on "\\q".
@pytest.mark.filterwarnings("ignore:invalid escape sequence:DeprecationWarning")
def test_scorer_scores_any_output_in_range_and_in_time(task: str) -> None:
    example = example_of(task)
    slowest = Slowest()

    @seed(zlib.crc32(task.encode()))  # reproducible, and other outputs for each task
    @_settings(OUTPUTS_PER_TASK)
    @given(outputs(example))
    def score_one(output: str) -> None:
        started = time.thread_time()
        score = score_output(example, output)
        slowest.note(time.thread_time() - started, output)
        assert not score_problems(example, score), (score_problems(example, score), score)

    score_one()
    assert slowest.seconds < HANG_S, f"{task}: {slowest.seconds:.2f} s CPU for {slowest.what}"


QA_TASK = JudgeTask(QA, "When was the treaty signed?", ("1840", "in 1840"))
SUMM_TASK = JudgeTask(SUMM, "Sum up the report.", (), ("a treaty", "a war", "a vote"), "A. B. C.")
# The output being judged, as answer and as summary: its sentence count is the number
# of verdicts the precision call must give (up to judge.MAX_SENTENCES).
SUMMARIES = st.one_of(
    st.lists(
        st.sampled_from(("The treaty was signed.", "War broke out!", "Why?")), max_size=45
    ).map(" ".join),
    JUNK,
)


@pytest.mark.slow
def test_judge_reply_reader_gives_a_valid_verdict_or_none_in_time() -> None:
    slowest = Slowest()

    @_settings(JUDGE_REPLIES)
    @given(summary=SUMMARIES, reply=judge_replies())
    def read_one(summary: str, reply: str) -> None:
        for task in (replace(QA_TASK, output=summary), replace(SUMM_TASK, output=summary)):
            prompts = judge_prompts(task)
            started = time.thread_time()
            parsed = {prompt.role: parse_reply(prompt, reply) for prompt in prompts}
            score = judge_score(task, parsed, {prompt.role: reply for prompt in prompts})
            slowest.note(time.thread_time() - started, reply)
            for prompt in prompts:
                assert not verdict_problems(prompt, parsed[prompt.role]), parsed[prompt.role]
            assert score.status in (ScoreStatus.OK, ScoreStatus.UNPARSED), score.explanation
            assert score.value is not None and 0.0 <= score.value <= 1.0, score
            assert all(0.0 <= p.earned <= 1.0 for p in score.points), score.points

    read_one()
    assert slowest.seconds < HANG_S, f"judge: {slowest.seconds:.2f} s CPU for {slowest.what}"


# -- what the fuzzing found: each minimal output, as a plain example -------------------------


def test_judge_reader_skips_an_item_number_too_long_for_int() -> None:
    # int() refuses strings of over 4,300 digits: parse_reply raised ValueError.
    recall_one = JudgePrompt(ROLE_RECALL, "", 256, items=1)
    assert parse_reply(recall_one, "point " + "1" * 5_000 + ": 0") is None
    assert parse_reply(recall_one, "point " + "1" * 5_000 + ": 0\npoint 1: yes") == {
        "verdicts": [{"supported": True, "reason": ""}]
    }


def test_judge_reader_refuses_a_grade_of_5000_digits() -> None:
    qa = JudgePrompt(ROLE_QA, "", 256)
    assert parse_reply(qa, "fluency: " + "9" * 5_000 + "\ncorrectness: 3") is None


def test_judge_reader_refuses_grades_and_ids_too_large_for_a_float() -> None:
    # A 401-digit JSON integer went through float(): OverflowError.
    huge = "1" + "0" * 400
    qa = JudgePrompt(ROLE_QA, "", 256)
    assert parse_reply(qa, f'{{"fluency": {huge}, "correctness": 3}}') is None
    recall_one = JudgePrompt(ROLE_RECALL, "", 256, items=1)
    reply = f'{{"points": [{{"id": {huge}, "supported": true}}]}}'
    assert parse_reply(recall_one, reply) == {"verdicts": [{"supported": True, "reason": ""}]}


def test_multi_query_id_reads_a_lone_surrogate_where_the_original_cannot_encode_it() -> None:
    # JSON's "\\ud800" decodes to a lone surrogate, which UTF-8 cannot encode: the
    # unescaping of the output (the original's text.encode("utf-8")) raised.
    example = example_of("lifbench_multi_query_id")
    score = score_output(example, "\ud800")
    assert not score_problems(example, score), score
    correct = next(p for p in score.points if p.name == "correct")
    assert "the original cannot decode" in correct.explanation
