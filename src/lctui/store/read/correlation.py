"""What the correlation across models reads: one score per model and task (or
category), and the lengths there are results at. Reference pseudo-models (gold,
LIFBench's `standard`) are never read here.

A model's score on a task at one length is the mean of its cell (cells.CELL_AGGREGATES'
rules: unparsed counts as 0, errors are left out); without a length it is the mean of
its cells over the lengths it has. A category's score is the plain mean of its tasks'
scores.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lctui.store.read.cells import CELL_AGGREGATES
from lctui.store.read.source import Source, cursor_of

LABELS = ("task", "category")  # what a score can be per

_SCORES = f"""
    WITH cells AS (
        SELECT model, task, min(category) AS category, length, {CELL_AGGREGATES}
        FROM results_core
        WHERE NOT reference AND ($length IS NULL OR length = $length)
          AND ($models IS NULL OR list_contains($models, model))
        GROUP BY model, task, length
    ), tasks AS (
        SELECT model, task, min(category) AS category, avg(mean_score) AS score
        FROM cells WHERE mean_score IS NOT NULL GROUP BY model, task
    )
    SELECT model, {{label}} AS label, avg(score) AS score
    FROM tasks WHERE {{label}} IS NOT NULL GROUP BY model, {{label}} ORDER BY model, label
"""


@dataclass(frozen=True)
class LabelScore:
    """A model's score on one task or category."""

    model: str
    label: str
    score: float


def label_scores(
    src: Source, by: str, length: int | None = None, models: Sequence[str] | None = None
) -> list[LabelScore]:
    """Per model and task (`by="task"`) or category, at `length` or over all lengths,
    of the `models` named (all when None); ordered by model, then label."""
    if by not in LABELS:  # interpolated as a column name: only these two
        raise ValueError(f"scores are per {' or '.join(LABELS)}, not {by!r}")
    params = {"length": length, "models": None if models is None else list(models)}
    with cursor_of(src) as cur:
        rows = cur.execute(_SCORES.format(label=by), params).fetchall()
    return [LabelScore(str(m), str(label), float(s)) for m, label, s in rows]


def scored_lengths(src: Source) -> list[int]:
    """The lengths that hold results of a model that is not a reference, ascending."""
    with cursor_of(src) as cur:
        rows = cur.execute(
            "SELECT DISTINCT length FROM results_core WHERE NOT reference ORDER BY 1"
        ).fetchall()
    return [int(r[0]) for r in rows]
