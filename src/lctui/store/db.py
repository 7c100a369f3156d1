"""Open a results file (read-write with migrations, or read-only) and say plainly why not.

A read-write Store owns the one StoreWriter of its file; readers take their own cursor.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import duckdb
import pyarrow as pa

from lctui.core.errors import StoreError
from lctui.core.paths import default_db_path
from lctui.core.types import Example, Generation, ModelSpec, Score
from lctui.store import queries, schema
from lctui.store.closing import ClosesOnExit
from lctui.store.schema import migrate
from lctui.store.views import create_views
from lctui.store.writer import StoreWriter

MEMORY = ":memory:"
_PID = re.compile(r"\(PID (\d+)\)")


class Store(ClosesOnExit):
    """An open results file. Methods of the engine's ResultStore go to the writer.

    A store holds its file open for its whole life, or, when `shared`, only while a
    query or a flush runs: DuckDB lets no other process open a file that one process
    holds, so a headless run that shares its file can be browsed (read-only) by the
    TUI while it writes. Both sides retry for a while when they find the file busy.
    """

    def __init__(
        self,
        con: duckdb.DuckDBPyConnection | None,
        path: Path | None,
        read_only: bool,
        migrated_from: int,
        shared: bool = False,
    ) -> None:
        self._con = con
        self.path = path
        self.read_only = read_only
        self.shared = shared
        self.schema_version = schema.SCHEMA_VERSION  # read at open (tests patch it)
        self.migrated_from = migrated_from  # version before this open; equal if none applied
        self._writer: StoreWriter | None = None
        self._writer_cursor: duckdb.DuckDBPyConnection | None = None
        self.claim: WriterClaim | None = None
        self._lock = threading.Lock()

    @property
    def where(self) -> str:
        return str(self.path) if self.path else "the in-memory database"

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A new cursor for one thread: DuckDB connections must not be shared by threads.

        On a shared store it is a connection of its own, which releases the file as
        soon as it is dropped: keep it only for the query at hand.
        """
        if self._con is None:
            assert self.path is not None
            cur = connect_waiting(self.path, self.read_only)
        else:
            cur = self._con.cursor()
        if self.read_only and self.migrated_from < self.schema_version:
            # An older file seen read-only: the current views, as this cursor's own.
            create_views(cur, temporary=True)
        return cur

    @contextlib.contextmanager
    def _writer_connection(self) -> Iterator[duckdb.DuckDBPyConnection]:
        if self._con is None:
            assert self.path is not None
            con = connect_waiting(self.path, read_only=False)
            try:
                yield con
            finally:
                con.close()
        else:
            if self._writer_cursor is None:
                self._writer_cursor = self._con.cursor()
            yield self._writer_cursor

    @property
    def writer(self) -> StoreWriter:
        """The file's one writer (created on first use)."""
        with self._lock:
            if self.read_only:
                raise StoreError(f"{self.where} is open read-only; nothing can be written to it")
            if self._writer is None:
                self._writer = StoreWriter(self._writer_connection, where=self.where)
            return self._writer

    # -- the engine's ResultStore protocol (lctui.engine.runner) -------------------------

    def add_model(self, spec: ModelSpec, model_id: str, tokenizer: str, max_context: int) -> None:
        self.writer.add_model(spec, model_id, tokenizer, max_context)

    def start_run(self, run_id: str, command: Mapping[str, Any]) -> None:
        self.writer.start_run(run_id, command)

    def finish_run(self, run_id: str, status: str) -> None:
        self.writer.finish_run(run_id, status)

    def add_example(self, example: Example) -> None:
        self.writer.add_example(example)

    def add_generation(self, generation: Generation, config: Mapping[str, Any]) -> None:
        self.writer.add_generation(generation, config)

    def add_score(self, generation_id: str, score: Score) -> None:
        self.writer.add_score(generation_id, score)

    def flush(self, force: bool = False) -> None:
        if self._writer is not None:
            self._writer.flush(force=force)

    def stored_keys(self, keys: Sequence[str]) -> set[str]:
        return queries.stored_keys(self, keys)

    # -- reads (see queries.py) ---------------------------------------------------------

    def cell_summary(
        self,
        models: Sequence[str] | None = None,
        tasks: Sequence[str] | None = None,
        lengths: Sequence[int] | None = None,
        run_id: str | None = None,
    ) -> list[dict[str, Any]]:
        """`cell_scores` as dicts, for the CLI's final table."""
        cells = queries.cell_scores(
            self, run_id=run_id, models=models, tasks=tasks, lengths=lengths
        )
        return [cell.as_dict() for cell in cells]

    def get_generation(self, generation_id: str) -> dict[str, Any] | None:
        return queries.get_generation(self, generation_id)

    def query_arrow(self, sql: str, limit: int | None = None) -> pa.Table:
        return queries.query_arrow(self, sql, limit=limit)

    # -- lifetime --------------------------------------------------------------------------

    def close(self) -> None:
        """Write what the writer still buffers, then close the file (and its lock)."""
        writer, self._writer = self._writer, None
        try:
            if writer is not None:
                writer.close()
        finally:
            if self._writer_cursor is not None:
                self._writer_cursor.close()
            if self._con is not None:
                self._con.close()
            if self.claim is not None:
                self.claim.release()


