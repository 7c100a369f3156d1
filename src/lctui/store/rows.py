"""Arrow schemas of the buffered tables and the functions that turn core types into rows.

A row is a tuple in its table's column order; `to_arrow` transposes a list of them
into one Arrow table, which costs far less than building dicts per row. Rows of the
tables that hold text end with a `repaired` flag: their text is made storable as
they are built (store/storable.py).
"""

from __future__ import annotations

import enum
import json
from collections.abc import Iterable, Mapping
from typing import Any

import pyarrow as pa

from lctui.core.types import Example, Generation, ModelSpec, RubricPoint, Score
from lctui.store import storable
from lctui.store.storable import Row, flagged, repair_row

# large_string: a batch of 128K-token contexts can pass the 2 GiB offset limit of string.
_S, _I32, _I64, _F, _B = pa.large_string(), pa.int32(), pa.int64(), pa.float64(), pa.bool_()
_TS = pa.timestamp("us")  # UTC, no zone, like the TIMESTAMP columns

SCHEMAS: dict[str, pa.Schema] = {
    "models": pa.schema(
        [
            ("model_id", _S),
            ("name", _S),
            ("backend", _S),
            ("path", _S),
            ("params", _S),
            ("description", _S),
            ("tokenizer", _S),
            ("max_context", _I32),
            ("reference", _B),
            ("created_at", _TS),
        ]
    ),
    "examples": pa.schema(
        [
            ("example_id", _S),
            ("task", _S),
            ("category", _S),
            ("suite", _S),
            ("length", _I32),
            ("seed", _I64),
            ("idx", _I32),
            ("tokenizer", _S),
            ("params", _S),
            ("preamble", _S),
            ("context", _S),
            ("question", _S),
            ("answer_prefix", _S),
            ("gold", _S),
            ("max_new_tokens", _I32),
            ("prompt_tokens", _I32),
            ("template_overhead", _I32),
            ("depth", _F),
            ("spans", _S),
            ("truncated", _B),
            ("metadata", _S),
            ("repaired", _B),
        ]
    ),
    "generations": pa.schema(
        [
            ("generation_id", _S),
            ("gen_key", _S),
            ("run_id", _S),
            ("model_id", _S),
            ("example_id", _S),
            ("config_hash", _S),
            ("config", _S),
            ("status", _S),
            ("output", _S),
            ("prompt_tokens", _I32),
            ("output_tokens", _I32),
            ("ttft_s", _F),
            ("latency_s", _F),
            ("finish_reason", _S),
            ("error", _S),
            ("started_at", _TS),
            ("prompt_head", _S),
            ("prompt_tail", _S),
            ("calls", _S),  # JSON: each call of a two-call answer; NULL for one call
            ("repaired", _B),
        ]
    ),
    "scores": pa.schema(
        [
            ("generation_id", _S),
            ("scorer", _S),
            ("metric", _S),
            ("value", _F),
            ("status", _S),
            ("extracted", _S),
            ("explanation", _S),
            ("extras", _S),
            ("scored_at", _TS),
            ("scorer_version", _I32),  # NULL: made by no lctui scorer (scoring/versions.py)
            ("repaired", _B),
        ]
    ),
    "rubric_points": pa.schema(
        [
            ("generation_id", _S),
            ("scorer", _S),
            ("scored_at", _TS),
            ("idx", _I32),
            ("name", _S),
            ("capabilities", pa.list_(_S)),
            ("weight", _F),
            ("earned", _F),
            ("explanation", _S),
            ("scorer_version", _I32),  # that of its score row
            ("repaired", _B),
        ]
    ),
    # lctui's own ids (a run id, a hash): never text from outside, so never repaired
    "run_reused": pa.schema([("run_id", _S), ("gen_key", _S)]),
}


def _plain(value: Any) -> Any:
    """json.dumps fallback: mappings and enums are common in params and extras."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=str)
    return str(value)


def to_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=_plain)


def micros(epoch_s: float) -> int:
    """Seconds since the epoch -> microseconds, the unit of the timestamp columns."""
    return round(epoch_s * 1_000_000)


def model_row(spec: ModelSpec, model_id: str, tokenizer: str, max_context: int, now_us: int) -> Row:
    row, _ = repair_row(
        (
            model_id,
            spec.name,
            spec.backend,
            spec.path,
            to_json(dict(spec.params)),
            spec.description,
            tokenizer,
            max_context,
            spec.reference,
            now_us,
        )
    )
    return row


def example_row(e: Example) -> Row:
    spans = [{"start": s.start, "end": s.end, "kind": s.kind, "label": s.label} for s in e.spans]
    return flagged(
        (
            e.example_id,
            e.task,
            e.category,
            e.suite,
            e.length,
            e.seed,
            e.index,
            e.tokenizer,
            to_json(dict(e.params)),
            e.preamble,
            e.context,
            e.question,
            e.answer_prefix,
            to_json(list(e.gold)),
            e.max_new_tokens,
            e.prompt_tokens,
            e.template_overhead,
            e.depth,
            to_json(spans),
            e.truncated,
            to_json(dict(e.metadata)),
        )
    )


def generation_row(g: Generation, config_json: str) -> Row:
    return flagged(
        (
            g.generation_id,
            g.gen_key,
            g.run_id,
            g.model_id,
            g.example_id,
            g.config_hash,
            config_json,
            g.status.value if isinstance(g.status, enum.Enum) else str(g.status),
            g.output,
            g.prompt_tokens,
            g.output_tokens,
            g.ttft_s,
            g.latency_s,
            g.finish_reason,
            g.error,
            micros(g.started_at),
            g.prompt_head,
            g.prompt_tail,
            to_json([call.as_dict() for call in g.calls]) if g.calls else None,
        )
    )


def score_row(generation_id: str, s: Score, scored_us: int) -> Row:
    return flagged(
        (
            generation_id,
            s.scorer,
            s.metric,
            s.value,
            s.status.value if isinstance(s.status, enum.Enum) else str(s.status),
            to_json(list(s.extracted)),
            s.explanation,
            to_json(dict(s.extras)),
            scored_us,
            s.scorer_version,
        )
    )


def point_rows(
    generation_id: str,
    scorer: str,
    scored_us: int,
    points: Iterable[RubricPoint],
    scorer_version: int | None = None,
) -> list[Row]:
    return [
        flagged(
            (
                generation_id,
                scorer,
                scored_us,
                idx,
                p.name,
                list(p.capabilities),
                p.weight,
                p.earned,
                p.explanation,
                scorer_version,
            )
        )
        for idx, p in enumerate(points)
    ]


def to_arrow(table: str, rows: list[Row]) -> pa.Table:
    """The rows of `table` as one Arrow table (a value Arrow refuses is stored as NULL)."""
    return storable.to_arrow(SCHEMAS[table], rows)
