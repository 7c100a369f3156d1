"""Scores cut long text the one way (core/text.py): at the stated width, the cut
marked with `…`, as the TUI and the CLI mark theirs."""

from __future__ import annotations

from lctui.core.types import ScoreStatus
from lctui.scoring.failure import REASON_LIMIT, describe_failure
from lctui.scoring.judge import QA, ROLE_QA, JudgeTask, judge_score


def test_a_scorer_failure_is_one_line_cut_with_the_one_ellipsis() -> None:
    reason = describe_failure(ValueError("cannot read\n\n" + "[" * 1000))
    assert len(reason) == REASON_LIMIT
    assert reason.startswith("ValueError: cannot read [[[") and reason.endswith("[…")
    assert "..." not in reason


def test_an_unreadable_judge_reply_is_quoted_cut_with_the_one_ellipsis() -> None:
    task = JudgeTask(QA, "Q?", ("a",), output="an answer")
    reply = "I think\nit is " + "fine " * 100
    score = judge_score(task, {ROLE_QA: None}, {ROLE_QA: reply})
    assert score.status is ScoreStatus.UNPARSED
    quoted = score.explanation.split(": ", 1)[1]
    assert quoted.startswith("'I think it is fine fine") and quoted.endswith("…'")
    assert len(quoted) == 160 + 2  # the width asked, and the quotes
    assert "..." not in score.explanation
