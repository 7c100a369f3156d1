"""The `judge_calls` table: every call to an LLM judge, and the cache it makes.

A call is keyed by (judge model fingerprint, prompt hash): a greedy judge gives the
same reply to the same prompt, so a re-score or a re-run reads the stored reply
instead of paying for it again. `parsed` holds an envelope, because the table has no
usage columns: {"role", "verdict" (the parsed reply, or null when unreadable),
"prompt_tokens", "output_tokens", "latency_s", "batch"}.
Calls are inserted in batches as one Arrow table per write, like StoreWriter's rows.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import duckdb
import pyarrow as pa

from lctui.core.errors import StoreError
from lctui.store.read.source import Source, cursor_of
from lctui.store.rows import to_json
from lctui.store.storable import repair_text

_SCHEMA = pa.schema(
    [
        ("call_id", pa.large_string()),
        ("generation_id", pa.large_string()),
        ("judge_model", pa.large_string()),
        ("prompt_hash", pa.large_string()),
        ("prompt", pa.large_string()),
        ("response", pa.large_string()),
        ("parsed", pa.large_string()),
        ("created_at", pa.timestamp("us")),
    ]
)


@dataclass(frozen=True)
class JudgeCall:
    call_id: str
    generation_id: str  # the generation whose judging made the call
    judge_model: str  # the judge's fingerprint
    prompt_hash: str
    prompt: str
    response: str  # the judge's raw reply, reasoning included
    parsed: Mapping[str, Any]  # the envelope described in the module docstring
    created_at: float  # seconds since the epoch

    @property
    def verdict(self) -> dict[str, Any] | None:
        found = self.parsed.get("verdict")
        return dict(found) if isinstance(found, Mapping) else None


def add_judge_calls(src: Source, calls: Sequence[JudgeCall]) -> int:
    """Insert calls in one statement (one transaction); return how many were written."""
    if not calls:
        return 0
    table = pa.table(
        {
            "call_id": [c.call_id for c in calls],
            "generation_id": [c.generation_id for c in calls],
            "judge_model": [c.judge_model for c in calls],
            "prompt_hash": [c.prompt_hash for c in calls],
            # A judge prompt holds the model's output: a lone surrogate there (issue 17)
            # must not cost the batch.
            "prompt": [repair_text(c.prompt)[0] for c in calls],
            "response": [repair_text(c.response)[0] for c in calls],
            "parsed": [to_json(dict(c.parsed)) for c in calls],
            "created_at": [
                dt.datetime.fromtimestamp(c.created_at, tz=dt.timezone.utc).replace(tzinfo=None)
                for c in calls
            ],
        },
        schema=_SCHEMA,
    )
    with cursor_of(src) as cur:
        try:
            cur.register("_lctui_judge_calls", table)
            try:
                cur.execute("INSERT INTO judge_calls BY NAME SELECT * FROM _lctui_judge_calls")
            finally:
                cur.unregister("_lctui_judge_calls")
        except duckdb.Error as err:
            raise StoreError(f"could not store {len(calls)} judge call(s): {err}") from err
    return len(calls)


def lookup_judge_calls(
    src: Source, judge_model: str, prompt_hashes: Iterable[str]
) -> dict[str, JudgeCall]:
    """The stored call of each prompt hash this judge has answered (the latest one)."""
    wanted = sorted(set(prompt_hashes))
    if not wanted:
        return {}
    with cursor_of(src) as cur:
        rows = cur.execute(
            "SELECT call_id, generation_id, judge_model, prompt_hash, prompt, response, parsed, "
            "epoch_us(created_at) FROM judge_calls "
            "WHERE judge_model = ? AND list_contains(?, prompt_hash) "
            "QUALIFY row_number() OVER (PARTITION BY prompt_hash ORDER BY created_at DESC) = 1",
            [judge_model, wanted],
        ).fetchall()
    return {str(row[3]): _call(row) for row in rows}


def _call(row: tuple[Any, ...]) -> JudgeCall:
    parsed = json.loads(row[6]) if row[6] else {}
    return JudgeCall(
        call_id=str(row[0]),
        generation_id=str(row[1] or ""),
        judge_model=str(row[2]),
        prompt_hash=str(row[3]),
        prompt=str(row[4] or ""),
        response=str(row[5] or ""),
        parsed=parsed if isinstance(parsed, dict) else {},
        created_at=(row[7] or 0) / 1_000_000,
    )


def generations_asking(
    src: Source, metadata_key: str, run_id: str | None = None
) -> list[tuple[str, str, str]]:
    """(generation_id, example_id, output) of the latest successful generations whose
    example's metadata has `metadata_key` (e.g. "judge" for the LLM judge, "citations"
    for citation scoring), optionally of one run only, in the order they were made."""
    if not metadata_key.isidentifier():
        raise ValueError(f"{metadata_key!r} is not a metadata key")
    with cursor_of(src) as cur:
        rows = cur.execute(
            "SELECT g.generation_id, g.example_id, g.output FROM latest_generations AS g "
            "JOIN examples AS e ON e.example_id = g.example_id "
            "WHERE g.status = 'ok' AND json_extract_string(e.metadata, $path) IS NOT NULL "
            "AND ($run_id IS NULL OR g.run_id = $run_id) ORDER BY g.started_at, g.generation_id",
            {"run_id": run_id, "path": f"$.{metadata_key}"},
        ).fetchall()
    return [(str(r[0]), str(r[1]), str(r[2] or "")) for r in rows]
