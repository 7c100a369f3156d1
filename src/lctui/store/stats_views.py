"""Accounting views: what each run cost in tokens and time, per model and per judge.

Unlike `results`, these read every generation of a run, failed attempts included:
a request that failed still took time and, on a hosted API, tokens.

`run_model_stats`: one row per run and model.

    run_id, model, model_id, reference
    served          the model name an OpenAI-compatible server knows (params.model), if any
    generations, ok, errors, cancelled     attempts by status
    prompt_tokens, output_tokens           sums over every attempt
    busy_s          sum of request latencies (exceeds wall_s when requests overlap)
    wall_s          first request start to last request end
    output_tok_s, prompt_tok_s             tokens per second of wall time (throughput)
    ttft_p50_s, ttft_p90_s, ttft_p99_s     time to first token of successful requests
    latency_p50_s

`judge_stats`: one row per run (the run of the judged generation) and judge model,
over the calls stored in `judge_calls` (cache hits make no call and cost nothing).

    run_id, judge, judge_model, served, calls, unparsed, prompt_tokens, output_tokens
"""

from __future__ import annotations

STATS_VIEWS: dict[str, str] = {
    "run_model_stats": """
        SELECT
            g.run_id,
            coalesce(m.name, g.model_id) AS model,
            g.model_id,
            coalesce(any_value(m.reference), false) AS reference,
            any_value(json_extract_string(m.params, '$.model')) AS served,
            count(*) AS generations,
            count(*) FILTER (WHERE g.status = 'ok') AS ok,
            count(*) FILTER (WHERE g.status = 'error') AS errors,
            count(*) FILTER (WHERE g.status = 'cancelled') AS cancelled,
            CAST(coalesce(sum(g.prompt_tokens), 0) AS BIGINT) AS prompt_tokens,
            CAST(coalesce(sum(g.output_tokens), 0) AS BIGINT) AS output_tokens,
            coalesce(sum(g.latency_s), 0) AS busy_s,
            max(epoch(g.started_at) + coalesce(g.latency_s, 0)) - min(epoch(g.started_at))
                AS wall_s,
            quantile_cont(g.ttft_s, 0.5) FILTER (WHERE g.status = 'ok') AS ttft_p50_s,
            quantile_cont(g.ttft_s, 0.9) FILTER (WHERE g.status = 'ok') AS ttft_p90_s,
            quantile_cont(g.ttft_s, 0.99) FILTER (WHERE g.status = 'ok') AS ttft_p99_s,
            quantile_cont(g.latency_s, 0.5) FILTER (WHERE g.status = 'ok') AS latency_p50_s
        FROM generations AS g
        LEFT JOIN models AS m ON m.model_id = g.model_id
        GROUP BY g.run_id, coalesce(m.name, g.model_id), g.model_id
    """,
    "judge_stats": """
        SELECT
            g.run_id,
            coalesce(m.name, j.judge_model) AS judge,
            j.judge_model,
            any_value(json_extract_string(m.params, '$.model')) AS served,
            count(*) AS calls,
            count(*) FILTER (WHERE json_extract_string(j.parsed, '$.verdict') IS NULL)
                AS unparsed,
            CAST(coalesce(sum(CAST(j.parsed ->> '$.prompt_tokens' AS BIGINT)), 0) AS BIGINT)
                AS prompt_tokens,
            CAST(coalesce(sum(CAST(j.parsed ->> '$.output_tokens' AS BIGINT)), 0) AS BIGINT)
                AS output_tokens
        FROM judge_calls AS j
        LEFT JOIN generations AS g ON g.generation_id = j.generation_id
        LEFT JOIN models AS m ON m.model_id = j.judge_model
        GROUP BY g.run_id, coalesce(m.name, j.judge_model), j.judge_model
    """,
}
