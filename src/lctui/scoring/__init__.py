"""Scoring layer: turns (example, output) into a Score through a registry of named scorers.

Examples name their scorer in `metadata["scorer"]` (default "recall"); suites register more.
"""

from __future__ import annotations

from lctui.core.types import Example, Score
from lctui.scoring.base import Scorer, error_score
from lctui.scoring.lifeval import score_lifeval
from lctui.scoring.recall import score_recall
from lctui.scoring.relation import score_relation

DEFAULT_SCORER = "recall"

SCORERS: dict[str, Scorer] = {"recall": score_recall}


def register_scorer(name: str, scorer: Scorer, *, replace: bool = False) -> None:
    """Make `scorer` available to examples whose metadata names `name`."""
    if name in SCORERS and not replace and SCORERS[name] is not scorer:
        raise ValueError(f"a scorer named {name!r} is already registered")
    SCORERS[name] = scorer


register_scorer("lifeval", score_lifeval)


def score_example(example: Example, output: str) -> Score:
    """Score one output with the scorer the example names."""
    name = example.metadata.get("scorer", DEFAULT_SCORER)
    scorer = SCORERS.get(name) if isinstance(name, str) else None
    if scorer is None:
        raise ValueError(
            f"example {example.example_id} of task {example.task} asks for scorer {name!r}, "
            f"which is not registered; known scorers: {', '.join(sorted(SCORERS))}"
        )
    return scorer(example, output)


__all__ = [
    "DEFAULT_SCORER",
    "SCORERS",
    "Scorer",
    "error_score",
    "register_scorer",
    "score_example",
    "score_lifeval",
    "score_recall",
    "score_relation",
]
