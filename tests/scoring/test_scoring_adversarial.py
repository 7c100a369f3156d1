"""Every registered task's scorer, and the judge's reply reader, on text written to break them.

Each output must come back as a score with status ok or unparsed and a value in
[0, 1], handled by the scorer itself (no `scorer_failure` marker, which would mean
it raised). The time budget per output is a safety net far above what the linear
scorers need (well under a second here), so a scorer that goes quadratic or hangs
fails the test instead of stalling CI; it is not a timing assertion (the growth
tests in test_scoring_linear.py check the complexity).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import cache

import pytest

from lctui.backends.gold import reference_answer
from lctui.core.types import Example, ScoreStatus
from lctui.scoring import SCORER_FAILURE, score_example
from lctui.scoring.judge import (
    QA,
    ROLE_PRECISION,
    ROLE_QA,
    ROLE_RECALL,
    SUMM,
    JudgePrompt,
    JudgeTask,
    judge_score,
    parse_reply,
)
from lctui.tasks import all_tasks, get_task
from lctui.tasks.tokenizers import reference_tokenizer

BUDGET_S = 30.0  # per output: a safety net, not a timing assertion (see above)
ONE_MB = 1_000_000

Output = Callable[[Example], str]


def _repeated(text: str, size: int) -> str:
    return (text + "\n") * (size // (len(text) + 1) + 1)


ADVERSARIAL: dict[str, Output] = {
    # Issue 17.5: 512 tokens of "[" raised RecursionError in five LIFEval scorers.
    "deep_brackets": lambda ex: "[" * 1024,
    "deeper_brackets": lambda ex: "[" * 200_000,
    "deep_objects": lambda ex: '{"a": ' * 20_000,
    "deep_closed_lists": lambda ex: "[" * 5_000 + "]" * 5_000,
    "deep_list_in_text": lambda ex: "Answer: [" + "[" * 3_000 + reference_answer(ex),
    "nul_bytes": lambda ex: "\x00" * 10_000 + reference_answer(ex) + "\x00",
    "lone_surrogates": lambda ex: ("\ud800" + reference_answer(ex) + "\udfff ") * 200,
    "only_whitespace": lambda ex: " \t\r\n\u3000" * 20_000,
    "repeated_token": lambda ex: "the " * 100_000,
    "repeated_answer": lambda ex: _repeated(reference_answer(ex) or "x", 300_000),
    "long_blank_run": lambda ex: "a" + " " * 100_000 + "x",
    "labelled_blank_run": lambda ex: "doc1: a" + " " * 100_000 + "x",
    "typed_blank_run": lambda ex: "Topic" + " " * 100_000 + "x\ny",
    "open_tags": lambda ex: "<Topic-1>" * 20_000,
    "escaped_quotes": lambda ex: '"' + '\\"' * 100_000,
    "fence_blank_run": lambda ex: "```" + " " * 100_000 + "x",
    "huge_context_echo": lambda ex: _repeated(ex.context, ONE_MB),
}
TASKS = [task.name for task in all_tasks()]


@cache
def _example(task: str) -> Example:
    return get_task(task).generate(2048, 3, 0, reference_tokenizer("o200k_base"))


@pytest.mark.slow
@pytest.mark.parametrize("kind", ADVERSARIAL)
@pytest.mark.parametrize("task", TASKS)
def test_every_scorer_scores_adversarial_output(task: str, kind: str) -> None:
    example = _example(task)
    output = ADVERSARIAL[kind](example)
    started = time.monotonic()
    score = score_example(example, output)
    took = time.monotonic() - started
    assert score.status in (ScoreStatus.OK, ScoreStatus.UNPARSED), score.explanation
    assert score.value is not None and 0.0 <= score.value <= 1.0
    assert SCORER_FAILURE not in score.extras, score.explanation
    assert all(0.0 <= p.earned <= 1.0 for p in score.points)
    assert took < BUDGET_S, f"{kind} took {took:.1f} s"


JUDGE_REPLIES: dict[str, str] = {
    # Issue 17.6: "a", 2,000 spaces, "x" took 10 s; 4,000 spaces over 30 s.
    "blank_run": "a" + " " * 4_000 + "x",
    "long_blank_run": "a" + " " * 100_000 + "x",
    "named_blank_run": "fluency: 1" + " " * 100_000 + "x",
    "grade_blank_run": "correctness: 2" + " " * 100_000 + "/",
    "open_objects": '{"k":1,' * 40_000,
    "deep_objects": '{"k":' * 20_000,
    "braces": "{" * 200_000,
    "newlines": "\n" * 200_000,
    "escaped_quotes": '{"' + '\\"' * 100_000,
    "fences": "```" + " " * 100_000,
    "nul_and_surrogates": "\x00\ud800" * 50_000,
    "repeated_verdict": '{"fluency": 1, "correctness": 3}' * 20_000,
}
PROMPTS = {
    ROLE_QA: JudgePrompt(ROLE_QA, "grade", 256),
    ROLE_RECALL: JudgePrompt(ROLE_RECALL, "recall", 256, 3),
    ROLE_PRECISION: JudgePrompt(ROLE_PRECISION, "precision", 256, 2),
}


@pytest.mark.parametrize("kind", JUDGE_REPLIES)
def test_judge_replies_written_to_break_the_reader_give_a_verdict_or_unparsed(kind: str) -> None:
    reply = JUDGE_REPLIES[kind]
    qa = JudgeTask(QA, "When?", ("1840",), output="In 1840.")
    summ = JudgeTask(SUMM, "Sum up.", (), ("a", "b", "c"), "A. B.", "One. Two.")
    started = time.monotonic()
    parsed = {role: parse_reply(prompt, reply) for role, prompt in PROMPTS.items()}
    scores = [
        judge_score(qa, {ROLE_QA: parsed[ROLE_QA]}, {ROLE_QA: reply}),
        judge_score(
            summ,
            {role: parsed[role] for role in (ROLE_RECALL, ROLE_PRECISION)},
            {ROLE_RECALL: reply, ROLE_PRECISION: reply},
        ),
    ]
    took = time.monotonic() - started
    for score in scores:
        assert score.status in (ScoreStatus.OK, ScoreStatus.UNPARSED), score.explanation
        assert score.value is not None and 0.0 <= score.value <= 1.0
    assert took < BUDGET_S, f"{kind} took {took:.1f} s"
