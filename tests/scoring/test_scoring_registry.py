"""score_example dispatches on metadata["scorer"]; error_score marks failed requests."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from lctui import scoring
from lctui.core.types import Example, Score, ScoreStatus
from lctui.scoring import error_score, register_scorer, score_example

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
