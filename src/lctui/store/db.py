"""Open a results file (read-write with migrations, or read-only) and say plainly why not.

A read-write Store owns the one StoreWriter of its file; readers take their own cursor.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import duckdb
import pyarrow as pa

from lctui.core.errors import StoreError
from lctui.core.paths import default_db_path
from lctui.core.types import Example, Generation, ModelSpec, Score
from lctui.store import queries
from lctui.store.schema import SCHEMA_VERSION, migrate
from lctui.store.writer import StoreWriter

MEMORY = ":memory:"
_PID = re.compile(r"\(PID (\d+)\)")


class Store:
    """An open results file. Methods of the engine's ResultStore go to the writer."""

    def __init__(
        self, con: duckdb.DuckDBPyConnection, path: Path | None, read_only: bool, migrated_from: int
    ) -> None:
        self._con = con
        self.path = path
        self.read_only = read_only
        self.schema_version = SCHEMA_VERSION
        self.migrated_from = migrated_from  # version before this open; equal if none applied
        self._writer: StoreWriter | None = None
        self._lock = threading.Lock()

    @property
    def where(self) -> str:
        return str(self.path) if self.path else "the in-memory database"

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A new cursor for one thread: DuckDB connections must not be shared by threads."""
        return self._con.cursor()

    @property
    def writer(self) -> StoreWriter:
        """The file's one writer (created on first use)."""
        with self._lock:
            if self.read_only:
                raise StoreError(f"{self.where} is open read-only; nothing can be written to it")
            if self._writer is None:
                self._writer = StoreWriter(self.cursor(), where=self.where)
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

    def flush_if_due(self, max_age_s: float = 1.0) -> None:
        if self._writer is not None:
            self._writer.flush_if_due(max_age_s)

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
            self._con.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def open_store(path: str | Path | None = None, read_only: bool = False) -> Store:
    """Open the results file at `path` (default: the XDG data dir; ":memory:" for tests).

    Read-write opens create the file and its folders and apply missing migrations.
    Every failure is a StoreError whose message says what to do.
    """
    if path is not None and str(path) == MEMORY:
        if read_only:
            raise StoreError("an in-memory database cannot be opened read-only")
        con = duckdb.connect(MEMORY)
        return Store(con, None, False, migrate(con, "the in-memory database"))
    file = Path(path).expanduser() if path is not None else default_db_path()
    _check_path(file, read_only)
    try:
        con = duckdb.connect(str(file), read_only=read_only)
    except duckdb.Error as err:
        raise StoreError(_open_error(file, err, read_only)) from err
    try:
        before = migrate(con, str(file), read_only=read_only)
    except StoreError:
        con.close()
        raise
    except duckdb.Error as err:
        con.close()
        raise StoreError(f"cannot read {file}: {err}") from err
    return Store(con, file, read_only, before)


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
