"""LongBench v2's answer reading and score: the answer sentence with or without
parentheses, Markdown asterisks dropped, anything else unparsed (never a guess)."""

from __future__ import annotations

import pytest

from helpers.example_factory import make_test_example
from lctui.core.types import ScoreStatus
from lctui.scoring import score_example
from lctui.suites.longbench.scoring import choice_span, extract_choice


@pytest.mark.parametrize(
    ("response", "letter"),
    [
        ("The correct answer is (B)", "B"),
        ("Reasoning... The correct answer is C.", "C"),
        ("**The correct answer is (D)**", "D"),
        ("The correct answer is **(A)**", "A"),
        ("The correct answer is (A). Or maybe The correct answer is (B)", "A"),
        # the bare form is tried only when no parenthesised one is there
        ("The correct answer is B, no: The correct answer is (C)", "C"),
        ("the correct answer is (B)", None),  # case matters, as in the original
        ("The correct answer is (E)", None),
        ("The correct answer is: (B)", None),
        ("Answer: B", None),
        ("", None),
    ],
)
def test_extract_choice_reads_only_the_answer_sentence(response: str, letter: str | None) -> None:
    assert extract_choice(response) == letter
    found = choice_span(response)
    assert (found.letter if found else None) == letter
    if found is not None:  # the marked sentence is the one read, asterisks and all
        marked = response[found.start : found.end]
        assert marked.replace("*", "").startswith("The correct answer is")
        assert extract_choice(marked) == letter and marked.rstrip(")*").endswith(found.letter)


def test_a_right_answer_scores_1_a_wrong_one_0_and_none_is_unparsed() -> None:
    example = make_test_example(task="longbench_v2", gold=("B",), metadata={"scorer": "longbench"})
    right = score_example(example, "The correct answer is (B)")
    wrong = score_example(example, "The correct answer is (C)")
    none = score_example(example, "I think it is B")
    assert (right.value, right.status, right.extracted) == (1.0, ScoreStatus.OK, ("B",))
    assert (wrong.value, wrong.status, wrong.extracted) == (0.0, ScoreStatus.OK, ("C",))
    assert (none.value, none.status, none.extracted) == (0.0, ScoreStatus.UNPARSED, ())
    assert [s.extras["compensated"] for s in (right, wrong, none)] == [1.0, 0.0, 0.25]
    assert [p.earned for p in wrong.points] == [1.0, 0.0]
    assert [p.earned for p in none.points] == [0.0, 0.0]
    assert right.scorer_version == 1 and right.metric == "accuracy"
