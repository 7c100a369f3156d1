"""A scorer that fails on a model's output: that output's failure, scored 0, never missing.

A model can write anything, and a scorer that raises on it (or, in the engine, runs
past its time limit) must not turn the answer into an error: errors are failed
requests, left out of the means, so a model that babbles brackets would score
higher. The output is scored 0 with status unparsed, the reason in the explanation,
and `extras["scorer_failure"]` telling it apart from an ordinary unparsed answer.
"""

from __future__ import annotations

import dataclasses

from lctui.core.text import shorten
from lctui.core.types import Example, Score, ScoreStatus
from lctui.scoring.base import Scorer

SCORER_FAILURE = "scorer_failure"  # the extras key that marks these scores
REASON_LIMIT = 300  # an exception's message can quote the whole output


def describe_failure(exc: BaseException) -> str:
    """`Type: message`, on one line and cut short."""
    return shorten(f"{type(exc).__name__}: {exc}", REASON_LIMIT, one_line=True)


def failed_output_score(
    example: Example, scorer: Scorer | None, scorer_name: str, reason: str
) -> Score:
    """The score of an output the scorer could not handle: 0, unparsed, with `reason`.

    The points are those the scorer gives an empty output, each at 0, so rubric
    metrics computed from points (LIFEval's ARS and IFP) count the answer as a miss
    instead of leaving it out. Raises what the scorer raises on an empty output:
    then the example itself cannot be scored, a task or scorer bug, not the output's.
    """
    blank = scorer(example, "") if scorer is not None else None
    why = f"not scored: {reason}"
    points = tuple(
        dataclasses.replace(p, earned=0.0, explanation=why) for p in (blank.points if blank else ())
    )
    return Score(
        scorer=blank.scorer if blank else scorer_name,
        metric=blank.metric if blank else str(example.metadata.get("metric", "")),
        value=0.0,
        status=ScoreStatus.UNPARSED,
        extracted=(),
        explanation=f"unparsed: the scorer could not handle this output ({reason}); scored 0.",
        points=points,
        extras={**(blank.extras if blank else {}), SCORER_FAILURE: reason},
    )
