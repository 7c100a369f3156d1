"""What LongBench v2's report reads: per model, task (mode), length and the question's
domain, difficulty and length bucket, how many answers were scored, right and unparsed.

The domain, difficulty and bucket are the example's (its metadata, from the data
file). A count follows the cell rules of store/read/cells.py: unparsed answers are
scored (as 0, and counted apart for the compensated accuracy); errors and generations
without a score are left out and counted apart. Reference pseudo-models are not read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lctui.store.read.run_results import in_run
from lctui.store.read.source import Source, cursor_of

SUITE = "longbench"

_COUNTS = """
    SELECT r.model, r.task, r.length,
           coalesce(e.metadata->>'domain', '?') AS domain,
           coalesce(e.metadata->>'difficulty', '?') AS difficulty,
           coalesce(e.metadata->>'length_bucket', '?') AS bucket,
           count(*) FILTER (WHERE r.status IN ('ok', 'unparsed')) AS n,
           coalesce(sum(r.score) FILTER (WHERE r.status IN ('ok', 'unparsed')), 0) AS correct,
           count(*) FILTER (WHERE r.status = 'unparsed') AS unparsed,
           count(*) FILTER (WHERE r.status NOT IN ('ok', 'unparsed')) AS left_out
    FROM results_core AS r
    JOIN examples AS e ON e.example_id = r.example_id
    WHERE e.suite = $suite AND NOT r.reference
      AND ($models IS NULL OR list_contains($models, r.model)) AND {in_run}
    GROUP BY ALL
    ORDER BY r.model, r.task, r.length, domain, difficulty, bucket
"""


@dataclass(frozen=True)
class LongBenchCount:
    """The answers of one model, mode and length to the questions of one domain,
    difficulty and length bucket."""

    model: str
    task: str
    length: int
    domain: str
    difficulty: str  # easy | hard
    bucket: str  # short | medium | long
    n: int  # scored: right, wrong or unparsed
    correct: float  # the sum of the scores (right answers)
    unparsed: int  # answers that name no option (in n, as 0)
    left_out: int  # errors and unscored generations: not in n


def longbench_counts(
    src: Source, models: Sequence[str] | None = None, *, run_id: str | None = None
) -> list[LongBenchCount]:
    """The counts of every (model, task, length, domain, difficulty, bucket) of the latest
    LongBench v2 scores of `models` (all when None); with `run_id`, of that run's
    results alone (store/read/run_results.py)."""
    params: dict[str, object] = {"suite": SUITE}
    params["models"] = None if models is None else list(models)
    if run_id is not None:
        params["run_id"] = run_id
    sql = _COUNTS.format(in_run=in_run("r.generation_id", run_id))
    with cursor_of(src) as cur:
        rows = cur.execute(sql, params).fetchall()
    return [
        LongBenchCount(
            str(model),
            str(task),
            int(length),
            str(domain),
            str(difficulty),
            str(bucket),
            int(n),
            float(correct),
            int(unparsed),
            int(left_out),
        )
        for model, task, length, domain, difficulty, bucket, n, correct, unparsed, left_out in rows
    ]
