"""What the inspector's actions do, apart from the screen: re-score, re-run, export.

Plain functions over the record of `lctui.store.read.get_generation`, so they can
run in worker threads and be tested without a terminal.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from lctui.backends import builtin_models
from lctui.core.errors import StoreError
from lctui.core.types import Example, ModelSpec, Score
from lctui.engine import RunRequest
from lctui.scoring import score_example
from lctui.store import Store
from lctui.store.read.generations import get_generation, load_example
from lctui.tasks import get_task
from lctui.tasks.tokenizers import REFERENCE_TOKENIZERS

Record = Mapping[str, Any]


def already_stored(record: Record) -> bool:
    """Whether resume would skip this example on this model (an attempt that did not fail)."""
    return any(a["status"] not in ("error", "cancelled") for a in record.get("attempts") or ())


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


def stored_example(store: Store, record: Record) -> Example:
    """The example of a generation as stored, to re-run it exactly (blocking: a thread)."""
    example = load_example(store, str(record["example_id"]))
    if example is None:
        raise StoreError(
            f"example {record['example_id']} is not stored in this file, so it cannot be "
            "re-run exactly"
        )
    return example


def rerun_request(
    record: Record, example: Example, spec: ModelSpec, retry_stored: bool = False
) -> tuple[RunRequest, str | None]:
    """A RunRequest for exactly this stored example on `spec`, and a note if there is one.

    The engine runs the stored example as it is (never rebuilt), so a re-run on another
    model reads the very text, needles and gold of the original and pairs with it.
    """
    config = record.get("config") or {}
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
        command={"inspector": {"rerun_of": record["generation_id"], "model": spec.name}},
        examples=[example],
    )
    warning = None
    own = example.tokenizer not in REFERENCE_TOKENIZERS
    if spec.name != record.get("model") and own:
        warning = (
            f"this example was counted with {record.get('model')}'s tokenizer "
            f"({example.tokenizer}): {spec.name} reads the same text, and the prompt size "
            "it reports is recorded"
        )
    return request, warning


def rescore(store: Store, record: Record) -> tuple[Score, dict[str, Any]]:
    """Score the stored output again, store the score, and return it with the fresh record.

    Blocking (DuckDB reads and a write): call it from a worker thread.
    """
    cursor = store.cursor()
    try:
        example = load_example(cursor, str(record["example_id"]))
        if example is None:
            raise StoreError(
                f"example {record['example_id']} is not stored in this file, so its output "
                "cannot be scored again"
            )
        score = score_example(example, str(record["output"] or ""))
        store.add_score(str(record["generation_id"]), score)
        store.flush(force=True)
        fresh = get_generation(cursor, str(record["generation_id"]))
    finally:
        cursor.close()
    if fresh is None:
        raise StoreError(f"generation {record['generation_id']} disappeared from the file")
    return score, fresh


def export_payload(record: Record) -> dict[str, Any]:
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
    payload: dict[str, Any] = {key: record.get(key) for key in keys}
    payload["index"] = record.get("idx")
    payload["scores"] = [
        {
            "scorer": s["scorer"],
            "metric": s["metric"],
            "value": s["value"],
            "status": s["status"],
            "extracted": list(s.get("extracted") or ()),
            "explanation": s.get("explanation"),
            "points": [
                {k: p[k] for k in ("name", "capabilities", "weight", "earned", "explanation")}
                for p in s.get("points") or ()
            ],
        }
        for s in record.get("scores") or ()
    ]
    return payload


def export_path(record: Record, folder: Path) -> Path:
    """A file name that says what is in it; model names may be paths, so they are cleaned."""
    parts: Iterable[object] = (
        "lctui",
        record.get("task"),
        record.get("length"),
        record.get("idx"),
        record.get("model"),
        str(record.get("generation_id"))[:8],
    )
    name = "-".join(re.sub(r"[^\w.]+", "_", str(p)) for p in parts)
    return folder / f"{name}.json"
