"""`Store.transaction`: what an import writes lands whole when its block ends, and not at
all when it raises, even after its writer flushed more rows than its buffer holds;
no run stays `running`. A real DuckDB file."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.store_factories import MODEL, make_example, make_generation, make_score
from lctui.core.errors import StoreError
from lctui.store import Store, open_store
from lctui.store.writer import DEFAULT_MAX_ROWS, StoreWriter

GENERATIONS = DEFAULT_MAX_ROWS // 2 + 100  # with their scores and points: several flushes


def _write(writer: StoreWriter) -> None:
    writer.add_model(MODEL, "fp-tiny", "o200k_base", 8192)
    writer.start_run("run-1", {"argv": ["import"]})
    for i in range(GENERATIONS):
        example = make_example(i)
        writer.add_example(example)
        writer.add_generation(make_generation(example, f"k-{i}", f"g-{i}"), {})
        writer.add_score(f"g-{i}", make_score())
    writer.finish_run("run-1", "finished")


def _counts(store: Store) -> tuple[int, ...]:
    row = (
        store.cursor()
        .execute(
            "SELECT (SELECT count(*) FROM generations), (SELECT count(*) FROM scores), "
            "(SELECT count(*) FROM runs), (SELECT count(*) FROM models), "
            "(SELECT count(*) FROM result_cells)"
        )
        .fetchone()
    )
    assert row is not None
    return tuple(int(v) for v in row)


def test_a_failure_after_many_flushes_leaves_nothing(tmp_path: Path) -> None:
    db = tmp_path / "runs.duckdb"
    with open_store(db) as store:
        with pytest.raises(RuntimeError, match="the import failed"), store.transaction() as writer:
            _write(writer)
            assert writer.rows_written > DEFAULT_MAX_ROWS  # flushed into the transaction
            raise RuntimeError("the import failed")
        assert _counts(store) == (0, 0, 0, 0, 0)
    with open_store(db, read_only=True) as store:
        assert _counts(store) == (0, 0, 0, 0, 0)


def test_a_block_that_ends_commits_everything(tmp_path: Path) -> None:
    db = tmp_path / "runs.duckdb"
    with open_store(db) as store, store.transaction() as writer:
        _write(writer)
    with open_store(db, read_only=True) as store:
        assert _counts(store)[:4] == (GENERATIONS, GENERATIONS, 1, 1)
        status = store.cursor().execute("SELECT status FROM runs").fetchall()
    assert status == [("finished",)]


def test_a_read_only_store_has_no_transaction(tmp_path: Path) -> None:
    db = tmp_path / "runs.duckdb"
    open_store(db).close()
    with open_store(db, read_only=True) as store:
        transaction = store.transaction()
        with pytest.raises(StoreError, match="read-only"):
            transaction.__enter__()
