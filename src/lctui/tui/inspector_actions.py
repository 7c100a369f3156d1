"""What the inspector's actions do, apart from the screen: re-score, re-run, export.

Plain functions over the `GenerationRecord` of `lctui.store.read.generations`, so they can
run in worker threads and be tested without a terminal.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

from lctui.backends import builtin_models
from lctui.core.errors import StoreError
from lctui.core.paths import export_file
from lctui.core.types import Example, ModelSpec, Score
from lctui.engine import RunRequest
from lctui.scoring import score_example
from lctui.store import Store
from lctui.store.read.generations import GenerationRecord, get_generation, load_example
from lctui.tasks import get_task
from lctui.tasks.tokenizers import REFERENCE_TOKENIZERS


def already_stored(record: GenerationRecord) -> bool:
    """Whether resume would skip this example on this model (an attempt that did not fail)."""
    return any(a.status not in ("error", "cancelled") for a in record.attempts)


def model_choices(
    configured: Mapping[str, ModelSpec], exclude: str | None = None
) -> list[ModelSpec]:
    """Configured models, then built-in ones, each name once."""
    seen: set[str] = set()
    out: list[ModelSpec] = []
    for spec in [*configured.values(), *builtin_models()]:
        if spec.name in seen or spec.name == exclude:
            continue
        seen.add(spec.name)
        out.append(spec)
    return out


def stored_example(store: Store, record: GenerationRecord) -> Example:
    """The example of a generation as stored, to re-run it exactly (blocking: a thread)."""
    example = load_example(store, record.example_id)
    if example is None:
        raise StoreError(
            f"example {record.example_id} is not stored in this file, so it cannot be "
            "re-run exactly"
        )
    return example


def rerun_request(
    record: GenerationRecord, example: Example, spec: ModelSpec, retry_stored: bool = False
) -> tuple[RunRequest, str | None]:
    """A RunRequest for exactly this stored example on `spec`, and a note if there is one.

    The engine runs the stored example as it is (never rebuilt), so a re-run on another
    model reads the very text, needles and gold of the original and pairs with it.
    """
    config = record.config or {}
    request = RunRequest(
        models=[spec],
        tasks=[get_task(example.task)],
        lengths=[example.length],
        n=1,
        indices=[example.index],
        retry_stored=retry_stored,
        seed=example.seed,
        truncate=example.truncated,
        temperature=float(config.get("temperature", 0.0)),
        command={"inspector": {"rerun_of": record.generation_id, "model": spec.name}},
        examples=[example],
    )
    warning = None
    own = example.tokenizer not in REFERENCE_TOKENIZERS
    if spec.name != record.model and own:
        warning = (
            f"this example was counted with {record.model}'s tokenizer "
            f"({example.tokenizer}): {spec.name} reads the same text, and the prompt size "
            "it reports is recorded"
        )
    return request, warning


def read_rerun(
    store: Store, record: GenerationRecord, spec: ModelSpec, retry_stored: bool
) -> tuple[RunRequest, str | None]:
    """The request that re-runs `record`'s stored example on `spec`, and a warning
    (blocking: it reads the example; a thread)."""
    return rerun_request(record, stored_example(store, record), spec, retry_stored)


def rescore(store: Store, record: GenerationRecord) -> tuple[Score, GenerationRecord]:
    """Score the stored output again, store the score, and return it with the fresh record.

    Blocking (DuckDB reads and a write): call it from a worker thread.
    """
    # First: an app that lends its idle file takes it back for this, and its cursors
    # then open the file as its writes do (one process, one configuration at a time).
    with store.writing():
        cursor = store.cursor()
        try:
            example = load_example(cursor, record.example_id)
            if example is None:
                raise StoreError(
                    f"example {record.example_id} is not stored in this file, so its output "
                    "cannot be scored again"
                )
            score = score_example(example, record.output or "")
            store.add_score(record.generation_id, score)
            store.flush(force=True)
            fresh = get_generation(cursor, record.generation_id)
        finally:
            cursor.close()
    if fresh is None:
        raise StoreError(f"generation {record.generation_id} disappeared from the file")
    return score, fresh


def export_payload(record: GenerationRecord) -> dict[str, Any]:
    """The example as one JSON object: prompt, output, gold, spans, scores and rubric points."""
    keys = (
        "generation_id",
        "model",
        "task",
        "suite",
        "length",
        "seed",
        "tokenizer",
        "params",
        "status",
        "error",
        "prompt_tokens",
        "output_tokens",
        "finish_reason",
        "depth",
        "spans",
        "prompt",
        "output",
        "gold",
    )
    payload: dict[str, Any] = {key: getattr(record, key) for key in keys}
    payload["spans"] = [asdict(span) for span in record.spans]
    if record.calls:  # a two-call answer (chain of thought): each call's prompt and output
        payload["calls"] = [asdict(call) for call in record.calls]
    payload["gold"] = list(record.gold)
    payload["index"] = record.idx
    payload["scores"] = [
        {
            "scorer": s.scorer,
            "metric": s.metric,
            "value": s.value,
            "status": s.status,
            "extracted": list(s.extracted),
            "explanation": s.explanation,
            "points": [
                {
                    "name": p.name,
                    "capabilities": list(p.capabilities),
                    "weight": p.weight,
                    "earned": p.earned,
                    "explanation": p.explanation,
                }
                for p in s.points
            ],
        }
        for s in record.scores
    ]
    return payload


def export_path(record: GenerationRecord) -> Path:
    """The example's file in the exports folder (core/paths.py), named by what is in it;
    one file per generation, so exporting it again replaces it."""
    parts = ("lctui", record.task, record.length, record.idx, record.model)
    return export_file((*parts, record.generation_id[:8]), "json", stamped=False)
