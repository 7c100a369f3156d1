"""Open a results file (read-write with migrations, or read-only) and say plainly why not.

A read-write Store owns the one StoreWriter of its file; readers take their own cursor.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import duckdb

from lctui.core.errors import StoreError
from lctui.core.paths import data_dir, default_db_path, make_data_dir
from lctui.core.private import copy_mode, in_data_dir, keep_private
from lctui.core.types import Example, Generation, ModelSpec, Score
from lctui.store import schema
from lctui.store.claim import WriterClaim, writer_active
from lctui.store.closing import ClosesOnExit
from lctui.store.importing import ImportWriter
from lctui.store.read import cells as cell_reads
from lctui.store.read import generations
from lctui.store.run_status import mark_interrupted_runs
from lctui.store.schema import migrate
from lctui.store.views import create_views
from lctui.store.writer import Backlog, StoreWriter

MEMORY = ":memory:"
CursorWatcher = Callable[[duckdb.DuckDBPyConnection], None]
_PID = re.compile(r"\(PID (\d+)\)")


class Store(ClosesOnExit):
    """An open results file. Methods of the engine's ResultStore go to the writer.

    A store holds its file open for its whole life, or, when `shared`, only while a
    query or a flush runs: DuckDB lets no other process open a file that one process
    holds, so a headless run or the TUI that shares its file can be browsed (read-only)
    by another process while it writes. Nor does DuckDB let one process open a file
    twice with different settings, which the SQL console's sandbox needs (sandbox.py).
    All sides retry for a while when they find the file busy. A shared store that
    writes holds the file's `WriterClaim` (store/claim.py): for its whole life, or, once
    it lends its file while idle (`lend_when_idle`, the TUI), only while it writes.
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
        self._watchers = threading.local()  # see watching_cursors
        # Lending the file while idle (`lend_when_idle`): the writes going, and their lock.
        self._lends = False
        self._writes = 0
        self._turns = threading.RLock()
        self._closed = False

    @property
    def where(self) -> str:
        return str(self.path) if self.path else "the in-memory database"

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A new cursor for one thread: DuckDB connections must not be shared by threads.

        On a shared store it is a connection of its own, which releases the file as
        soon as it is dropped: keep it only for the query at hand.
        """
        cur = self._connect_shared() if self._con is None else self._con.cursor()
        try:
            self.add_current_views(cur)
            watcher: CursorWatcher | None = getattr(self._watchers, "watcher", None)
            if watcher is not None:
                watcher(cur)
        except BaseException:
            cur.close()  # a shared store's file stays held until its connection closes
            raise
        return cur

    @contextlib.contextmanager
    def watching_cursors(self, watcher: CursorWatcher) -> Iterator[None]:
        """Within the calling thread, hand each cursor this store opens to `watcher`
        before it is used: the TUI registers them so that it can interrupt their queries
        from the UI thread. An exception from `watcher` closes the cursor and reaches
        whoever asked for it. Writes (the writer's connections) are not watched."""
        before = getattr(self._watchers, "watcher", None)
        self._watchers.watcher = watcher
        try:
            yield
        finally:
            self._watchers.watcher = before

    def _connect_shared(self) -> duckdb.DuckDBPyConnection:
        """A connection of a shared store, for one query or one flush.

        DuckDB checkpoints a file when its last connection closes, which rewrites the
        row groups a flush appended to: 0.1-0.4 s per flush on a 15 MB file, growing with
        it. A shared store's connections close without it; the write-ahead log keeps
        every commit durable (replayed at the next open, 1.8 MB in 3 ms), DuckDB
        checkpoints on its own once the log passes 16 MiB, and `close` checkpoints once.
        """
        assert self.path is not None
        con = connect_waiting(self.path, self.read_only)
        if not self.read_only:
            con.execute("PRAGMA disable_checkpoint_on_shutdown")
        return con

    def add_current_views(self, con: duckdb.DuckDBPyConnection) -> None:
        """On an older file seen read-only, give `con` the current views as its own
        (temporary) ones; the file itself cannot be upgraded. Nothing otherwise."""
        if self.read_only and self.migrated_from < self.schema_version:
            create_views(con, temporary=True)

    @contextlib.contextmanager
    def _writer_connection(self) -> Iterator[duckdb.DuckDBPyConnection]:
        try:
            if self._con is None:
                con = self._connect_shared()
                try:
                    yield con
                finally:
                    con.close()
            else:
                if self._writer_cursor is None:
                    self._writer_cursor = self._con.cursor()
                yield self._writer_cursor
        finally:
            if self.path is not None:
                guard_companions(self.path)

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

    def finish_run(self, run_id: str, status: str, notes: Mapping[str, Any] | None = None) -> None:
        self.writer.finish_run(run_id, status, notes)

    def add_example(self, example: Example) -> None:
        self.writer.add_example(example)

    def add_generation(self, generation: Generation, config: Mapping[str, Any]) -> None:
        self.writer.add_generation(generation, config)

    def add_score(self, generation_id: str, score: Score) -> None:
        self.writer.add_score(generation_id, score)

    def add_reused(self, run_id: str, gen_keys: Sequence[str]) -> None:
        self.writer.add_reused(run_id, gen_keys)

    @contextlib.contextmanager
    def import_writes(self) -> Iterator[ImportWriter]:
        """The writer of one import (store/importing.py): its rows are committed as
        they go, and all of them taken back when the block raises, so the file holds
        all of an import or none of it. The store's own writer is flushed first."""
        if self.read_only:
            raise StoreError(f"{self.where} is open read-only; nothing can be written to it")
        self.flush(force=True)
        writer = ImportWriter(self._writer_connection, where=self.where)
        try:
            yield writer
            writer.close()
        except BaseException:
            # The import's own error says more; a failed undo marks its runs failed.
            with contextlib.suppress(StoreError):
                writer.undo()
            raise

    def flush(self, force: bool = False) -> int:
        """Write what the writer buffers; the number of rows written."""
        writer = self._writer  # once: a hand-over in another thread may drop it
        return writer.flush(force=force) if writer is not None else 0

    def backlog(self) -> Backlog:
        """What the writer has not written yet (nothing when there is no writer)."""
        if self._writer is None:
            return Backlog(0, 0, None, None)
        return self._writer.backlog()

    def stored_keys(self, keys: Sequence[str]) -> set[str]:
        """The keys already stored; a file that fails the read (a write that filled the
        disk leaves DuckDB's connection invalid until it is reopened) is a StoreError, so
        a run waits on it as on a failed write instead of ending."""
        try:
            return generations.stored_keys(self, keys)
        except duckdb.Error as err:
            raise StoreError(f"cannot read {self.where}: {err}") from err

    # -- reads (see store/read/) ---------------------------------------------------------

    def cell_summary(
        self,
        models: Sequence[str] | None = None,
        tasks: Sequence[str] | None = None,
        lengths: Sequence[int] | None = None,
        run_id: str | None = None,
        versions: Mapping[str, int] | None = None,
    ) -> list[cell_reads.CellScore]:
        """`cell_scores` of these models, tasks and lengths, for the CLI's final table."""
        return cell_reads.cell_scores(
            self, run_id=run_id, models=models, tasks=tasks, lengths=lengths, versions=versions
        )

    def get_generation(self, generation_id: str) -> generations.GenerationRecord | None:
        return generations.get_generation(self, generation_id)

    # -- lifetime --------------------------------------------------------------------------

    def close(self) -> None:
        """Write what the writer still buffers, then close the file (and its lock).

        The connections are dropped as well as closed: something may keep the Store
        alive to the end of the interpreter (a logging handler holding the TUI's
        stderr holds the app), and a connection alive then is reported as leaked.
        """
        self._closed = True
        writer, self._writer = self._writer, None
        try:
            if writer is not None:
                writer.close()
            if self.shared and not self.read_only:
                self.checkpoint()
        finally:
            cursor, self._writer_cursor = self._writer_cursor, None
            con, self._con = self._con, None
            if cursor is not None:
                cursor.close()
            if con is not None:
                con.close()
            if self.claim is not None:
                self.claim.release()

    def hand_over(self) -> None:
        """Stop writing this shared file so that another process may (a headless run,
        while the TUI is idle): what the writer holds is written, the file checkpointed
        and its claim released. The store reads on, read-only, until `take_back`.
        Nothing for a store that does not write a shared file."""
        if not self.shared or self.read_only:
            return
        with self._lock:
            writer, self._writer = self._writer, None
            try:
                if writer is not None:
                    writer.close()
                self.checkpoint()
            finally:
                self.read_only = True  # no writer is made from now on
                # Writing, it migrated the file: reads need no views of their own.
                self.migrated_from = max(self.migrated_from, self.schema_version)
                claim, self.claim = self.claim, None
                if claim is not None:
                    claim.release()

    def take_back(self) -> None:
        """Write this shared file again: after `hand_over`, or for a store opened
        read-only while another process wrote the file. Takes the claim, applies missing
        migrations and marks the runs its last writer left `running` as interrupted,
        as `open_store` does; StoreError while another process writes the file."""
        if not self.shared or not self.read_only or self.path is None:
            return
        claim = WriterClaim.take(self.path)
        try:
            con = connect_waiting(self.path, read_only=False)
            try:
                before = migrate(con, str(self.path))
                _mark_interrupted(con, self.path, claim_held=False)
            finally:
                con.close()
                guard_companions(self.path)
        except BaseException:
            claim.release()
            raise
        with self._lock:
            self.claim, self.read_only, self.migrated_from = claim, False, before

    # -- lending the file while idle (the TUI) ------------------------------------------

    def lend_when_idle(self) -> None:
        """From now on hold the shared file's claim only while something of this process
        writes (between `begin_writing` and `end_writing`): another lctui process (a
        headless run) may write the file whenever this one does not. Hands the file over
        now unless writes are going. Nothing for a store that does not share its file."""
        if not self.shared or self.path is None:
            return
        with self._turns:
            self._lends = True
            if self._writes == 0:
                self.hand_over()

    def begin_writing(self) -> None:
        """Before a write (a run, a re-score, an import): a store that lends its file
        takes it back unless it holds it already (`take_back`: StoreError while another
        process writes the file). Every call is paired with one `end_writing`."""
        with self._turns:
            if self._closed:
                raise StoreError(f"{self.where} is closed; nothing can be written to it")
            if self._lends and self.claim is None:
                self.take_back()
            self._writes += 1

    def end_writing(self) -> None:
        """After a write: a store that lends its file hands it over once no write of this
        process goes on (what the writer holds is written first)."""
        with self._turns:
            self._writes -= 1
            if self._writes == 0 and self._lends and not self._closed:
                self.hand_over()

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """`begin_writing` and `end_writing` around a block of writes."""
        self.begin_writing()
        try:
            yield
        finally:
            self.end_writing()

    @property
    def writes_going(self) -> bool:
        """Whether a write of this process goes on (between begin and end)."""
        return self._writes > 0

    def written_elsewhere(self) -> bool:
        """Whether another process holds the file's claim (a run writes it); this store's
        own claim, while it writes, is not another's."""
        if not self.shared or self.path is None:
            return False
        with self._turns:  # not taking or dropping its own claim while we look
            return self.claim is None and writer_active(self.path)

    def checkpoint(self) -> None:
        """Fold the write-ahead log into the file (see _connect_shared), so the file is
        whole on its own (at close, and now and then during a run); a file still busy
        keeps its log, which the next open reads. Nothing for other stores."""
        if not self.shared or self.read_only or self.path is None:
            return
        with contextlib.suppress(StoreError, duckdb.Error):
            con = connect_waiting(self.path, read_only=False, wait_s=CHECKPOINT_WAIT_S)
            try:
                con.execute("CHECKPOINT")
            finally:
                con.close()


CHECKPOINT_WAIT_S = 2.0  # at close, how long to wait for a file busy elsewhere


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
    created = not read_only and not file.exists()
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
        if not read_only:
            _mark_interrupted(con, file, claim_held=claim is None and writer_active(file))
    except (StoreError, duckdb.Error) as err:
        con.close()
        if claim is not None:
            claim.release()
        if isinstance(err, StoreError):
            raise
        raise StoreError(f"cannot read {file}: {err}") from err
    if not read_only:
        make_private(file, created=created)
    if shared:
        con.close()
        store = Store(None, file, read_only, before, shared=True)
        store.claim = claim
        return store
    return Store(con, file, read_only, before)


def make_private(file: Path, *, created: bool) -> None:
    """A database this process created, or one in the data folder, readable by its owner
    only (0600: it holds every prompt and output); its write-ahead log as open as it.
    A file the user placed elsewhere keeps the mode they gave it (a group may share it)."""
    if created or in_data_dir(file):
        keep_private(file)
    guard_companions(file)


def guard_companions(file: Path) -> None:
    """The write-ahead log DuckDB keeps beside `file` given the file's mode: DuckDB makes
    it anew (with the umask's mode) after each checkpoint, so after every write too."""
    copy_mode(file, wal_path(file))


def wal_path(file: Path) -> Path:
    return file.with_name(file.name + ".wal")


def _mark_interrupted(con: duckdb.DuckDBPyConnection, file: Path, *, claim_held: bool) -> None:
    """Runs left `running` by processes that are gone become `interrupted` (housekeeping:
    if the file cannot take even this, the next open read-write tries again)."""
    with contextlib.suppress(duckdb.Error):
        mark_interrupted_runs(con, claim_held=claim_held)


SHARED_WAIT_S = 15.0  # how long a shared store waits for another process's flush or query


_CONNECTING = threading.Lock()  # held while this process opens a connection


def connect_waiting(
    file: Path,
    read_only: bool,
    wait_s: float | None = None,
    config: Mapping[str, str | bool] | None = None,
) -> duckdb.DuckDBPyConnection:
    """Connect, retrying while the file is busy: another process holds it, or, in this
    process, a connection with another configuration (DuckDB refuses a second one;
    the sandbox of user SQL has its own). Either is released soon. `wait_s`: how long
    to retry (SHARED_WAIT_S when None)."""
    deadline = time.monotonic() + (SHARED_WAIT_S if wait_s is None else wait_s)
    delay = 0.01
    while True:
        try:
            # One connect at a time in this process: when two threads open the same
            # file at once, DuckDB 2.0.1 now and then hands one of them a connection
            # without its Python scans ("Table Function with name python_arrow_scan
            # does not exist" at its first Arrow query). Several runs in one TUI open
            # the file from their threads all the time (tests/store/test_store_threads.py).
            with _CONNECTING:
                return duckdb.connect(str(file), read_only=read_only, config=dict(config or {}))
        except duckdb.Error as err:
            if not _busy(err) or time.monotonic() >= deadline:
                raise StoreError(_open_error(file, err, read_only)) from err
        time.sleep(delay)
        delay = min(delay * 2, 0.2)


_OTHER_CONFIGURATION = "different configuration"  # DuckDB's words for the in-process case


def _busy(err: duckdb.Error) -> bool:
    message = str(err).lower()
    return _locked(message) or _OTHER_CONFIGURATION in message


def _locked(message: str) -> bool:
    """DuckDB's words for a file another process holds (not any message with "lock"
    in it: "block" is in its messages about damaged files)."""
    return "could not set lock" in message or "conflicting lock" in message


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
        if file.parent == data_dir():
            make_data_dir()  # 0700: the folder of every prompt and output
        else:
            file.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise StoreError(
            f"cannot create the folder {file.parent} for the database: {err.strerror}; "
            "pass --db with a path you can write"
        ) from err


def _open_error(file: Path, err: duckdb.Error, read_only: bool) -> str:
    message = str(err)
    lowered = message.lower()
    if _locked(lowered):
        pid = _PID.search(message)
        holder = f" (PID {pid.group(1)})" if pid else ""
        return (
            f"{file} is in use by another process{holder}: DuckDB lets a process write a "
            "file only while no other has it open, and read it only while none writes it "
            "(a run writing it, or a long `lctui query` or `lctui export` reading it). Pass "
            "--db to use another file, or try again once that process has ended."
        )
    if _OTHER_CONFIGURATION in lowered:
        return (
            f"{file} stayed busy in this process: a query or a write of lctui held it "
            "open with other settings (the SQL console's query runs on a connection of its "
            "own) for longer than it waits; try again once it has finished"
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
