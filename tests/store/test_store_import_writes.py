"""`Store.import_writes`: an import's rows are committed as they go and all taken back when
its block raises (after several flushes, beside another run's rows, re-marking that run
and adding attempts of its keys): the file is as it was, `result_cells` and the latest
flags included, and no run stays `running`. A real DuckDB file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from helpers.store_factories import (
    MODEL,
    make_example,
    make_generation,
    make_score,
    write_tiny_run,
)
from lctui.core.errors import StoreError
from lctui.core.types import ModelSpec
from lctui.store import Store, open_store
from lctui.store.importing import ImportWriter
from lctui.store.writer import DEFAULT_MAX_ROWS

GENERATIONS = DEFAULT_MAX_ROWS // 2 + 100  # with their scores and points: several flushes
OTHER = ModelSpec(name="imported", backend="imported")
TABLES = ("models", "runs", "examples", "generations", "scores", "rubric_points")


def _write(writer: ImportWriter) -> None:
    """Run-2 of a new model; its first examples and keys are run-1's (write_tiny_run),
    which it starts again, as an import into an existing run does."""
    writer.add_model(MODEL, "fp-tiny", "o200k_base", 8192)
    writer.add_model(OTHER, "fp-imported", "", 0)
    writer.start_run("run-1", {"argv": ["import"]})
    writer.start_run("run-2", {"argv": ["import"]})
    for i in range(GENERATIONS):
        example = make_example(i)
        writer.add_example(example)
        key = f"k-4096-{i}" if i < 4 else f"key-{i}"
        generation = make_generation(example, key, f"new-{i}", run_id="run-2")
        writer.add_generation(generation, {})
        writer.add_score(f"new-{i}", make_score(0.25))
    writer.finish_run("run-2", "finished")


def _state(store: Store) -> dict[str, Any]:
    cur = store.cursor()
    try:
        state: dict[str, Any] = {
            t: cur.execute(f"SELECT count(*) FROM {t}").fetchone() for t in TABLES
        }
        state["runs"] = cur.execute(
            "SELECT run_id, status, finished_at, host, pid FROM runs ORDER BY run_id"
        ).fetchall()
        state["cells"] = cur.execute("SELECT * FROM result_cells ORDER BY ALL").fetchall()
        state["latest"] = cur.execute(
            "SELECT generation_id FROM generations WHERE latest ORDER BY 1"
        ).fetchall()
    finally:
        cur.close()
    return state


def test_a_failure_after_many_flushes_takes_everything_back(tmp_path: Path) -> None:
    db = tmp_path / "runs.duckdb"
    with open_store(db) as store:
        write_tiny_run(store)
        store.flush(force=True)
        before = _state(store)
        failed = pytest.raises(RuntimeError, match="the import failed")
        with failed, store.import_writes() as writer:
            _write(writer)
            assert writer.rows_written > DEFAULT_MAX_ROWS  # committed as it went
            assert _state(store)["generations"] != before["generations"]
            raise RuntimeError("the import failed")
        assert _state(store) == before
    with open_store(db, read_only=True) as store:
        assert _state(store) == before
        full = store.cursor().execute("SELECT count(*) FROM results_core").fetchone()
        assert full == (5,)


def test_a_block_that_ends_keeps_everything(tmp_path: Path) -> None:
    db = tmp_path / "runs.duckdb"
    with open_store(db) as store:
        write_tiny_run(store)
        store.flush(force=True)
        with store.import_writes() as writer:
            _write(writer)
            writer.finish_run("run-1", "finished")
    with open_store(db, read_only=True) as store:
        state = _state(store)
    assert state["generations"] == (5 + GENERATIONS,)
    assert [(r[0], r[1]) for r in state["runs"]] == [("run-1", "finished"), ("run-2", "finished")]


def test_a_read_only_store_takes_no_import(tmp_path: Path) -> None:
    db = tmp_path / "runs.duckdb"
    open_store(db).close()
    with open_store(db, read_only=True) as store:
        writes = store.import_writes()
        with pytest.raises(StoreError, match="read-only"):
            writes.__enter__()
