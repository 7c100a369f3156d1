"""The writes of one import (`lctui import ...`): all of it, or none of it.

An import writes through the store's batched inserts, committed as they go: DuckDB
holds a transaction's new rows in memory until it commits (about five times their size:
1.7 GB for 320 MB of RULER prompts), so one transaction for a whole import could not
stay within bounded memory. Instead `ImportWriter` remembers what it wrote (the runs it
started and what they were before, the ids of the generations, examples and models it
added) and, when the import fails or is interrupted, `ImportWriter.undo` takes it all
back in one transaction: the generations with their scores and rubric points (the
`latest` flags and `result_cells` kept right, store/result_cells.py), the examples and
models no other generation uses, and the runs, deleted or put back as they were. So an
import never leaves part of itself, nor a run `running`. A process killed outright
(kill -9, a power cut) cannot undo: its runs are marked `interrupted` at the next open
(store/run_status.py), and importing the same files again completes them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

import duckdb
import pyarrow as pa

from lctui.core.errors import StoreError
from lctui.core.types import Example, Generation, ModelSpec
from lctui.store.latest import refresh_latest
from lctui.store.result_cells import cells_kept
from lctui.store.writer import StoreWriter, said

_IDS = "_lctui_undo_ids"
_KEYS = "_lctui_undo_keys"
_BY_GENERATION = ("rubric_points", "scores", "generations")  # children first


class ImportWriter(StoreWriter):
    """A StoreWriter that remembers what it writes, so that `undo` can take it back."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._runs_before: dict[str, tuple[Any, ...] | None] = {}  # None: a new run
        self._generations: list[str] = []
        self._examples: set[str] = set()
        self._models: set[str] = set()

    def add_model(self, spec: ModelSpec, model_id: str, tokenizer: str, max_context: int) -> None:
        self._models.add(model_id)
        super().add_model(spec, model_id, tokenizer, max_context)

    def start_run(self, run_id: str, command: Mapping[str, Any]) -> None:
        if run_id not in self._runs_before:
            self._runs_before[run_id] = self._run_row(run_id)
        super().start_run(run_id, command)

    def add_example(self, example: Example) -> None:
        self._examples.add(example.example_id)
        super().add_example(example)

    def add_generation(self, generation: Generation, config: Mapping[str, Any]) -> None:
        self._generations.append(generation.generation_id)
        super().add_generation(generation, config)

    def undo(self) -> None:
        """Drop what is buffered and take back, in one transaction, everything written.
        StoreError when the file refuses (its runs are then marked `failed`, if it
        takes that)."""
        self.discard()
        try:
            with self._connection() as con:
                con.begin()
                try:
                    self._undo(con)
                    con.commit()
                except BaseException:
                    with contextlib.suppress(duckdb.Error):
                        con.rollback()
                    raise
        except duckdb.Error as err:
            for run_id in self._runs_before:
                with contextlib.suppress(StoreError):
                    self._set_run_status(run_id, "failed")
            why = f"could not take back an import from {self._where}: {said(err)}"
            raise StoreError(why) from err

    def _run_row(self, run_id: str) -> tuple[Any, ...] | None:
        try:
            with self._connection() as con:
                found = con.execute(
                    "SELECT status, finished_at, host, pid FROM runs WHERE run_id = ?", [run_id]
                ).fetchone()
        except duckdb.Error as err:
            raise StoreError(f"could not read {self._where}: {said(err)}") from err
        return tuple(found) if found is not None else None

    def _undo(self, con: duckdb.DuckDBPyConnection) -> None:
        con.register(_IDS, pa.table({"id": pa.array(self._generations, pa.string())}))
        try:
            con.execute(
                f"CREATE OR REPLACE TEMP TABLE {_KEYS} AS SELECT DISTINCT gen_key FROM "
                f"generations WHERE generation_id IN (SELECT id FROM {_IDS})"
            )
            # The cells of these keys: their other attempts become the latest again.
            with cells_kept(con, f"SELECT gen_key FROM {_KEYS}"):
                for table in _BY_GENERATION:
                    con.execute(
                        f"DELETE FROM {table} WHERE generation_id IN (SELECT id FROM {_IDS})"
                    )
                refresh_latest(con, _KEYS)
            con.execute(f"DROP TABLE {_KEYS}")
        finally:
            con.unregister(_IDS)
        # Content-addressed rows another generation may share stay.
        con.execute(
            "DELETE FROM examples AS e WHERE list_contains(?, e.example_id) AND NOT EXISTS "
            "(SELECT 1 FROM generations AS g WHERE g.example_id = e.example_id)",
            [sorted(self._examples)],
        )
        con.execute(
            "DELETE FROM models AS m WHERE list_contains(?, m.model_id) AND NOT EXISTS "
            "(SELECT 1 FROM generations AS g WHERE g.model_id = m.model_id)",
            [sorted(self._models)],
        )
        for run_id, before in self._runs_before.items():
            if before is None:
                con.execute("DELETE FROM runs WHERE run_id = ?", [run_id])
            else:
                con.execute(
                    "UPDATE runs SET status = ?, finished_at = ?, host = ?, pid = ? "
                    "WHERE run_id = ?",
                    [*before, run_id],
                )
