"""The one writer of a results file: buffer rows, insert them as Arrow tables in batches.

Rows are buffered per table and inserted with `INSERT ... SELECT FROM arrow_table`
(never row by row); all tables of a flush go in one transaction, so a generation,
its score and its rubric points land together or not at all. The engine flushes
about once a second, so a `kill -9` loses at most that much finished work.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import threading
import time
from collections.abc import Callable
from typing import Any

import duckdb
import pyarrow as pa

from lctui import __version__
from lctui.core.types import Example, Generation, ModelSpec, Score

_STR, _INT, _DBL, _BOOL, _TS = pa.string(), pa.int64(), pa.float64(), pa.bool_(), pa.timestamp("us")
_COLUMNS: dict[str, list[tuple[str, pa.DataType]]] = {
    "models": [
        ("model_id", _STR),
        ("name", _STR),
        ("backend", _STR),
        ("path", _STR),
        ("params", _STR),
        ("tokenizer", _STR),
        ("max_context", _INT),
        ("reference", _BOOL),
    ],
    "examples": [
        ("example_id", _STR),
        ("task", _STR),
        ("category", _STR),
        ("suite", _STR),
        ("length", _INT),
        ("seed", _INT),
        ("idx", _INT),
        ("tokenizer", _STR),
        ("params", _STR),
        ("preamble", _STR),
        ("context", _STR),
        ("question", _STR),
        ("answer_prefix", _STR),
        ("gold", _STR),
        ("max_new_tokens", _INT),
        ("prompt_tokens", _INT),
        ("template_overhead", _INT),
        ("depth", _DBL),
        ("spans", _STR),
        ("truncated", _BOOL),
        ("metadata", _STR),
    ],
    "generations": [
        ("generation_id", _STR),
        ("gen_key", _STR),
        ("run_id", _STR),
        ("model_id", _STR),
        ("example_id", _STR),
        ("config_hash", _STR),
        ("config", _STR),
        ("status", _STR),
        ("output", _STR),
        ("prompt_tokens", _INT),
        ("output_tokens", _INT),
        ("ttft_s", _DBL),
        ("latency_s", _DBL),
        ("finish_reason", _STR),
        ("error", _STR),
        ("started_at", _TS),
        ("prompt_head", _STR),
        ("prompt_tail", _STR),
    ],
    "scores": [
        ("generation_id", _STR),
        ("scorer", _STR),
        ("metric", _STR),
        ("value", _DBL),
        ("status", _STR),
        ("extracted", _STR),
        ("explanation", _STR),
        ("extras", _STR),
    ],
    "rubric_points": [
        ("generation_id", _STR),
        ("scorer", _STR),
        ("idx", _INT),
        ("name", _STR),
        ("capabilities", pa.list_(_STR)),
        ("weight", _DBL),
        ("earned", _DBL),
        ("explanation", _STR),
    ],
}
# Tables whose rows are content-addressed: a second insert of the same key is a no-op.
_IDEMPOTENT = {"models": "model_id", "examples": "example_id"}
_ORDER = ("models", "examples", "generations", "scores", "rubric_points")


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


class StoreWriter:
    """Buffers rows and writes them in batches through one connection."""

    def __init__(
        self,
        con: duckdb.DuckDBPyConnection,
        lock: threading.RLock,
        max_rows: int = 256,
        on_flush: Callable[[], None] | None = None,
    ) -> None:
        self._con = con
        self._lock = lock
        self._max_rows = max_rows
        self._rows: dict[str, list[dict[str, Any]]] = {t: [] for t in _ORDER}
        self._seen: dict[str, set[str]] = {t: set() for t in _IDEMPOTENT}
        self._run_updates: list[tuple[str, str, dt.datetime]] = []
        self._last_flush = time.monotonic()
        self._on_flush = on_flush

    # -- rows -------------------------------------------------------------------------

    def add_model(self, spec: ModelSpec, model_id: str, tokenizer: str, max_context: int) -> None:
        self._add(
            "models",
            {
                "model_id": model_id,
                "name": spec.name,
                "backend": spec.backend,
                "path": spec.path,
                "params": _json(dict(spec.params)),
                "tokenizer": tokenizer,
                "max_context": max_context,
                "reference": spec.reference,
            },
        )

    def start_run(self, run_id: str, command: dict[str, object]) -> None:
        with self._lock:
            self._con.execute(
                "INSERT INTO runs (run_id, started_at, status, command, lctui_version, host) "
                "VALUES (?, ?, 'running', ?, ?, ?)",
                [run_id, _now(), _json(command), __version__, str(command.get("host", ""))],
            )

    def finish_run(self, run_id: str, status: str) -> None:
        with self._lock:
            self._run_updates.append((run_id, status, _now()))

    def add_example(self, example: Example) -> None:
        row = {
            "example_id": example.example_id,
            "task": example.task,
            "category": example.category,
            "suite": example.suite,
            "length": example.length,
            "seed": example.seed,
            "idx": example.index,
            "tokenizer": example.tokenizer,
            "params": _json(dict(example.params)),
            "preamble": example.preamble,
            "context": example.context,
            "question": example.question,
            "answer_prefix": example.answer_prefix,
            "gold": _json(list(example.gold)),
            "max_new_tokens": example.max_new_tokens,
            "prompt_tokens": example.prompt_tokens,
            "template_overhead": example.template_overhead,
            "depth": example.depth,
            "spans": _json([dataclasses.asdict(s) for s in example.spans]),
            "truncated": example.truncated,
            "metadata": _json(dict(example.metadata)),
        }
        self._add("examples", row)

    def add_generation(self, generation: Generation, config: dict[str, object]) -> None:
        g = generation
        self._add(
            "generations",
            {
                "generation_id": g.generation_id,
                "gen_key": g.gen_key,
                "run_id": g.run_id,
                "model_id": g.model_id,
                "example_id": g.example_id,
                "config_hash": g.config_hash,
                "config": _json(config),
                "status": g.status.value,
                "output": g.output,
                "prompt_tokens": g.prompt_tokens,
                "output_tokens": g.output_tokens,
                "ttft_s": g.ttft_s,
                "latency_s": g.latency_s,
                "finish_reason": g.finish_reason,
                "error": g.error,
                "started_at": dt.datetime.fromtimestamp(g.started_at),
                "prompt_head": g.prompt_head,
                "prompt_tail": g.prompt_tail,
            },
        )

    def add_score(self, generation_id: str, score: Score) -> None:
        with self._lock:
            self._rows["scores"].append(
                {
                    "generation_id": generation_id,
                    "scorer": score.scorer,
                    "metric": score.metric,
                    "value": score.value,
                    "status": score.status.value,
                    "extracted": _json(list(score.extracted)),
                    "explanation": score.explanation,
                    "extras": _json(dict(score.extras)),
                }
            )
            for i, p in enumerate(score.points):
                self._rows["rubric_points"].append(
                    {
                        "generation_id": generation_id,
                        "scorer": score.scorer,
                        "idx": i,
                        "name": p.name,
                        "capabilities": list(p.capabilities),
                        "weight": p.weight,
                        "earned": p.earned,
                        "explanation": p.explanation,
                    }
                )
        self._maybe_flush()

    def _add(self, table: str, row: dict[str, Any]) -> None:
        with self._lock:
            key_column = _IDEMPOTENT.get(table)
            if key_column:
                key = row[key_column]
                if key in self._seen[table]:
                    return
                self._seen[table].add(key)
            self._rows[table].append(row)
        self._maybe_flush()

    # -- flushing ---------------------------------------------------------------------

    def pending(self) -> int:
        with self._lock:
            return sum(len(rows) for rows in self._rows.values()) + len(self._run_updates)

    def _maybe_flush(self) -> None:
        if self.pending() >= self._max_rows:
            self.flush()

    def flush_if_due(self, max_age_s: float = 1.0) -> None:
        if time.monotonic() - self._last_flush >= max_age_s:
            self.flush()

    def flush(self) -> None:
        """Write everything buffered in one transaction; on failure nothing is written
        and the rows stay buffered for the next attempt."""
        with self._lock:
            self._last_flush = time.monotonic()
            if not self.pending():
                return
            con = self._con
            con.begin()
            try:
                for table in _ORDER:
                    rows = self._rows[table]
                    if rows:
                        self._insert(table, rows)
                for run_id, status, at in self._run_updates:
                    con.execute(
                        "UPDATE runs SET status = ?, finished_at = ? WHERE run_id = ?",
                        [status, at, run_id],
                    )
                con.commit()
            except BaseException:
                con.rollback()
                raise
            for table in _ORDER:
                self._rows[table] = []
            self._run_updates = []
        if self._on_flush:
            self._on_flush()

    def _insert(self, table: str, rows: list[dict[str, Any]]) -> None:
        columns = _COLUMNS[table]
        schema = pa.schema(columns)
        batch = pa.Table.from_pylist(rows, schema=schema)
        names = ", ".join(name for name, _ in columns)
        verb = "INSERT OR IGNORE" if table in _IDEMPOTENT else "INSERT"
        self._con.register("_lctui_batch", batch)
        try:
            self._con.execute(f"{verb} INTO {table} ({names}) SELECT {names} FROM _lctui_batch")
        finally:
            self._con.unregister("_lctui_batch")


def _now() -> dt.datetime:
    return dt.datetime.now()
