"""LIFEval's metrics as SQL: the `lifeval_*` views, and the same queries over any table.

Definitions (LIFBench's paper, LIFEval):

- ARS of a response = sum(weight * earned) / R_t, as its scorer recorded it (the
  score row); of a task = mean over its responses; overall and per length =
  sum_t R_t * ARS_t / sum_t R_t over the tasks present.
- IFP_c = sum over the (task, point) pairs tagged c of mean(weight * earned) / sum of
  those weights; a point with two capabilities counts for both.
- IFS_p = mean over tasks of the coefficient of variation (sample std, ddof=1, over
  the mean) of the per-level mean ARS, the levels of p being expression, variable or
  length; lower is more stable.

`metric_queries(points)` writes these over a relation shaped like `lifeval_points`,
so the analysis can run them on a filtered temporary copy while the views serve
`lctui query` and the SQL console.

Views (one row per):

    lifeval_points      rubric point of a latest lifeval score: model, task (LIFEval's
                        name: qa, repeat, single_query_id, ...),
                        generation_id, length, point, capabilities, weight, earned,
                        score (the response's ARS), expression, variable
    lifeval_responses   response: model, task, generation_id, length, expression,
                        variable, r_t, ars
    lifeval_task_ars    model and task: r_t, ars, n
    lifeval_length_ars  model and length: ars (R_t-weighted over tasks)
    lifeval_ars         model: ars (R_t-weighted over tasks), n
    lifeval_ifp         model and capability: ifp
    lifeval_ifs         model and perspective (expression | variable | length): ifs
    lifeval_unscored    model: unscored, its lifeval responses that succeeded but have
                        no score (left out of every metric above, never counted as 0;
                        `lctui rescore` scores them)
"""

from __future__ import annotations

PERSPECTIVES: tuple[str, ...] = ("expression", "variable", "length")

# Responses whose score is an error are left out (a failed request has no ARS), and so
# are responses without a latest lifeval score (rubric points left from a score row that
# is gone): a missing score is missing, as in `results`, not recomputed or a 0.
LIFEVAL_POINTS = """
    SELECT
        r.model,
        -- LIFEval's task name (qa, not lifbench_qa), so that runs of lctui and the
        -- imported published scores line up task by task.
        coalesce(json_extract_string(e.metadata, '$.lifeval_task'), r.task) AS task,
        r.generation_id, r.length, r.point, r.capabilities,
        r.weight, r.earned, s.value AS score,
        json_extract_string(e.metadata, '$.expression') AS expression,
        json_extract_string(e.metadata, '$.variable') AS variable
    FROM rubric AS r
    JOIN examples AS e ON e.example_id = r.example_id
    -- The response's one lifeval score, whatever its metric is called (the published
    -- scores' `ars`, lctui's own `lifeval_ars`): its value is the response total.
    LEFT JOIN latest_scores AS s
        ON s.generation_id = r.generation_id AND s.scorer = r.scorer
    WHERE r.scorer = 'lifeval' AND EXISTS (
        SELECT 1 FROM latest_scores AS scored
        WHERE scored.generation_id = r.generation_id AND scored.scorer = r.scorer
          AND scored.status <> 'error')
"""

# LIFEval responses (LIFBench's examples; imported ones do not name their scorer) that
# succeeded without a latest rule-based score.
LIFEVAL_UNSCORED = """
    SELECT coalesce(m.name, g.model_id) AS model, count(*) AS unscored
    FROM latest_generations AS g
    JOIN examples AS e ON e.example_id = g.example_id
    LEFT JOIN models AS m ON m.model_id = g.model_id
    WHERE g.status = 'ok'
      AND (e.suite = 'lifbench' OR json_extract_string(e.metadata, '$.scorer') = 'lifeval')
      AND NOT EXISTS (SELECT 1 FROM rule_scores AS s WHERE s.gen_hash = g.gen_hash)
    GROUP BY ALL
"""


def metric_queries(points: str) -> dict[str, str]:
    """LIFEval's metric queries over the relation `points` (shaped like lifeval_points)."""
    # The recorded score is the ARS; LIFBench's published list-task scores give 0 to a
    # response whose only credit is a partial `format`, so recomputing from the points
    # would not reproduce them. Points without a score row fall back to the sum.
    responses = f"""
        SELECT
            model, task, generation_id, length, expression, variable,
            sum(weight) AS r_t,
            coalesce(any_value(score), sum(weight * earned) / sum(weight)) AS ars
        FROM {points}
        GROUP BY ALL
    """
    task_ars = f"""
        SELECT model, task, max(r_t) AS r_t, avg(ars) AS ars, count(*) AS n
        FROM ({responses}) GROUP BY model, task
    """
    queries = {
        "responses": responses,
        "task_ars": task_ars,
        "length_ars": f"""
            WITH cell AS (
                SELECT model, task, length, max(r_t) AS r_t, avg(ars) AS ars
                FROM ({responses}) GROUP BY model, task, length
            )
            SELECT model, length, sum(r_t * ars) / sum(r_t) AS ars
            FROM cell GROUP BY model, length
        """,
        "ars": f"""
            SELECT model, sum(r_t * ars) / sum(r_t) AS ars, sum(n) AS n
            FROM ({task_ars}) GROUP BY model
        """,
        "ifp": f"""
            WITH pts AS (
                SELECT model, task, point, capabilities,
                       max(weight) AS weight, avg(weight * earned) AS mean_earned
                FROM {points}
                GROUP BY model, task, point, capabilities
            ),
            caps AS (SELECT *, unnest(capabilities) AS capability FROM pts)
            SELECT model, capability, sum(mean_earned) / sum(weight) AS ifp
            FROM caps GROUP BY model, capability
        """,
    }
    ifs = [
        f"""
        SELECT model, '{level}' AS perspective, avg(cv) AS ifs FROM (
            SELECT model, task, stddev_samp(ars) / nullif(avg(ars), 0) AS cv
            FROM (
                SELECT model, task, {level} AS level, avg(ars) AS ars
                FROM ({responses}) GROUP BY model, task, {level}
            )
            GROUP BY model, task
        ) GROUP BY model
        """
        for level in PERSPECTIVES
    ]
    queries["ifs"] = " UNION ALL ".join(ifs)
    return queries


_QUERIES = metric_queries("lifeval_points")
LIFEVAL_VIEWS: dict[str, str] = {
    "lifeval_points": LIFEVAL_POINTS,
    "lifeval_responses": _QUERIES["responses"],
    "lifeval_task_ars": _QUERIES["task_ars"],
    "lifeval_length_ars": _QUERIES["length_ars"],
    "lifeval_ars": _QUERIES["ars"],
    "lifeval_ifp": _QUERIES["ifp"],
    "lifeval_ifs": _QUERIES["ifs"],
    "lifeval_unscored": LIFEVAL_UNSCORED,
}
