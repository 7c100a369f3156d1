"""What the inspector's actions do, apart from the screen: re-score, re-run, export.

Plain functions over the record of `lctui.store.queries.get_generation`, so they can
run in worker threads and be tested without a terminal.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from lctui.backends import builtin_models
from lctui.core.errors import StoreError
from lctui.core.types import ModelSpec, Score
from lctui.engine import RunRequest
from lctui.scoring import score_example
from lctui.store import Store
from lctui.store.queries import get_generation, load_example
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


def rerun_request(
    record: Record, spec: ModelSpec, retry_stored: bool = False
) -> tuple[RunRequest, str | None]:
    """A RunRequest for exactly this example on `spec`, and a warning if it cannot be.

    The example is rebuilt from (task, params, length, seed, index, tokenizer); an
    example built with a reference tokenizer is rebuilt with it, else with the
    model's own tokenizer (so on another model the text may differ).
    """
    task = get_task(str(record["task"])).with_params(dict(record["params"] or {}))
    tokenizer = record["tokenizer"] if record["tokenizer"] in REFERENCE_TOKENIZERS else None
    config = record.get("config") or {}
    request = RunRequest(
        models=[spec],
        tasks=[task],
        lengths=[int(record["length"])],
        n=1,
        indices=[int(record["idx"])],
        retry_stored=retry_stored,
        seed=int(record["seed"]),
        tokenizer=tokenizer,
        truncate=bool(record.get("truncated")),
        temperature=float(config.get("temperature", 0.0)),
        command={"inspector": {"rerun_of": record["generation_id"], "model": spec.name}},
    )
    warning = None
    same_model = spec.name == record.get("model")
    rebuilt = task.example_id(
        int(record["length"]),
        int(record["seed"]),
        int(record["idx"]),
        str(record["tokenizer"]),
        int(record.get("template_overhead") or 0),
    )
    if same_model and not str(record["example_id"]).startswith(rebuilt):
        warning = (
            "the task's code or parameters changed since this example was built: "
            "the re-run builds a different example"
        )
    elif not same_model and tokenizer is None:
        warning = (
            f"this example was built for {record.get('model')}'s tokenizer: on {spec.name} "
            "it is rebuilt with that model's tokenizer, so the text differs"
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
