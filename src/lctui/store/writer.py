"""The one writer of a results file: buffer rows per table, insert them as Arrow tables.

All tables of one flush go in one transaction, so a generation, its score and its rubric
points land together or not at all; the engine flushes about once a second, so a
`kill -9` loses at most about a second of finished work. A flush that fails keeps its
rows buffered for the next one, and rows keep coming in while a (slow) flush runs:
the buffer's lock is never held while the file is written.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, NoReturn

import duckdb
import pyarrow as pa

from lctui.core.errors import StoreError
from lctui.core.statuses import FAILED, STORED
from lctui.core.text import escape_unprintable, shorten
from lctui.core.types import Example, Generation, ModelSpec, Score
from lctui.store import rows
from lctui.store.closing import ClosesOnExit
from lctui.store.derived import derived_select, fill_example_columns
from lctui.store.latest import refresh_latest
from lctui.store.result_cells import WAITING_FOR_EXAMPLE, cells_kept, scored_keys
from lctui.store.rows import Row
from lctui.store.run_rows import end_row, start_row

# The statuses runs.status holds (core/statuses.py). `interrupted`: the run's process
# ended without saying how (kill -9, a power cut, a final write that failed); set on the
# next read-write open of the file (store/run_status.py).
RUN_STATUSES = STORED
# Insertion order inside a flush; content-addressed tables ignore keys already stored.
_ORDER = ("models", "examples", "generations", "scores", "rubric_points", "run_reused")
_IDEMPOTENT = frozenset({"models", "examples"})
# A flush costs about 10 ms whatever its size (a statement per table plus the commit);
# at 256 rows that fixed cost was 85 % of the writer's time (bench/store_write.py).
# Durability comes from the age-based flush, so a larger batch loses nothing.
DEFAULT_MAX_ROWS = 4096
_OUTPUT = rows.SCHEMAS["generations"].names.index("output")


def said(err: BaseException) -> str:
    """What a database error says, for a message: its first line (DuckDB adds the SQL it
    was running), control characters escaped (it may quote a value from a file)."""
    return escape_unprintable(shorten(str(err).split("\n", 1)[0], 300)) or type(err).__name__


@dataclass(frozen=True)
class Backlog:
    """What a writer holds and has not written: buffered rows and those of a write in
    progress."""

    rows: int
    generations: int
    oldest_s: float | None  # age of the oldest unwritten row; None when there is none
    error: str | None  # why the last flush failed; None once one succeeded


@dataclass
class _Batch:
    """Rows taken out of the buffer for one write, put back in front if it fails."""

    tables: dict[str, list[Row]]
    count: int
    size: int  # bytes of text, as counted for max_bytes
    oldest: float | None

    @property
    def generations(self) -> int:
        return len(self.tables.get("generations", ()))


class StoreWriter(ClosesOnExit):
    """Buffers rows and writes them in batches through its own DuckDB cursor.

    A flush is due when more than `max_rows` rows (or `max_bytes` of example and
    output text) are buffered, or, through `flush_if_due`, when the oldest buffered row
    is older than `max_age_s`. A generation waits in the buffer for its score, at most
    `hold_s` seconds, so that both land in the same transaction; `flush(force=True)`,
    `finish_run` and `close` write everything. If a flush fails it raises StoreError,
    the database holds none of its rows, and the rows stay buffered for the next try.

    Two locks: `_lock` guards the buffer and is held only for moments, so the engine's
    event loop never waits on the file; `_write_lock` lets one write run at a time
    (always taken before `_lock`, never after).
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
        self._write_lock = threading.RLock()
        self._rows: dict[str, list[Row]] = {table: [] for table in _ORDER}
        self._count = 0
        self._bytes = 0
        self._oldest: float | None = None  # clock() when the oldest buffered row came
        self._awaiting: dict[str, float] = {}  # generation_id -> clock() when added
        self._writing: _Batch | None = None  # taken out of the buffer by a write running
        self._error: str | None = None  # the last flush's failure, until one succeeds
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
            due = self._append(
                "models", rows.model_row(spec, model_id, tokenizer, max_context, now)
            )
        self._flush_if_full(due)

    def start_run(self, run_id: str, command: Mapping[str, Any]) -> None:
        """Write the run row now (not buffered), so other readers see it running, and
        what is buffered (the run's models) with it: a shared file is opened once.

        Starting a run id that exists (a resumed run) marks it running again, from
        whatever it was (`interrupted`, `failed`, ...), under this process's id. The run
        row failing raises StoreError; buffered rows that fail stay buffered for the
        next flush, which says so.
        """
        with self._write_lock:
            self._check_open()
            batch = self._take(force=False)
            try:
                with self._connection() as con:
                    self._run(con, *start_row(run_id, command))
                    taken, batch = batch, None
                    if taken is not None:
                        with contextlib.suppress(StoreError):
                            self._write_taken(con, taken)
            except BaseException as exc:
                self._failed_open(batch, exc)

    def finish_run(self, run_id: str, status: str, notes: Mapping[str, Any] | None = None) -> None:
        """Write everything buffered, then record the run's final status, and `notes`
        merged into its command (JSON merge patch: the run's servers, say): a shared
        file is opened once.

        If the buffered rows cannot be written the run is marked `failed` (if the
        database still accepts that) and the StoreError is raised.
        """
        if status not in RUN_STATUSES:
            raise ValueError(f"run status must be one of {RUN_STATUSES}, not {status!r}")
        with self._write_lock:
            self._check_open()
            batch = self._take(force=True)
            try:
                with self._connection() as con:
                    taken, batch = batch, None
                    if taken is not None:
                        try:
                            self._write_taken(con, taken)
                        except StoreError:
                            # The write's error says more than a second one would.
                            with contextlib.suppress(StoreError):
                                self._run(con, *end_row(run_id, FAILED))
                            raise
                    self._run(con, *end_row(run_id, status, notes))
            except BaseException as exc:
                self._failed_open(batch, exc)

    def add_example(self, example: Example) -> None:
        """Buffer an example once; its id is a content hash, so repeats are dropped."""
        with self._lock:
            if example.example_id in self._seen_examples:
                return
            self._seen_examples.add(example.example_id)
            self._bytes += len(example.context) + len(example.preamble)
            due = self._append("examples", rows.example_row(example))
        self._flush_if_full(due)

    def add_generation(self, generation: Generation, config: Mapping[str, Any]) -> None:
        with self._lock:
            self._awaiting[generation.generation_id] = self._clock()
            self._bytes += len(generation.output)
            row = rows.generation_row(generation, rows.to_json(config))
            due = self._append("generations", row)
        self._flush_if_full(due)

    def add_score(self, generation_id: str, score: Score) -> None:
        """Buffer a score and its rubric points; they share one `scored_at` and the
        score's `scorer_version`."""
        with self._lock:
            scored = rows.micros(time.time())
            self._awaiting.pop(generation_id, None)
            points = rows.point_rows(
                generation_id, score.scorer, scored, score.points, score.scorer_version
            )
            self._rows["rubric_points"].extend(points)
            self._count += len(points)
            due = self._append("scores", rows.score_row(generation_id, score, scored))
        self._flush_if_full(due)

    def add_reused(self, run_id: str, gen_keys: Sequence[str]) -> None:
        """Buffer the keys of stored generations that the run's plan covered and did not
        make again (the engine skipped them); they are written with its next flush."""
        if not gen_keys:
            return
        with self._lock:
            self._check_open()
            self._rows["run_reused"].extend((run_id, key) for key in gen_keys)
            self._count += len(gen_keys)
            if self._oldest is None:
                self._oldest = self._clock()
            due = self._count > self._max_rows
        self._flush_if_full(due)

    # -- flushing ----------------------------------------------------------------------

    @property
    def pending(self) -> int:
        """Rows not yet written (buffered, or in a write still running)."""
        return self.backlog().rows

    def backlog(self) -> Backlog:
        """What is not written yet, how old the oldest of it is, and the last failure."""
        with self._lock:
            writing = self._writing
            count = self._count + (writing.count if writing else 0)
            generations = len(self._rows["generations"]) + (writing.generations if writing else 0)
            starts = [
                t for t in (self._oldest, writing.oldest if writing else None) if t is not None
            ]
            age = self._clock() - min(starts) if starts and count else None
            return Backlog(count, generations, age, self._error)

    def flush_if_due(self, max_age_s: float = 1.0) -> int:
        """Flush when the oldest buffered row is at least `max_age_s` old; return rows written."""
        with self._lock:
            if self._oldest is None or self._clock() - self._oldest < max_age_s:
                return 0
        return self.flush()

    def flush(self, *, force: bool = False) -> int:
        """Write buffered rows in one transaction and return how many were written.

        Without `force`, generations still waiting for their score (for less than
        `hold_s`) stay buffered. Rows added while the write runs wait for the next.
        """
        with self._write_lock:
            batch = self._take(force)
            if batch is None:
                return 0
            try:
                written = self._write(batch.tables)
            except BaseException as exc:
                self._put_back(batch, exc)
                raise
            with self._lock:
                self._writing = None
                self._error = None
                self.rows_written += written
            return written

    def _write_taken(self, con: duckdb.DuckDBPyConnection, batch: _Batch) -> None:
        """Write a batch `_take` took, on `con`: counted as written, or put back."""
        n = sum(len(batch_rows) for batch_rows in batch.tables.values())
        try:
            self._write_with(con, batch.tables, n)
        except BaseException as exc:
            self._put_back(batch, exc)
            raise
        with self._lock:
            self._writing = None
            self._error = None
            self.rows_written += n

    def _failed_open(self, batch: _Batch | None, exc: BaseException) -> NoReturn:
        """After a write that opened the file failed: a batch it did not reach goes back,
        and the error is raised as a StoreError."""
        if batch is not None:
            self._put_back(batch, exc)
        if isinstance(exc, duckdb.Error):
            raise StoreError(f"could not write to {self._where}: {said(exc)}") from exc
        raise exc

    def discard(self) -> int:
        """Drop every buffered row (after a flush failed for good); return how many."""
        with self._write_lock, self._lock:
            dropped = self._count
            self._rows = {table: [] for table in _ORDER}
            self._count, self._bytes, self._oldest = 0, 0, None
            self._awaiting.clear()
            self._error = None
            return dropped

    def close(self) -> None:
        """Write everything still buffered and close the writer's cursor."""
        with self._write_lock:
            if self._closed:
                return
            try:
                self.flush(force=True)
            finally:
                self._closed = True

    # -- internals ---------------------------------------------------------------------

    def _append(self, table: str, row: Row) -> bool:
        """Buffer a row (holding `_lock`); True when the buffer is full enough to flush."""
        self._check_open()
        self._rows[table].append(row)
        self._count += 1
        if self._oldest is None:
            self._oldest = self._clock()
        return self._count > self._max_rows or self._bytes > self._max_bytes

    def _flush_if_full(self, due: bool) -> None:
        """The flush a full buffer asks for, on the caller's thread (not holding `_lock`).

        Skipped while another write runs (it, or the next one, takes these rows too) and
        while writes fail: whoever flushes on a timer (the engine) retries those and
        says so. It never raises: the rows stay buffered and the next flush() reports.
        """
        if not due or self._error is not None:
            return
        if not self._write_lock.acquire(blocking=False):
            return
        try:
            with contextlib.suppress(StoreError):
                self.flush()
        finally:
            self._write_lock.release()

    def _take(self, force: bool) -> _Batch | None:
        """Move the rows of the next write out of the buffer (held generations stay)."""
        with self._lock:
            self._check_open()
            now = self._clock()
            held = (
                set()
                if force
                else {gid for gid, since in self._awaiting.items() if now - since < self._hold_s}
            )
            tables = {table: self._rows[table] for table in _ORDER if self._rows[table]}
            kept: list[Row] = []
            if held and "generations" in tables:
                kept = [r for r in tables["generations"] if r[0] in held]
                tables["generations"] = [r for r in tables["generations"] if r[0] not in held]
            tables = {table: batch_rows for table, batch_rows in tables.items() if batch_rows}
            if not tables:
                return None
            kept_bytes = sum(len(r[_OUTPUT] or "") for r in kept)
            batch = _Batch(tables, self._count - len(kept), self._bytes - kept_bytes, self._oldest)
            self._rows = {table: [] for table in _ORDER}
            self._rows["generations"] = kept
            kept_ids = {r[0] for r in kept}
            self._awaiting = {g: since for g, since in self._awaiting.items() if g in kept_ids}
            self._count = len(kept)
            self._bytes = kept_bytes
            self._oldest = min(self._awaiting.values()) if self._awaiting else None
            self._writing = batch
            return batch

    def _put_back(self, batch: _Batch, exc: BaseException) -> None:
        """A failed write's rows go back in front of those that came meanwhile."""
        with self._lock:
            for table, batch_rows in batch.tables.items():
                self._rows[table] = batch_rows + self._rows[table]
            self._count += batch.count
            self._bytes += batch.size
            starts = [t for t in (batch.oldest, self._oldest) if t is not None]
            self._oldest = min(starts) if starts else None
            self._writing = None
            if isinstance(exc, Exception):  # not for a cancelled or interrupted thread
                self._error = str(exc) or type(exc).__name__

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError(f"the writer of {self._where} is closed")

    def _write(self, batch: dict[str, list[Row]]) -> int:
        n = sum(len(batch_rows) for batch_rows in batch.values())
        committed = False
        try:
            # A shared store opens the file for each write, and says when another
            # process holds it (the rows stay buffered).
            with self._connection() as con:
                self._write_with(con, batch, n)
                committed = True
        except (StoreError, duckdb.Error):
            # Closing a connection after the commit checkpoints, which can fail (a full
            # disk); the rows are in the write-ahead log by then, and writing them again
            # would duplicate them.
            if not committed:
                raise
        return n

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
                with self._cells_kept(con, batch):
                    for table in batch:
                        self._insert(con, table, f"_lctui_batch_{table}")
                    self._refresh_derived(con, batch)
                con.commit()
            except BaseException:
                # After a failed commit DuckDB has no transaction left, and its "no
                # transaction is active" would replace the real error (a full disk).
                with contextlib.suppress(duckdb.Error):
                    con.rollback()
                raise
        except (duckdb.Error, pa.ArrowException, ValueError, TypeError, OverflowError) as err:
            raise StoreError(
                f"could not write {n} rows to {self._where}, so none of them was written "
                f"(they stay buffered): {said(err)}"
            ) from err
        finally:
            # Outside the transaction: an aborted one would refuse this and hide the error.
            for view in views:
                with contextlib.suppress(duckdb.Error):
                    con.unregister(view)
        return n

    @staticmethod
    def _cells_kept(
        con: duckdb.DuckDBPyConnection, batch: dict[str, list[Row]]
    ) -> AbstractContextManager[None]:
        """Keep `result_cells` (store/result_cells.py) right for what the batch changes:
        its generations' keys, the generations its scores score, and generations whose
        example it may bring."""
        keys = []
        if "generations" in batch:
            keys.append("SELECT gen_key FROM _lctui_batch_generations")
        if "scores" in batch:
            keys.append(scored_keys("_lctui_batch_scores"))
        if "examples" in batch:
            keys.append(WAITING_FOR_EXAMPLE)
        if not keys:
            return contextlib.nullcontext()
        return cells_kept(con, " UNION ALL ".join(keys))

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
        try:
            with self._connection() as con:
                self._run(con, *end_row(run_id, status))
        except duckdb.Error as err:
            raise StoreError(f"could not write to {self._where}: {said(err)}") from err

    def _run(self, con: duckdb.DuckDBPyConnection, sql: str, params: list[Any]) -> None:
        try:
            con.execute(sql, params)
        except duckdb.Error as err:
            raise StoreError(f"could not write to {self._where}: {said(err)}") from err
