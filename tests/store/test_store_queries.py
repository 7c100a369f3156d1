"""Read helpers: cell scores, run summaries and the read-only query path."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from helpers.store_factories import (
    make_example,
    write_tiny_run,
)
from lctui.core.errors import StoreError
from lctui.store import (
    Store,
    cell_scores,
    get_generation,
    list_runs,
    open_store,
    query_arrow,
    run_summary,
    stored_keys,
)


def _fill(store: Store) -> None:
    """tiny @ 4096: scores 1.0, 0.5, unparsed (0), one error; tiny @ 8192: one 1.0."""
    write_tiny_run(store)


def test_cell_scores_exclude_errors_and_count_unparsed(store: Store) -> None:
    _fill(store)
    cells = cell_scores(store)
    assert [(c.model, c.task, c.length) for c in cells] == [
        ("tiny", "niah_single", 4096),
        ("tiny", "niah_single", 8192),
    ]
    first = cells[0]
    assert first.mean_score == pytest.approx(0.5)  # (1 + 0.5 + 0) / 3
    assert (first.n_scored, first.n_ok, first.n_unparsed, first.n_error) == (3, 2, 1, 1)
    assert first.stderr == pytest.approx(0.5 / 3**0.5)
    assert first.metric == "recall" and first.reference is False
    assert cells[1].stderr is None  # one example: no spread
    assert cell_scores(store, lengths=[8192], models=["fp-tiny"]) == [cells[1]]
    assert cell_scores(store, run_id="run-2") == []
    assert cell_scores(store, tasks=["vt"]) == []
    # The CLI's final table reads the same numbers.
    [row] = store.cell_summary(models=["tiny"], tasks=["niah_single"], lengths=[4096])
    assert (row.mean_score, row.n_scored, row.n_unparsed, row.n_error) == (
        pytest.approx(0.5),
        3,
        1,
        1,
    )


def test_run_summary_and_list_runs(store: Store) -> None:
    assert run_summary(store) is None
    _fill(store)
    store.start_run("run-2", {"argv": ["run", "again"]})
    summary = run_summary(store, "run-1")
    assert summary is not None
    assert (summary.status, summary.generations, summary.ok, summary.errors) == (
        "finished",
        5,
        3,
        1,
    )
    assert summary.unparsed == 1 and summary.mean_score == pytest.approx(2.5 / 4)
    assert summary.models == ("tiny",) and summary.lengths == (4096, 8192)
    assert summary.command == {"argv": ["run"]} and summary.finished_at is not None
    latest = run_summary(store)
    assert latest is not None and latest.run_id == "run-2" and latest.generations == 0
    assert [r.run_id for r in list_runs(store)] == ["run-2", "run-1"]


def test_stored_keys_handles_many_keys(store: Store) -> None:
    _fill(store)
    keys = [f"absent-{i}" for i in range(20_000)] + ["k-4096-0", "k-4096-3", "k-8192-0"]
    assert stored_keys(store, keys) == {"k-4096-0", "k-8192-0"}
    assert stored_keys(store, []) == set()
    assert store.stored_keys(["k-4096-2"]) == {"k-4096-2"}  # unparsed is done, not retried


def test_get_generation_of_an_unknown_id(store: Store) -> None:
    assert get_generation(store, "nope") is None
    assert store.get_generation("nope") is None


def test_read_only_store_refuses_writes(db_path: Path) -> None:
    with open_store(db_path) as store:
        _fill(store)
    with open_store(db_path, read_only=True) as store:
        with pytest.raises(StoreError, match=r"read-only.*DELETE does not only read"):
            query_arrow(store, "DELETE FROM generations")
        with pytest.raises(duckdb.Error, match="read-only"):
            store.cursor().execute("DELETE FROM generations")
        with pytest.raises(StoreError, match="read-only"):
            store.add_example(make_example())
        table = query_arrow(store, "SELECT model, length, score FROM results ORDER BY length")
        assert table.num_rows == 5 and table.column_names == ["model", "length", "score"]


def test_query_arrow_refuses_writes_on_a_read_write_store_too(store: Store) -> None:
    _fill(store)
    for sql in (
        "UPDATE scores SET value = 1",
        "DROP VIEW results",
        "CREATE TABLE t AS SELECT 1",
        "COPY results TO 'out.csv'",
        "ATTACH 'other.duckdb'",
        "SELECT 1; DELETE FROM runs",
        "EXPLAIN ANALYZE DELETE FROM runs",  # EXPLAIN ANALYZE runs what it explains
        "EXPLAIN (ANALYZE) DELETE FROM runs",
        "EXPLAIN ANALYZE CREATE TABLE t AS SELECT 1",
    ):
        with pytest.raises(StoreError):
            query_arrow(store, sql)
    assert store.cursor().execute("SELECT count(*) FROM runs").fetchone() == (1,)
    assert query_arrow(store, "EXPLAIN ANALYZE SELECT count(*) FROM runs").num_rows == 1


def test_query_arrow_params_limit_and_errors(store: Store) -> None:
    _fill(store)
    table = query_arrow(store, "SELECT * FROM results WHERE length = ?", params=[4096])
    assert table.num_rows == 4
    assert query_arrow(store, "SELECT * FROM range(1000000)", limit=7).num_rows == 7
    assert query_arrow(store, "SELECT * FROM range(3)", limit=10).num_rows == 3
    assert "column_name" in query_arrow(store, "DESCRIBE results").column_names
    assert query_arrow(store, "SHOW TABLES;").num_rows >= 8
    with pytest.raises(StoreError, match=r"query failed: .*no_such"):
        query_arrow(store, "SELECT * FROM no_such")
    with pytest.raises(StoreError, match="invalid SQL"):
        query_arrow(store, "SELEC 1")
    # A value that looks like SQL stays a value.
    assert query_arrow(store, "SELECT ? AS v", params=["x'; DROP TABLE runs; --"]).num_rows == 1


def test_a_connection_that_fails_the_stored_check_is_a_store_error(db_path: Path) -> None:
    """A write that fills the disk leaves DuckDB's connection invalid (FATAL); the run's
    next question, which examples are stored, must then be a StoreError that the run
    waits on as on a failed write, not an error that ends it (a loaded CI run checked its
    next 2,048 items just as the disk filled, and ended failed). A closed connection
    stands in for the invalidated one: DuckDB cannot be made to fail that way on demand."""
    store = open_store(db_path)
    _fill(store)
    assert store._con is not None
    store._con.close()
    with pytest.raises(StoreError, match="cannot read"):
        store.stored_keys(["k-4096-0"])
