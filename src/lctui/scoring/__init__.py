"""Scoring layer: turns (example, output) into a Score through a registry of named scorers.

Examples name their scorer in `metadata["scorer"]` (default "recall"); suites register more:
those below, and those a suite declares (`Suite.scorers`, core/suites.py), imported the
first time an example names one.
A scorer that fails on an output scores that output 0 (unparsed), see scoring/failure.py.
Every score made here carries its scorer's version (scoring/versions.py: bump it with
any change that can change a stored score).
"""

from __future__ import annotations

import threading

from lctui.core.suites import suite_of_scorer
from lctui.core.types import Example, Score
from lctui.scoring.base import Scorer, error_score
from lctui.scoring.failure import SCORER_FAILURE, describe_failure, failed_output_score
from lctui.scoring.helmet_alce import (
    ASQA_SCORER,
    QAMPARI_SCORER,
    score_helmet_alce_asqa,
    score_helmet_alce_qampari,
)
from lctui.scoring.helmet_scorers import (
    ICL_SCORER,
    MC_SCORER,
    RERANK_SCORER,
    ROUGE_SCORER,
    score_helmet_icl,
    score_helmet_mc,
    score_helmet_rerank,
    score_helmet_rouge,
)
from lctui.scoring.recall import score_recall
from lctui.scoring.relation import score_relation
from lctui.scoring.versions import SCORER_VERSIONS, current_versions, with_version

DEFAULT_SCORER = "recall"

SCORERS: dict[str, Scorer] = {"recall": score_recall}


def register_scorer(
    name: str, scorer: Scorer, *, version: int | None = None, replace: bool = False
) -> None:
    """Make `scorer` available to examples whose metadata names `name`.

    `version` declares the version of its rules (scoring/versions.py); the built-in
    scorers declare theirs in SCORER_VERSIONS, others default to 1.
    """
    if name in SCORERS and not replace and SCORERS[name] is not scorer:
        raise ValueError(f"a scorer named {name!r} is already registered")
    SCORERS[name] = scorer
    if version is not None:
        SCORER_VERSIONS[name] = version
    else:
        SCORER_VERSIONS.setdefault(name, 1)


register_scorer(RERANK_SCORER, score_helmet_rerank)
register_scorer(ICL_SCORER, score_helmet_icl)
register_scorer(ROUGE_SCORER, score_helmet_rouge)
register_scorer(MC_SCORER, score_helmet_mc)
register_scorer(ASQA_SCORER, score_helmet_alce_asqa)
register_scorer(QAMPARI_SCORER, score_helmet_alce_qampari)


def scorer_of(example: Example) -> tuple[str, Scorer]:
    """(name, scorer) the example asks for; ValueError when none is registered under it."""
    name = example.metadata.get("scorer", DEFAULT_SCORER)
    scorer = SCORERS.get(name) if isinstance(name, str) else None
    if scorer is None:
        scorer = _suite_scorer(name)
    if scorer is None:
        raise ValueError(
            f"example {example.example_id} of task {example.task} asks for scorer {name!r}, "
            f"which is not registered; known scorers: {', '.join(sorted(SCORERS))}"
        )
    return name, scorer


_loading = threading.Lock()


def _suite_scorer(name: object) -> Scorer | None:
    """The scorer `name` a suite declares, registered with its version on first use
    (once, whichever scoring thread asks first)."""
    suite = suite_of_scorer(name)
    if suite is None:
        return None
    with _loading:
        for declared in suite.scorers:
            if declared.name not in SCORERS:
                # Its version stays the declared one (scoring/versions.py reads it there).
                SCORERS[declared.name] = declared.load()
    return SCORERS.get(str(name))


def score_example(example: Example, output: str) -> Score:
    """Score one output with the scorer the example names.

    When the scorer raises on this output but scores an empty one, the output caused
    it: it is scored 0, unparsed, with the exception as the reason. When the scorer
    fails on an empty output too, the example cannot be scored at all (a task or
    scorer bug) and the first exception propagates.
    """
    name, scorer = scorer_of(example)
    try:
        return with_version(scorer(example, output), name)
    except Exception as exc:
        failure = exc
    try:
        score = failed_output_score(example, scorer, name, describe_failure(failure))
    except Exception:
        raise failure from None
    return with_version(score, name)


def score_failed_output(example: Example, reason: str, *, with_points: bool = True) -> Score:
    """The 0 (unparsed) score of an output that could not be scored, for `reason`.

    For the engine, when scoring ran past its time limit. `with_points=False` skips
    the scorer entirely (when even scoring an empty output is not to be trusted).
    """
    name, scorer = scorer_of(example)
    score = failed_output_score(example, scorer if with_points else None, name, reason)
    return with_version(score, name)


__all__ = [
    "DEFAULT_SCORER",
    "SCORERS",
    "SCORER_FAILURE",
    "SCORER_VERSIONS",
    "Scorer",
    "current_versions",
    "error_score",
    "register_scorer",
    "score_example",
    "score_failed_output",
    "score_recall",
    "score_relation",
    "scorer_of",
    "with_version",
]
