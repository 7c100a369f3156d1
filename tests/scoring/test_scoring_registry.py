"""score_example dispatches on metadata["scorer"]; error_score marks failed requests."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from lctui import scoring
from lctui.core.types import Example, Score, ScoreStatus
from lctui.scoring import (
    SCORER_FAILURE,
    error_score,
    register_scorer,
    score_example,
    score_recall,
)

Factory = Callable[..., Example]


def test_recall_is_the_default_scorer(make_example: Factory) -> None:
    score = score_example(make_example(["1234567"]), "1234567")
    assert score.scorer == "recall"
    assert score.value == 1.0


def test_missing_scorer_key_means_recall(make_example: Factory) -> None:
    example = make_example(["1234567"])
    meta = {k: v for k, v in example.metadata.items() if k != "scorer"}
    bare = Example(**{**example.__dict__, "metadata": meta})
    assert score_example(bare, "1234567").value == 1.0


def test_unknown_scorer_raises_a_clear_error(make_example: Factory) -> None:
    with pytest.raises(ValueError, match=r"scorer 'judge', which is not registered.*recall"):
        score_example(make_example(["1234567"], scorer="judge"), "1234567")


def test_registered_scorers_are_dispatched_to(
    make_example: Factory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scoring, "SCORERS", dict(scoring.SCORERS))

    def constant(example: Example, output: str) -> Score:
        return Score("constant", "none", 0.25, ScoreStatus.OK, (), "always a quarter")

    register_scorer("constant", constant)
    assert score_example(make_example(["x"], scorer="constant"), "y").value == 0.25
    with pytest.raises(ValueError, match="already registered"):
        register_scorer("constant", lambda example, output: constant(example, output))


def test_error_score_has_no_value() -> None:
    score = error_score("request timed out after 3 retries", scorer="recall", metric="subem")
    assert score.status is ScoreStatus.ERROR
    assert score.value is None
    assert score.explanation == "request timed out after 3 retries"
    assert score.metric == "subem"


def _brittle(example: Example, output: str) -> Score:
    """Fails on brackets the way LIFEval's JSON reading did before issue 17.5's fix."""
    if "[" in output:
        raise RecursionError("maximum recursion depth exceeded while decoding a JSON array")
    return score_recall(example, output)


def test_a_scorer_raising_on_an_output_scores_it_zero_unparsed_with_the_reason(
    make_example: Factory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scoring, "SCORERS", dict(scoring.SCORERS))
    register_scorer("brittle", _brittle)
    example = make_example(["1234567"], scorer="brittle")
    score = score_example(example, "[" * 1024)
    assert (score.status, score.value) == (ScoreStatus.UNPARSED, 0.0)
    assert "RecursionError: maximum recursion depth" in score.explanation
    assert score.extras[SCORER_FAILURE].startswith("RecursionError: maximum recursion depth")
    # The scorer's own points, all at 0: point-based means count the answer as a miss.
    assert [p.name for p in score.points] == [p.name for p in score_recall(example, "").points]
    assert all(p.earned == 0.0 and "RecursionError" in p.explanation for p in score.points)
    assert (score.scorer, score.metric) == ("recall", "string_match_all")


def test_a_scorer_failing_on_an_empty_output_too_is_a_bug_and_raises(
    make_example: Factory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scoring, "SCORERS", dict(scoring.SCORERS))

    def broken(example: Example, output: str) -> Score:
        raise KeyError("needle")

    register_scorer("broken", broken)
    with pytest.raises(KeyError, match="needle"):
        score_example(make_example(["1234567"], scorer="broken"), "1234567")
