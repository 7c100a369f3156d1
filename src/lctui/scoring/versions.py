"""The version of each scorer's rules, recorded on every score it makes.

A stored score keeps the version of the rules that made it (`scores.scorer_version`),
so that scores made by older rules are never silently mixed with new ones: `lctui run`,
`report`, `compare`, `correlate`, `export-report` and the TUI flag them, and
`lctui rescore` scores their stored outputs again with the current rules.

The rule for bumping a version: any change that can change the value, the status or a
rubric point (its name, weight or earned fraction) of an output scored before. A
change to the wording of an explanation alone needs no bump. Stored versions:

- 0: made before versions were recorded (schema 8); older than every version here.
- NULL: made by no lctui scorer: the score of a failed request (status `error`), or a
  published score imported from an original harness (`lctui import lifbench-scores`).

History (newest last):

- recall 1, lifeval 1, judge 1: the first recorded versions (lifeval's now declared
  with LIFBench's suite).
- helmet_rerank 1, helmet_icl 1, helmet_rouge 1, helmet_mc 1: HELMET's re-ranking,
  ICL, long-QA ROUGE-L and InfiniteBench MC metrics (scoring/helmet*.py).
- helmet_alce_asqa 1, helmet_alce_qampari 1: ALCE's answer correctness (str_em,
  qampari_rec_top5) as HELMET's citation tasks use it (scoring/helmet_alce.py).

A suite's own scorers declare their versions with the suite (`SuiteScorer.version`,
core/suites.py) and keep their history there.
"""

from __future__ import annotations

import dataclasses

from lctui.core.suites import all_suites, declared_scorer
from lctui.core.types import Score, ScoreStatus

# Keyed by the name a scorer writes into `Score.scorer` (the name it is registered
# under). Scorers registered elsewhere add theirs through register_scorer.
SCORER_VERSIONS: dict[str, int] = {
    "recall": 1,  # scoring/recall.py: RULER's and HELMET's metrics, diagnostic points
    "judge": 1,  # scoring/judge.py: the LLM judge's grades (lctui judge)
    # scoring/helmet_scorers.py: HELMET's real-data metrics, diagnostic points
    "helmet_rerank": 1,
    "helmet_icl": 1,
    "helmet_rouge": 1,
    "helmet_mc": 1,
    "helmet_alce_asqa": 1,  # scoring/helmet_alce.py: ALCE's answer correctness
    "helmet_alce_qampari": 1,
    "alce_citations": 1,  # scoring/citations.py: ALCE's citation recall and precision
}


def current_versions() -> dict[str, int]:
    """A copy of the current version of every scorer, those the suites declare included
    (their modules are not imported), for queries that flag older ones."""
    declared = {s.name: s.version for suite in all_suites() for s in suite.scorers}
    return {**declared, **SCORER_VERSIONS}


def version_of(scorer: str) -> int | None:
    """The current version of `scorer`'s rules: here, else as its suite declares it."""
    version = SCORER_VERSIONS.get(scorer)
    if version is None:
        declared = declared_scorer(scorer)
        version = None if declared is None else declared.version
    return version


def with_version(score: Score, registered: str | None = None) -> Score:
    """`score` carrying the current version of the scorer that made it.

    An error score (a failed request) is made by no scorer's rules and stays without
    one; `registered` is the name the scorer was asked for, used when the score names
    a scorer that declares no version of its own.
    """
    if score.status == ScoreStatus.ERROR:
        return score
    version = version_of(score.scorer)
    if version is None and registered is not None:
        version = version_of(registered)
    if version == score.scorer_version:
        return score
    return dataclasses.replace(score, scorer_version=version)
