"""The derived join keys and example columns (store/derived.py): filled on every write
path, by the migration for older files, and the same rows through the faster views."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import duckdb

from helpers.store_factories import MODEL, make_example, make_generation, make_score
from lctui.store import Store, open_store
from lctui.store.derived import fill_derived
from lctui.store.latest import add_latest_columns
from lctui.store.schema import MIGRATIONS, _initial_schema
from lctui.store.transfer import export_parquet, import_parquet


def _write_two_generations(store: Store) -> None:
    store.add_model(MODEL, "fp-tiny", "o200k_base", 8192)
    store.start_run("run-1", {"argv": ["run"]})
    for i, length in enumerate((4096, 8192)):
        example = make_example(i, task=f"task_{i}", length=length)
        store.add_example(example)
        store.add_generation(make_generation(example, f"key-{i}", f"gen-{i}"), {})
        store.add_score(f"gen-{i}", make_score(0.5 * i))
    store.finish_run("run-1", "finished")


def _missing(con: duckdb.DuckDBPyConnection) -> list[tuple[str, int]]:
    """(table, rows whose derived columns are missing or wrong) where any are."""
    checks = {
        "generations": "gen_hash IS DISTINCT FROM md5_number(generation_id) OR task IS NULL "
        "OR length IS NULL OR category IS NULL "
        "OR example_hash IS DISTINCT FROM md5_number(example_id)",
        "scores": "gen_hash IS DISTINCT FROM md5_number(generation_id)",
        "rubric_points": "gen_hash IS DISTINCT FROM md5_number(generation_id)",
    }
    found = []
    for table, bad in checks.items():
        row = con.execute(f"SELECT count(*) FROM {table} WHERE {bad}").fetchone()
        if row and row[0]:
            found.append((table, int(row[0])))
    return found


def _count(con: duckdb.DuckDBPyConnection, sql: str) -> int:
    row = con.execute(sql).fetchone()
    assert row is not None
    return int(row[0])


def test_the_writer_fills_keys_and_example_columns(store: Store) -> None:
    _write_two_generations(store)
    cur = store.cursor()
    assert _count(cur, "SELECT count(*) FROM generations") == 2
    assert _count(cur, "SELECT count(*) FROM rubric_points") == 4
    assert _missing(cur) == []
    rows = cur.execute(
        "SELECT g.task, g.category, g.length FROM generations AS g ORDER BY g.generation_id"
    ).fetchall()
    assert rows == [("task_0", "retrieval", 4096), ("task_1", "retrieval", 8192)]


def test_results_core_has_the_rows_of_results_without_the_example_columns(
    store: Store,
) -> None:
    _write_two_generations(store)
    cur = store.cursor()
    core = cur.execute("SELECT * FROM results_core ORDER BY generation_id").fetchall()
    core_names = [d[0] for d in cur.description or []]
    full = cur.execute(
        f"SELECT {', '.join(core_names)} FROM results ORDER BY generation_id"
    ).fetchall()
    assert core == full and len(core) == 2
    assert {"seed", "idx", "depth", "suite", "prompt_tokens"}.isdisjoint(core_names)
    scores = cur.execute("SELECT score FROM results_core ORDER BY generation_id").fetchall()
    assert scores == [(0.0,), (0.5,)]  # joined to their own scores by the integer key


def test_a_generation_written_before_its_example_gets_the_columns_later(
    store: Store,
) -> None:
    example = make_example(7, task="late")
    store.add_generation(make_generation(example, "key-7", "gen-7"), {})
    store.add_score("gen-7", make_score(1.0))
    store.flush(force=True)
    cur = store.cursor()
    assert cur.execute("SELECT task FROM generations").fetchall() == [(None,)]
    store.add_example(example)
    store.flush(force=True)
    assert cur.execute("SELECT task, length FROM generations").fetchall() == [("late", 4096)]
    assert _missing(cur) == []


def test_a_parquet_import_fills_them(store: Store, tmp_path: Path) -> None:
    _write_two_generations(store)
    export_parquet(store, tmp_path / "export")
    # A file written before migration 5 lacks the columns: drop them from the export.
    con = duckdb.connect()
    dropped = {"generations": "gen_hash, task, category, length", "scores": "gen_hash"}
    for table in ("generations", "scores", "rubric_points"):
        path = tmp_path / "export" / f"{table}.parquet"
        con.execute(
            f"COPY (SELECT * EXCLUDE ({dropped.get(table, 'gen_hash')}) "
            f"FROM read_parquet('{path}')) TO '{path}.tmp' (FORMAT parquet)"
        )
        (tmp_path / "export" / f"{table}.parquet.tmp").replace(path)
    with open_store(tmp_path / "target.duckdb") as target:
        assert import_parquet(target, tmp_path / "export") == 2
        cur = target.cursor()
        assert _missing(cur) == []
        assert _count(cur, "SELECT count(score) FROM results_core") == 2


def test_a_parquet_round_trip_computes_the_hashes_again(store: Store, tmp_path: Path) -> None:
    """Parquet keeps a 128-bit integer as a DOUBLE: the import must not copy them back."""
    _write_two_generations(store)
    export_parquet(store, tmp_path / "export")
    with open_store(tmp_path / "target.duckdb") as target:
        assert import_parquet(target, tmp_path / "export") == 2
        assert _missing(target.cursor()) == []


def test_migration_5_fills_an_older_file(tmp_path: Path) -> None:
    path = tmp_path / "v4.duckdb"
    con = duckdb.connect(str(path))
    _initial_schema(con)
    add_latest_columns(con)
    for version in range(1, 5):
        con.execute("INSERT INTO schema_version VALUES (?, ?)", [version, dt.datetime(2026, 1, 1)])
    con.execute(
        "INSERT INTO examples (example_id, task, category, length) VALUES ('e1', 't', 'c', 4096)"
    )
    con.execute(
        "INSERT INTO generations (generation_id, gen_key, run_id, model_id, example_id, status, "
        "started_at) VALUES ('g1', 'k1', 'r', 'm', 'e1', 'ok', TIMESTAMP '2026-01-01')"
    )
    con.execute(
        "INSERT INTO scores (generation_id, scorer, metric, value, status, scored_at) "
        "VALUES ('g1', 's', 'm', 1.0, 'ok', TIMESTAMP '2026-01-02')"
    )
    con.close()
    assert MIGRATIONS[4].version == 5
    with open_store(path) as store:
        assert store.migrated_from == 4
        cur = store.cursor()
        assert _missing(cur) == []
        assert cur.execute("SELECT task, length, score FROM results_core").fetchall() == [
            ("t", 4096, 1.0)
        ]


def test_rows_inserted_by_hand_need_a_fill(store: Store) -> None:
    cur = store.cursor()
    cur.execute("INSERT INTO examples (example_id, task, length) VALUES ('e', 'hand', 1024)")
    cur.execute(
        "INSERT INTO generations (generation_id, gen_key, run_id, model_id, example_id, status)"
        " VALUES ('g', 'k', 'r', 'm', 'e', 'ok')"
    )
    assert cur.execute("SELECT task FROM results_core").fetchall() == [(None,)]
    fill_derived(cur)
    assert cur.execute("SELECT task FROM results_core").fetchall() == [("hand",)]


def test_migration_11_gives_older_generations_their_example_hash(tmp_path: Path) -> None:
    """A file from before `example_hash` (schema 10): once opened read-write every
    generation has md5_number of its example id."""
    db = tmp_path / "older.duckdb"
    with open_store(db) as store:
        _write_two_generations(store)
    con = duckdb.connect(str(db))
    try:
        con.execute("DELETE FROM schema_version WHERE version > 10")
        con.execute("ALTER TABLE generations DROP COLUMN example_hash")
        con.execute("ALTER TABLE generations DROP COLUMN calls")  # migration 12
        con.execute("DROP TABLE run_reused")  # migration 13
    finally:
        con.close()
    with open_store(db) as store:
        assert store.migrated_from == 10
        cur = store.cursor()
        assert _count(cur, "SELECT count(*) FROM generations") == 2
        assert _missing(cur) == []