def open_store(
    path: str | Path | None = None, read_only: bool = False, shared: bool = False
) -> Store:
    """Open the results file at `path` (default: the XDG data dir; ":memory:" for tests).

    Read-write opens create the file and its folders and apply missing migrations.
    `shared` holds the file only while each query or flush runs (see Store).
    Every failure is a StoreError whose message says what to do.
    """
    if path is not None and str(path) == MEMORY:
        if read_only:
            raise StoreError("an in-memory database cannot be opened read-only")
        con = duckdb.connect(MEMORY)
        return Store(con, None, False, migrate(con, "the in-memory database"))
    file = Path(path).expanduser() if path is not None else default_db_path()
    _check_path(file, read_only)
    # The claim comes first, so a TUI never takes over a file a run is about to write.
    claim = WriterClaim.take(file) if shared and not read_only else None
    try:
        con = connect_waiting(file, read_only, wait_s=SHARED_WAIT_S if shared else 0.0)
    except BaseException:
        if claim is not None:
            claim.release()
        raise
    try:
        before = migrate(con, str(file), read_only=read_only)
    except (StoreError, duckdb.Error) as err:
        con.close()
        if claim is not None:
            claim.release()
        if isinstance(err, StoreError):
            raise
        raise StoreError(f"cannot read {file}: {err}") from err
    if shared:
        con.close()
        store = Store(None, file, read_only, before, shared=True)
        store.claim = claim
        return store
    return Store(con, file, read_only, before)


class WriterClaim:
    """An advisory lock on `<db>.writer` held by the process that writes a shared file.

    DuckDB's own lock is released between flushes of a shared store, so this is how
    another process (the TUI) knows a run is writing the file. The OS drops it when
    the process ends, even on kill -9.
    """

    def __init__(self, handle: IO[bytes]) -> None:
        self._handle = handle

    @staticmethod
    def path(file: Path) -> Path:
        return file.with_name(file.name + ".writer")

    @classmethod
    def take(cls, file: Path) -> WriterClaim:
        _check_writable_folder(file)
        try:
            handle = cls.path(file).open("a+b")
        except OSError as err:
            raise StoreError(_cannot_write(cls.path(file), err.strerror or str(err))) from err
        if not _try_lock(handle):
            handle.close()
            raise StoreError(
                f"{file} is being written by another lctui run; wait for it to finish or "
                "pass --db to use another file"
            )
        return cls(handle)

    def release(self) -> None:
        self._handle.close()  # closing the descriptor drops the lock


def writer_active(file: Path) -> bool:
    """Whether a process holds the writer claim of `file` (a shared run is writing it)."""
    claim = WriterClaim.path(Path(file).expanduser())
    if not claim.exists():
        return False
    with claim.open("a+b") as handle:
        if _try_lock(handle):
            return False
    return True


def _try_lock(handle: IO[bytes]) -> bool:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no claim, no detection
        return True
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


SHARED_WAIT_S = 15.0  # how long a shared store waits for another process's flush or query


def connect_waiting(
    file: Path, read_only: bool, wait_s: float = SHARED_WAIT_S
) -> duckdb.DuckDBPyConnection:
    """Connect, retrying while another process holds the file (it releases it soon)."""
    deadline = time.monotonic() + wait_s
    delay = 0.01
    while True:
        try:
            return duckdb.connect(str(file), read_only=read_only)
        except duckdb.Error as err:
            busy = "lock" in str(err).lower()
            if not busy or time.monotonic() >= deadline:
                raise StoreError(_open_error(file, err, read_only)) from err
        time.sleep(delay)
        delay = min(delay * 2, 0.2)


def _check_path(file: Path, read_only: bool) -> None:
    if file.is_dir():
        raise StoreError(f"{file} is a folder; give the path of a database file (--db)")
    if read_only:
        if not file.exists():
            raise StoreError(
                f"{file} does not exist, so there is no database to read; run an evaluation "
                "first (lctui run) or pass --db with the path of an existing file"
            )
        return
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise StoreError(
            f"cannot create the folder {file.parent} for the database: {err.strerror}; "
            "pass --db with a path you can write"
        ) from err


def _check_writable_folder(file: Path) -> None:
    """Refuse before a run starts, not at its first flush, a folder where DuckDB cannot
    write its journal (`<db>.wal`, created next to the file on every write).

    Only for the writer of a shared file (a headless run): the TUI opens such a file
    read-write to browse it and writes only when asked."""
    folder = file.parent
    if folder.is_dir() and not os.access(folder, os.W_OK | os.X_OK):
        raise StoreError(_cannot_write(folder, "Permission denied"))


def _cannot_write(where: Path, reason: str) -> str:
    """The message for a folder (or the run's claim file) that cannot be written."""
    return (
        f"cannot write {where} ({reason}): lctui writes the database's journal and claim "
        "files next to it; fix the folder's permissions, or pass --db with a path in a "
        "folder you can write (or open the file read-only)"
    )


def _open_error(file: Path, err: duckdb.Error, read_only: bool) -> str:
    message = str(err)
    lowered = message.lower()
    if "could not set lock" in lowered or "conflicting lock" in lowered:
        pid = _PID.search(message)
        holder = f" (PID {pid.group(1)})" if pid else ""
        return (
            f"{file} is in use by another process{holder}: another lctui process is writing "
            "it, and DuckDB lets no other process open a file while one writes it. Pass --db "
            "to use another file, or open this one read-only once that process has ended."
        )
    if "not a valid duckdb database" in lowered:
        return (
            f"{file} is not a DuckDB database (or it is damaged): move it away, or pass --db "
            "to use another file"
        )
    if "permission denied" in lowered:
        mode = "read" if read_only else "read and write"
        return (
            f"permission denied: cannot {mode} {file} (or its folder); fix its permissions "
            "or pass --db with a path you can use"
        )
    if "version" in lowered and ("storage" in lowered or "newer" in lowered):
        return f"{file} was written by a newer DuckDB than this one; upgrade duckdb: {message}"
    return f"cannot open {file}: {message}"
