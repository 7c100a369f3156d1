"""What HELMET's table reads: the mean of every metric of every task at every length,
per model, for the rule-based scores (`results_core`), the LLM judge's (`judge_scores`)
and ALCE's citation scores (`lctui cite-score`: recall is the score, precision in its
extras). Reference pseudo-models (gold) are never read here.

A mean follows the cell rules of store/read/cells.py: unparsed scores count as 0,
errors and generations without a score are left out (and counted apart).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lctui.store.read.run_results import in_run
from lctui.store.read.source import Source, cursor_of

_MEANS = """
    WITH scored AS (
        SELECT model, task, length, metric, score, status
        FROM results_core
        WHERE NOT reference AND metric IS NOT NULL
          AND ($models IS NULL OR list_contains($models, model)) AND {in_run}
        UNION ALL
        SELECT model, task, length, metric, score, status
        FROM judge_scores
        WHERE model NOT IN (SELECT name FROM models WHERE coalesce(reference, false))
          AND ($models IS NULL OR list_contains($models, model)) AND {in_run}
        UNION ALL
        -- ALCE leaves an output without a sentence to check out of its citation means:
        -- only scores with a verdict ('ok') are read.
        SELECT model, task, length, unnest(['citation_rec', 'citation_prec']) AS metric,
               unnest([value, TRY_CAST(extras->>'citation_prec' AS DOUBLE)]) AS score, status
        FROM (
            SELECT coalesce(m.name, g.model_id) AS model, g.task, g.length, s.value,
                   s.extras, s.status
            FROM latest_generations AS g
            JOIN latest_scores AS s ON s.gen_hash = g.gen_hash AND s.scorer = 'alce_citations'
            LEFT JOIN models AS m ON m.model_id = g.model_id
            WHERE s.status = 'ok' AND NOT coalesce(m.reference, false) AND {in_run_g}
        )
        WHERE $models IS NULL OR list_contains($models, model)
    )
    SELECT model, task, length, metric,
           avg(coalesce(score, 0)) FILTER (WHERE status IN ('ok', 'unparsed')) AS mean,
           count(*) FILTER (WHERE status IN ('ok', 'unparsed')) AS n_scored,
           count(*) FILTER (WHERE status NOT IN ('ok', 'unparsed')) AS n_left_out
    FROM scored
    GROUP BY model, task, length, metric
    ORDER BY model, length, task, metric
"""


@dataclass(frozen=True)
class MetricMean:
    """A model's mean of one metric of one task at one length."""

    model: str
    task: str
    length: int
    metric: str
    mean: float | None  # None when every score of the cell is an error
    n_scored: int  # ok + unparsed (unparsed count as 0)
    n_left_out: int  # errors, cancelled: not in the mean


def metric_means(
    src: Source, models: Sequence[str] | None = None, *, run_id: str | None = None
) -> list[MetricMean]:
    """Every (model, task, length, metric) mean of the latest scores of `models` (all
    when None), rule-based and judged alike, ordered by model, length, task, metric;
    with `run_id`, of that run's results alone (store/read/run_results.py)."""
    params = {"models": None if models is None else list(models), "run_id": run_id}
    sql = _MEANS.format(
        in_run=in_run("generation_id", run_id), in_run_g=in_run("g.generation_id", run_id)
    )
    with cursor_of(src) as cur:
        rows = cur.execute(sql, params if run_id else {"models": params["models"]}).fetchall()
    return [
        MetricMean(
            str(m),
            str(t),
            int(length),
            str(metric),
            None if v is None else float(v),
            int(n),
            int(x),
        )
        for m, t, length, metric, v, n, x in rows
    ]
