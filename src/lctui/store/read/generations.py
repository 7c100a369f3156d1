"""One generation (as a frozen `GenerationRecord`), one example, and which generation
keys are already stored."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pyarrow as pa

from lctui.core.types import CallRecord, Example, Span
from lctui.store.read.source import Source, cursor_of, dict_rows
from lctui.store.views import SIDE_SCORERS


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


@dataclass(frozen=True)
class RubricPointRecord:
    """One rubric point of a stored score."""

    idx: int
    name: str
    capabilities: tuple[str, ...]
    weight: float
    earned: float  # the fraction of the weight earned, 0 to 1
    explanation: str


@dataclass(frozen=True)
class ScoreRecord:
    """The latest score of one scorer and metric, with its rubric points."""

    scorer: str
    metric: str
    value: float | None  # None when status is error
    status: str  # ok | unparsed | error
    extracted: tuple[str, ...]
    explanation: str | None
    extras: dict[str, Any] | None
    scored_at: datetime
    scorer_version: int | None
    points: tuple[RubricPointRecord, ...]


@dataclass(frozen=True)
class AttemptRecord:
    """One generation of the same gen_key (a retry or a re-run)."""

    generation_id: str
    run_id: str
    status: str
    error: str | None
    started_at: datetime | None


NO_EXAMPLE = "the example's text is not stored in this results file"


@dataclass(frozen=True)
class GenerationRecord:
    """Everything `lctui show`, the inspector and the side-by-side view need about one
    generation.

    Generation columns as they are stored (`prompt_tokens` is what the model read; the
    example's count is `example_prompt_tokens`); example columns are None when the
    example is not stored in the file. `prompt` is the exact prompt text (None without
    the example), `scores` the latest per scorer and metric, `score` and `score_status`
    those of the first rule-based score (the one `results` shows; None when there is
    none), `result_status` its `status` in `results` (`unscored` when a generation that
    succeeded has no rule-based score), and `attempts` every generation of the same
    gen_key, oldest first.
    """

    # the generation
    generation_id: str
    gen_key: str
    run_id: str
    model_id: str
    example_id: str
    config_hash: str | None
    config: dict[str, Any] | None
    status: str  # ok | error | cancelled
    output: str | None
    prompt_tokens: int | None
    output_tokens: int | None
    ttft_s: float | None
    latency_s: float | None
    finish_reason: str | None
    error: str | None
    started_at: datetime | None
    prompt_head: str | None
    prompt_tail: str | None
    # each call of a two-call answer (LongBench v2's chain of thought), () for one call
    calls: tuple[CallRecord, ...]
    # its model
    model: str
    reference: bool
    backend: str | None
    # its example (None when the example is not stored)
    task: str | None
    category: str | None
    suite: str | None
    length: int | None
    seed: int | None
    idx: int | None
    tokenizer: str | None
    params: dict[str, Any] | None
    preamble: str | None
    context: str | None
    question: str | None
    answer_prefix: str | None
    gold: tuple[str, ...]
    max_new_tokens: int | None
    example_prompt_tokens: int | None
    template_overhead: int | None
    depth: float | None
    spans: tuple[Span, ...]
    truncated: bool | None
    metadata: dict[str, Any]  # {} when the example has none (or is not stored)
    # derived
    prompt: str | None
    scores: tuple[ScoreRecord, ...]
    score: float | None
    score_status: str | None
    result_status: str
    attempts: tuple[AttemptRecord, ...]
    # Why `prompt` is None, in words a reader sees ("the prompt and its context: not
    # stored by HELMET" for imported results); None when the prompt is there.
    prompt_missing: str | None = None


_GENERATION_SQL = """
    SELECT g.generation_id, g.gen_key, g.run_id, g.model_id, g.example_id, g.config_hash,
           g.config, g.status, g.output, g.prompt_tokens, g.output_tokens, g.ttft_s,
           g.latency_s, g.finish_reason, g.error, g.started_at, g.prompt_head, g.prompt_tail,
           g.calls,
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
"""


def get_generation(src: Source, generation_id: str) -> GenerationRecord | None:
    """One generation with its example, model, latest scores and attempts (None when the
    file has no such generation)."""
    with cursor_of(src) as cur:
        cur.execute(_GENERATION_SQL, [generation_id])
        found = dict_rows(cur)
        if not found:
            return None
        row = found[0]
        cur.execute(
            "SELECT scorer, metric, value, status, extracted, explanation, extras, scored_at, "
            "scorer_version FROM latest_scores WHERE generation_id = ? ORDER BY scorer, metric",
            [generation_id],
        )
        score_rows = dict_rows(cur)
        scores = []
        for score in score_rows:
            cur.execute(
                "SELECT idx, name, capabilities, weight, earned, explanation FROM rubric_points "
                "WHERE generation_id = ? AND scorer = ? AND scored_at = ? ORDER BY idx",
                [generation_id, score["scorer"], score["scored_at"]],
            )
            points = tuple(
                RubricPointRecord(**{**p, "capabilities": tuple(p["capabilities"] or ())})
                for p in dict_rows(cur)
            )
            extracted = tuple(str(x) for x in score["extracted"] or ())
            scores.append(ScoreRecord(**{**score, "extracted": extracted, "points": points}))
        cur.execute(
            "SELECT generation_id, run_id, status, error, started_at FROM generations "
            "WHERE gen_key = ? ORDER BY started_at NULLS FIRST, generation_id",
            [row["gen_key"]],
        )
        attempts = tuple(AttemptRecord(**a) for a in dict_rows(cur))
    # Judge scores sort first ("judge" < "lifeval", "recall") but are not what means use.
    rule = [score for score in scores if score.scorer not in SIDE_SCORERS]
    score_status = rule[0].status if rule else None
    metadata = row["metadata"] if isinstance(row["metadata"], dict) else {}
    missing: str | None = None
    if row["context"] is None:
        prompt, missing = None, NO_EXAMPLE
    elif metadata.get("prompt_stored") is False:
        # Imported results whose harness kept no prompt: none is made up from the parts.
        prompt, missing = None, str(metadata.get("prompt_missing") or "the prompt is not stored")
    else:
        user_text = row["preamble"] + row["context"] + row["question"]
        prompt = (row["prompt_head"] or "") + user_text + (row["prompt_tail"] or "")
    return GenerationRecord(
        **{
            **row,
            "gold": tuple(row["gold"] or ()),
            "calls": tuple(CallRecord(**call) for call in row["calls"] or ()),
            "spans": tuple(Span(**s) for s in row["spans"] or ()),
            "metadata": metadata,
        },
        prompt=prompt,
        scores=tuple(scores),
        score=rule[0].value if rule else None,
        score_status=score_status,
        result_status=score_status or ("unscored" if row["status"] == "ok" else row["status"]),
        attempts=attempts,
        prompt_missing=missing,
    )


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
