"""What every scorer shares: the scorer signature and the score for a failed request."""

from __future__ import annotations

from collections.abc import Callable

from lctui.core.types import Example, Score, ScoreStatus

Scorer = Callable[[Example, str], Score]


def error_score(message: str, *, scorer: str = "", metric: str = "") -> Score:
    """The score of a request that failed: no value, excluded from means, shown as an error.

    The engine makes these; a scorer never turns a failed request into an empty output.
    """
    return Score(
        scorer=scorer,
        metric=metric,
        value=None,
        status=ScoreStatus.ERROR,
        extracted=(),
        explanation=message,
    )
