"""Read queries over a results file: resume keys, score summaries, one generation."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import duckdb
import pyarrow as pa


def stored_keys(con: duckdb.DuckDBPyConnection, keys: Sequence[str]) -> set[str]:
    """Keys that already have a generation that did not fail (failed ones are retried)."""
    if not keys:
        return set()
    con.register("_lctui_keys", pa.table({"gen_key": pa.array(list(keys), pa.string())}))
    try:
        rows = con.execute(
            "SELECT DISTINCT g.gen_key FROM generations g "
            "JOIN _lctui_keys k USING (gen_key) WHERE g.status = 'ok'"
        ).fetchall()
    finally:
        con.unregister("_lctui_keys")
    return {r[0] for r in rows}


def cell_summary(
    con: duckdb.DuckDBPyConnection,
    models: Sequence[str],
    tasks: Sequence[str],
    lengths: Sequence[int],
) -> list[dict[str, Any]]:
    """Per model x task x length: mean score over scored examples, and status counts."""
    cursor = con.execute(
        """
        SELECT model, task, length,
               avg(score) FILTER (WHERE status IN ('ok', 'unparsed')) AS mean_score,
               count(*) FILTER (WHERE status IN ('ok', 'unparsed')) AS n_scored,
               count(*) FILTER (WHERE status = 'unparsed') AS n_unparsed,
               count(*) FILTER (WHERE status = 'error') AS n_error
        FROM results
        WHERE list_contains(?, model) AND list_contains(?, task) AND list_contains(?, length)
        GROUP BY ALL ORDER BY model, task, length
        """,
        [list(models), list(tasks), list(lengths)],
    )
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def get_generation(con: duckdb.DuckDBPyConnection, generation_id: str) -> dict[str, Any] | None:
    """Everything `lctui show` and the inspector need about one generation."""
    cursor = con.execute(
        """
        SELECT g.generation_id, g.gen_key, g.run_id, g.status, g.output, g.error,
               g.prompt_tokens, g.output_tokens, g.ttft_s, g.latency_s, g.finish_reason,
               g.prompt_head, g.prompt_tail, g.config,
               coalesce(m.name, g.model_id) AS model, m.reference,
               e.example_id, e.task, e.category, e.length, e.seed, e.idx, e.tokenizer,
               e.params, e.preamble, e.context, e.question, e.answer_prefix, e.gold,
               e.depth, e.spans, e.truncated, e.metadata
        FROM generations g
        JOIN examples e USING (example_id)
        LEFT JOIN models m ON m.model_id = g.model_id
        WHERE g.generation_id = ?
        """,
        [generation_id],
    )
    row = cursor.fetchone()
    if row is None:
        return None
    record = dict(zip([d[0] for d in cursor.description], row, strict=True))
    for key in ("gold", "params", "spans", "metadata", "config"):
        record[key] = json.loads(record[key]) if record[key] else None
    scores = con.execute(
        "SELECT scorer, metric, value, status, extracted, explanation, extras FROM scores "
        "WHERE generation_id = ? ORDER BY scored_at",
        [generation_id],
    ).fetchall()
    points = con.execute(
        "SELECT scorer, name, capabilities, weight, earned, explanation FROM rubric_points "
        "WHERE generation_id = ? ORDER BY scorer, idx",
        [generation_id],
    ).fetchall()
    record["scores"] = [
        {
            "scorer": s[0],
            "metric": s[1],
            "value": s[2],
            "status": s[3],
            "extracted": json.loads(s[4]) if s[4] else [],
            "explanation": s[5],
            "extras": json.loads(s[6]) if s[6] else {},
            "points": [
                {
                    "name": p[1],
                    "capabilities": list(p[2] or []),
                    "weight": p[3],
                    "earned": p[4],
                    "explanation": p[5],
                }
                for p in points
                if p[0] == s[0]
            ],
        }
        for s in scores
    ]
    return record
