"""One generation, one example, and which generation keys are already stored."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pyarrow as pa

from lctui.core.types import Example, Span
from lctui.store.read.source import Source, cursor_of, dict_rows


def stored_keys(src: Source, keys: Iterable[str]) -> set[str]:
    """The gen_keys that already have a generation that neither failed nor was cancelled.

    Resume skips these; keys whose attempts all failed are retried.
    """
    wanted = pa.table({"gen_key": pa.array(list(keys), pa.large_string())})
    if wanted.num_rows == 0:
        return set()
    with cursor_of(src) as cur:
        cur.register("_lctui_wanted_keys", wanted)
        try:
            rows = cur.execute(
                "SELECT DISTINCT g.gen_key FROM generations AS g "
                "JOIN _lctui_wanted_keys AS k ON k.gen_key = g.gen_key "
                "WHERE g.status NOT IN ('error', 'cancelled')"
            ).fetchall()
        finally:
            cur.unregister("_lctui_wanted_keys")
    return {str(row[0]) for row in rows}


def get_generation(src: Source, generation_id: str) -> dict[str, Any] | None:
    """Everything `lctui show` and the inspector need about one generation, as one dict.

    Generation columns come as they are stored (`prompt_tokens` is what the model read;
    the example's count is `example_prompt_tokens`), example and model columns beside
    them, plus `prompt` (the exact prompt text, when the example is stored), `scores`
    (latest per scorer and metric, each with its rubric `points`), `score` and
    `score_status` of the first rule-based score (the one `results` shows; None when
    there is none), `result_status` (its `status` in `results`: `unscored` when a
    generation that succeeded has no rule-based score), and `attempts` (every
    generation of the same gen_key, oldest first).
    """
    with cursor_of(src) as cur:
        cur.execute(
            """
            SELECT g.* EXCLUDE (gen_hash, task, category, length),
                   coalesce(m.name, g.model_id) AS model,
                   coalesce(m.reference, false) AS reference, m.backend,
                   e.task, e.category, e.suite, e.length, e.seed, e.idx, e.tokenizer,
                   e.params, e.preamble, e.context, e.question, e.answer_prefix, e.gold,
                   e.max_new_tokens, e.prompt_tokens AS example_prompt_tokens,
                   e.template_overhead, e.depth, e.spans, e.truncated, e.metadata
            FROM generations AS g
            LEFT JOIN examples AS e ON e.example_id = g.example_id
            LEFT JOIN models AS m ON m.model_id = g.model_id
            WHERE g.generation_id = ?
            """,
            [generation_id],
        )
        found = dict_rows(cur)
        if not found:
            return None
        record = found[0]
        cur.execute(
            "SELECT scorer, metric, value, status, extracted, explanation, extras, scored_at, "
            "scorer_version FROM latest_scores WHERE generation_id = ? ORDER BY scorer, metric",
            [generation_id],
        )
        scores = dict_rows(cur)
        for score in scores:
            cur.execute(
                "SELECT idx, name, capabilities, weight, earned, explanation FROM rubric_points "
                "WHERE generation_id = ? AND scorer = ? AND scored_at = ? ORDER BY idx",
                [generation_id, score["scorer"], score["scored_at"]],
            )
            score["points"] = dict_rows(cur)
            for point in score["points"]:
                point["capabilities"] = list(point["capabilities"] or [])
        cur.execute(
            "SELECT generation_id, run_id, status, error, started_at FROM generations "
            "WHERE gen_key = ? ORDER BY started_at NULLS FIRST, generation_id",
            [record["gen_key"]],
        )
        record["attempts"] = dict_rows(cur)
    record["scores"] = scores
    # Judge scores sort first ("judge" < "lifeval", "recall") but are not what means use.
    rule = [score for score in scores if score["scorer"] != "judge"]
    record["score"] = rule[0]["value"] if rule else None
    record["score_status"] = rule[0]["status"] if rule else None
    record["result_status"] = record["score_status"] or (
        "unscored" if record["status"] == "ok" else record["status"]
    )
    record["gold"] = record["gold"] or []
    if record["context"] is None:
        record["prompt"] = None
    else:
        user_text = record["preamble"] + record["context"] + record["question"]
        record["prompt"] = (record["prompt_head"] or "") + user_text + (record["prompt_tail"] or "")
    return record


def load_example(src: Source, example_id: str) -> Example | None:
    """Rebuild a stored Example (for re-scoring and re-running)."""
    with cursor_of(src) as cur:
        cur.execute("SELECT * FROM examples WHERE example_id = ?", [example_id])
        found = dict_rows(cur)
    if not found:
        return None
    r = found[0]
    return Example(
        example_id=r["example_id"],
        task=r["task"],
        category=r["category"],
        suite=r["suite"],
        length=r["length"],
        seed=r["seed"],
        index=r["idx"],
        tokenizer=r["tokenizer"],
        params=r["params"] or {},
        preamble=r["preamble"],
        context=r["context"],
        question=r["question"],
        answer_prefix=r["answer_prefix"],
        gold=tuple(r["gold"] or ()),
        max_new_tokens=r["max_new_tokens"],
        prompt_tokens=r["prompt_tokens"],
        template_overhead=r["template_overhead"],
        depth=r["depth"],
        spans=tuple(Span(**s) for s in r["spans"] or ()),
        truncated=bool(r["truncated"]),
        metadata=r["metadata"] or {},
    )
