"""Open a results file (read-write with migrations, or read-only) with clear errors."""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from lctui.core.errors import StoreError
from lctui.core.types import Example, Generation, ModelSpec, Score
from lctui.store import queries
from lctui.store.schema import MIGRATIONS, SCHEMA_VERSION, create_views
from lctui.store.writer import StoreWriter

_LOCK_PID = re.compile(r"\(PID (\d+)\)")


class Store:
    """A DuckDB results file. Read-write stores own the one writer of the file."""

    def __init__(self, con: duckdb.DuckDBPyConnection, path: Path, read_only: bool) -> None:
        self.con = con
        self.path = path
        self.read_only = read_only
        self._lock = threading.RLock()
        self.writer = StoreWriter(con, self._lock) if not read_only else None

    # -- the engine's view (lctui.engine.runner.ResultStore) --------------------------

    def _w(self) -> StoreWriter:
        if self.writer is None:
            raise StoreError(f"{self.path} is open read-only")
        return self.writer

    def add_model(self, spec: ModelSpec, model_id: str, tokenizer: str, max_context: int) -> None:
        self._w().add_model(spec, model_id, tokenizer, max_context)

    def start_run(self, run_id: str, command: dict[str, object]) -> None:
        self._w().start_run(run_id, command)

    def finish_run(self, run_id: str, status: str) -> None:
        self._w().finish_run(run_id, status)

    def add_example(self, example: Example) -> None:
        self._w().add_example(example)

    def add_generation(self, generation: Generation, config: dict[str, object]) -> None:
        self._w().add_generation(generation, config)

    def add_score(self, generation_id: str, score: Score) -> None:
        self._w().add_score(generation_id, score)

    def flush(self) -> None:
        if self.writer is not None:
            self.writer.flush()

    def stored_keys(self, keys: Sequence[str]) -> set[str]:
        with self._lock:
            return queries.stored_keys(self.con, keys)

    # -- reads ------------------------------------------------------------------------

    def cell_summary(
        self, models: Sequence[str], tasks: Sequence[str], lengths: Sequence[int]
    ) -> list[dict[str, Any]]:
        with self._lock:
            return queries.cell_summary(self.con, models, tasks, lengths)

    def get_generation(self, generation_id: str) -> dict[str, Any] | None:
        with self._lock:
            return queries.get_generation(self.con, generation_id)

    def query_arrow(self, sql: str) -> pa.Table:
        with self._lock:
            try:
                return self.con.execute(sql).fetch_arrow_table()
            except duckdb.Error as exc:
                raise StoreError(f"query failed: {exc}") from None

    def close(self) -> None:
        with self._lock:
            if self.writer is not None:
                self.writer.flush()
            self.con.close()


def open_store(path: str | Path, read_only: bool = False) -> Store:
    """Open (creating and migrating, unless read-only) the results file at `path`."""
    path = Path(path).expanduser()
    if read_only and not path.exists():
        raise StoreError(f"database {path} does not exist (run `lctui run --db {path}` first)")
    if not read_only:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the folder of {path}: {exc.strerror}") from None
    try:
        con = duckdb.connect(str(path), read_only=read_only)
    except duckdb.Error as exc:
        raise StoreError(_explain_open_error(path, exc)) from None
    try:
        version = _current_version(con)
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{path} was written by a newer lctui (schema {version} > {SCHEMA_VERSION}); "
                "upgrade lctui to open it"
            )
        if read_only:
            if version == 0:
                raise StoreError(f"{path} is a DuckDB file but not an lctui results database")
        else:
            _migrate(con, version)
    except BaseException:
        con.close()
        raise
    return Store(con, path, read_only)


def _explain_open_error(path: Path, exc: duckdb.Error) -> str:
    message = str(exc)
    if "lock" in message.lower():
        pid = _LOCK_PID.search(message)
        holder = f" (PID {pid.group(1)})" if pid else ""
        return (
            f"{path} is in use by another process{holder}: a DuckDB file has one writer at a "
            "time. Wait for that lctui run to finish, or pass --db to use another file."
        )
    if "not a valid DuckDB database" in message:
        return f"{path} exists but is not a DuckDB database; pass --db to use another file"
    if "Permission denied" in message or "permission" in message.lower():
        return f"cannot open {path}: permission denied"
    return f"cannot open {path}: {message}"


def _current_version(con: duckdb.DuckDBPyConnection) -> int:
    exists = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = 'schema_version'"
    ).fetchone()
    if not exists or not exists[0]:
        return 0
    row = con.execute("SELECT max(version) FROM schema_version").fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def _migrate(con: duckdb.DuckDBPyConnection, version: int) -> None:
    if version == SCHEMA_VERSION:
        return
    con.begin()
    try:
        con.execute(
            "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER, applied_at TIMESTAMP)"
        )
        for target in range(version + 1, SCHEMA_VERSION + 1):
            MIGRATIONS[target - 1](con)
            con.execute("INSERT INTO schema_version VALUES (?, current_timestamp)", [target])
        create_views(con)
        con.commit()
    except BaseException:
        con.rollback()
        raise
