"""Every score a scorer makes carries the current version of its rules
(scoring/versions.py); a failed request's score carries none."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from lctui import scoring
from lctui.backends import load_backend
from lctui.core.types import Example, ModelSpec, Score, ScoreStatus
from lctui.engine.judging import Judging
from lctui.scoring import (
    SCORER_VERSIONS,
    error_score,
    register_scorer,
    score_example,
    score_failed_output,
)
from lctui.scoring.judge import QA, JudgeTask
from lctui.store import open_store

Factory = Callable[..., Example]


def test_scores_carry_the_current_version_of_their_scorer(
    make_example: Factory, monkeypatch: pytest.MonkeyPatch
) -> None:
    example = make_example(["1234567"])
    assert score_example(example, "1234567").scorer_version == SCORER_VERSIONS["recall"]
    monkeypatch.setitem(SCORER_VERSIONS, "recall", 9)  # read at each score
    assert score_example(example, "1234567").scorer_version == 9
    assert score_example(example, "no number").scorer_version == 9  # unparsed too
    timed_out = score_failed_output(example, "took too long")
    assert (timed_out.status, timed_out.scorer_version) == (ScoreStatus.UNPARSED, 9)
    blank = score_failed_output(example, "took too long", with_points=False)
    assert blank.scorer_version == 9
    assert error_score("connection refused").scorer_version is None  # no scorer's rules


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Scorers registered by a test are gone after it (with their versions)."""
    monkeypatch.setattr(scoring, "SCORERS", dict(scoring.SCORERS))
    versions = dict(SCORER_VERSIONS)
    monkeypatch.setattr("lctui.scoring.versions.SCORER_VERSIONS", versions)
    monkeypatch.setattr(scoring, "SCORER_VERSIONS", versions)


@pytest.mark.usefixtures("registry")
def test_an_output_the_scorer_fails_on_carries_its_version(make_example: Factory) -> None:

    def fussy(example: Example, output: str) -> Score:
        if output:
            raise ValueError("cannot read that")
        return Score("fussy", "m", 0.0, ScoreStatus.UNPARSED, (), "empty")

    register_scorer("fussy", fussy, version=3)
    failed = score_example(make_example(["x"], scorer="fussy"), "[[[")
    assert (failed.value, failed.status, failed.scorer_version) == (0.0, ScoreStatus.UNPARSED, 3)


@pytest.mark.usefixtures("registry")
def test_a_registered_scorer_without_a_version_starts_at_1(make_example: Factory) -> None:
    def quarter(example: Example, output: str) -> Score:
        return Score("quarter", "none", 0.25, ScoreStatus.OK, (), "always a quarter")

    register_scorer("quarter", quarter)
    assert score_example(make_example(["x"], scorer="quarter"), "y").scorer_version == 1


def test_judge_scores_carry_the_judges_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(SCORER_VERSIONS, "judge", 4)
    gold = ModelSpec(name="gold", backend="gold", reference=True)
    task = JudgeTask(QA, "When was it built?", ("1840",), output="In 1840.")
    with open_store(tmp_path / "judge.duckdb") as store:
        asyncio.run(Judging(gold, load_backend, store).judge([("generation-1", task)]))
        store.flush(force=True)
        stored = (
            store.cursor()
            .execute("SELECT status, scorer_version FROM scores WHERE scorer = 'judge'")
            .fetchall()
        )
    [(status, version)] = stored
    assert status != "error" and version == 4
