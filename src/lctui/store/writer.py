"""The one writer of a results file: buffer rows per table, insert them as Arrow tables.

All tables of one flush go in one transaction, so a generation, its score and its rubric
points land together or not at all; the engine flushes about once a second, so a
`kill -9` loses at most about a second of finished work.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import platform
import threading
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from typing import Any

import duckdb
import pyarrow as pa

from lctui import __version__
from lctui.core.errors import StoreError
from lctui.core.types import Example, Generation, ModelSpec, Score
from lctui.store import rows
from lctui.store.closing import ClosesOnExit
from lctui.store.derived import derived_select, fill_example_columns
from lctui.store.latest import refresh_latest
from lctui.store.rows import Row

RUN_STATUSES = ("running", "finished", "cancelled", "failed")
# Insertion order inside a flush; content-addressed tables ignore keys already stored.
_ORDER = ("models", "examples", "generations", "scores", "rubric_points")
_IDEMPOTENT = frozenset({"models", "examples"})
# A flush costs about 10 ms whatever its size (a statement per table plus the commit);
# at 256 rows that fixed cost was 85 % of the writer's time (bench/store_write.py).
# Durability comes from the age-based flush, so a larger batch loses nothing.
DEFAULT_MAX_ROWS = 4096


def _utc(epoch_s: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(epoch_s, tz=dt.timezone.utc).replace(tzinfo=None)


class StoreWriter(ClosesOnExit):
    """Buffers rows and writes them in batches through its own DuckDB cursor.

    A flush is due when more than `max_rows` rows (or `max_bytes` of example and
    output text) are buffered, or, through `flush_if_due`, when the oldest buffered row
    is older than `max_age_s`. A generation waits in the buffer for its score, at most
    `hold_s` seconds, so that both land in the same transaction; `flush(force=True)`,
    `finish_run` and `close` write everything. If a flush fails it raises StoreError,
    the database holds none of its rows, and the rows stay buffered for the next try.
    """

    def __init__(
        self,
        connection: duckdb.DuckDBPyConnection
        | Callable[[], AbstractContextManager[duckdb.DuckDBPyConnection]],
        *,
        where: str = "the database",
        max_rows: int = DEFAULT_MAX_ROWS,
        max_bytes: int = 64 * 1024 * 1024,
        hold_s: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if isinstance(connection, duckdb.DuckDBPyConnection):
            held = connection
            connection = lambda: contextlib.nullcontext(held)  # noqa: E731
        # Each write borrows a cursor: the store's held one, or one opened for the write.
        self._connection = connection
        self._where = where
        self._max_rows = max_rows
        self._max_bytes = max_bytes
        self._hold_s = hold_s
        self._clock = clock
        self._lock = threading.RLock()
        self._rows: dict[str, list[Row]] = {table: [] for table in _ORDER}
        self._count = 0
        self._bytes = 0
        self._oldest: float | None = None  # clock() when the oldest buffered row came
        self._awaiting: dict[str, float] = {}  # generation_id -> clock() when added
        self._seen_examples: set[str] = set()
        self._seen_models: set[str] = set()
        self._closed = False
        self.rows_written = 0

    # -- the engine's calls ----------------------------------------------------------

    def add_model(self, spec: ModelSpec, model_id: str, tokenizer: str, max_context: int) -> None:
        """Record a model; a fingerprint already stored keeps its first record."""
        with self._lock:
            if model_id in self._seen_models:
                return
            self._seen_models.add(model_id)
            now = rows.micros(time.time())
            self._append("models", rows.model_row(spec, model_id, tokenizer, max_context, now))

    def start_run(self, run_id: str, command: Mapping[str, Any]) -> None:
        """Write the run row now (not buffered), so other readers see it running.

        Starting a run id that exists (a resumed run) marks it running again.
        """
        with self._lock:
            self._check_open()
            self._execute(
                "INSERT INTO runs (run_id, started_at, status, command, lctui_version, host) "
                "VALUES (?, ?, 'running', ?, ?, ?) "
                "ON CONFLICT (run_id) DO UPDATE SET status = 'running', finished_at = NULL",
                [
                    run_id,
                    _utc(time.time()),
                    rows.to_json(dict(command)),
                    __version__,
                    platform.node(),
                ],
            )

    def finish_run(self, run_id: str, status: str) -> None:
        """Write everything buffered, then record the run's final status.

        If the buffered rows cannot be written the run is marked `failed` (if the
        database still accepts that) and the StoreError is raised.
        """
        if status not in RUN_STATUSES:
            raise ValueError(f"run status must be one of {RUN_STATUSES}, not {status!r}")
        with self._lock:
            try:
                self.flush(force=True)
            except StoreError:
                # The flush error says more than a second one would.
                with contextlib.suppress(StoreError):
                    self._set_run_status(run_id, "failed")
                raise
            self._set_run_status(run_id, status)

    def add_example(self, example: Example) -> None:
        """Buffer an example once; its id is a content hash, so repeats are dropped."""
        with self._lock:
            if example.example_id in self._seen_examples:
                return
            self._seen_examples.add(example.example_id)
            self._bytes += len(example.context) + len(example.preamble)
            self._append("examples", rows.example_row(example))

    def add_generation(self, generation: Generation, config: Mapping[str, Any]) -> None:
        with self._lock:
            self._awaiting[generation.generation_id] = self._clock()
            self._bytes += len(generation.output)
            self._append("generations", rows.generation_row(generation, rows.to_json(config)))

    def add_score(self, generation_id: str, score: Score) -> None:
        """Buffer a score and its rubric points; they share one `scored_at`."""
        with self._lock:
            scored = rows.micros(time.time())
            self._awaiting.pop(generation_id, None)
            points = rows.point_rows(generation_id, score.scorer, scored, score.points)
            self._rows["rubric_points"].extend(points)
            self._count += len(points)
            self._append("scores", rows.score_row(generation_id, score, scored))

    # -- flushing ----------------------------------------------------------------------

    @property
    def pending(self) -> int:
        """Rows buffered and not yet written."""
        return self._count

    def flush_if_due(self, max_age_s: float = 1.0) -> int:
        """Flush when the oldest buffered row is at least `max_age_s` old; return rows written."""
        with self._lock:
            if self._oldest is None or self._clock() - self._oldest < max_age_s:
                return 0
            return self.flush()

    def flush(self, *, force: bool = False) -> int:
        """Write buffered rows in one transaction and return how many were written.

        Without `force`, generations still waiting for their score (for less than
        `hold_s`) stay buffered.
        """
        with self._lock:
            self._check_open()
            now = self._clock()
            held = (
                set()
                if force
                else {gid for gid, since in self._awaiting.items() if now - since < self._hold_s}
            )
            batch = {table: self._rows[table] for table in _ORDER if self._rows[table]}
            kept: list[Row] = []
            if held and "generations" in batch:
                kept = [r for r in batch["generations"] if r[0] in held]
                batch["generations"] = [r for r in batch["generations"] if r[0] not in held]
            batch = {table: batch_rows for table, batch_rows in batch.items() if batch_rows}
            if not batch:
                return 0
            written = self._write(batch)
            for table in _ORDER:
                self._rows[table] = []
            self._rows["generations"] = kept
            kept_ids = {r[0] for r in kept}
            self._awaiting = {g: since for g, since in self._awaiting.items() if g in kept_ids}
            self._count = len(kept)
            self._bytes = sum(len(r[8] or "") for r in kept)  # column 8: output
            self._oldest = min(self._awaiting.values()) if self._awaiting else None
            self.rows_written += written
            return written

    def discard(self) -> int:
        """Drop every buffered row (after a flush failed for good); return how many."""
        with self._lock:
            dropped = self._count
            self._rows = {table: [] for table in _ORDER}
            self._count, self._bytes, self._oldest = 0, 0, None
            self._awaiting.clear()
            return dropped

    def close(self) -> None:
        """Write everything still buffered and close the writer's cursor."""
        with self._lock:
            if self._closed:
                return
            try:
                self.flush(force=True)
            finally:
                self._closed = True

    # -- internals ---------------------------------------------------------------------

    def _append(self, table: str, row: Row) -> None:
        self._check_open()
        self._rows[table].append(row)
        self._count += 1
        if self._oldest is None:
            self._oldest = self._clock()
        if self._count > self._max_rows or self._bytes > self._max_bytes:
            self.flush()

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError(f"the writer of {self._where} is closed")

    def _write(self, batch: dict[str, list[Row]]) -> int:
        n = sum(len(batch_rows) for batch_rows in batch.values())
        with self._connection() as con:
            return self._write_with(con, batch, n)

    def _write_with(
        self, con: duckdb.DuckDBPyConnection, batch: dict[str, list[Row]], n: int
    ) -> int:
        views: list[str] = []
        try:
            for table, batch_rows in batch.items():
                views.append(f"_lctui_batch_{table}")
                con.register(views[-1], rows.to_arrow(table, batch_rows))
            con.begin()
            try:
                for table in batch:
                    self._insert(con, table, f"_lctui_batch_{table}")
                self._refresh_derived(con, batch)
                con.commit()
            except BaseException:
                con.rollback()
                raise
        except (duckdb.Error, pa.ArrowException, ValueError, TypeError, OverflowError) as err:
            raise StoreError(
                f"could not write {n} rows to {self._where}, so none of them was written "
                f"(they stay buffered): {err}"
            ) from err
        finally:
            # Outside the transaction: an aborted one would refuse this and hide the error.
            for view in views:
                with contextlib.suppress(duckdb.Error):
                    con.unregister(view)
        return n

    @staticmethod
    def _refresh_derived(con: duckdb.DuckDBPyConnection, batch: dict[str, list[Row]]) -> None:
        """After the inserts (which computed the derived columns, store/derived.py):
        the example columns of generations written before their example, and the
        `latest` flags of the keys just written (store/latest.py)."""
        if "examples" in batch:
            fill_example_columns(con, "_lctui_batch_examples")
        ids = [
            f"(SELECT generation_id FROM _lctui_batch_{table})"
            for table in ("scores", "rubric_points")
            if table in batch
        ]
        if "generations" not in batch and not ids:
            return  # nothing keyed (both None would refresh every row)
        refresh_latest(
            con,
            "(SELECT gen_key FROM _lctui_batch_generations)" if "generations" in batch else None,
            f"({' UNION ALL '.join(ids)})" if ids else None,
        )

    def _insert(self, con: duckdb.DuckDBPyConnection, table: str, view: str) -> None:
        verb = "INSERT OR IGNORE INTO" if table in _IDEMPOTENT else "INSERT INTO"
        # BY NAME keeps inserts valid when later migrations add columns.
        con.execute(f"{verb} {table} BY NAME {derived_select(table, view)}")

    def _set_run_status(self, run_id: str, status: str) -> None:
        self._execute(
            "UPDATE runs SET status = ?, finished_at = ? WHERE run_id = ?",
            [status, _utc(time.time()), run_id],
        )

    def _execute(self, sql: str, params: list[Any]) -> None:
        try:
            with self._connection() as con:
                con.execute(sql, params)
        except duckdb.Error as err:
            raise StoreError(f"could not write to {self._where}: {err}") from err
