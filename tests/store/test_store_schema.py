"""Migrations: from empty, no-op reopen, later migrations, newer and foreign files."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from lctui.core.errors import StoreError
from lctui.store import open_store, schema
from lctui.store.schema import MIGRATIONS, SCHEMA_VERSION, Migration

TABLES = {
    "schema_version",
    "models",
    "runs",
    "examples",
    "generations",
    "scores",
    "result_cells",
    "result_cells_stamp",
    "rubric_points",
    "judge_calls",
    "run_reused",
}
VIEWS = {"results", "rubric", "latest_generations", "latest_scores"}


def _names(path: Path, kind: str) -> set[str]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        table = "duckdb_tables()" if kind == "table" else "duckdb_views() WHERE NOT internal"
        return {r[0] for r in con.execute(f"SELECT {kind}_name FROM {table}").fetchall()}
    finally:
        con.close()


def _versions(path: Path) -> list[int]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return [
            r[0] for r in con.execute("SELECT version FROM schema_version ORDER BY 1").fetchall()
        ]
    finally:
        con.close()


def test_migrations_from_empty_create_every_table_and_view(db_path: Path) -> None:
    assert not db_path.parent.exists()
    store = open_store(db_path)  # also creates the missing folder
    assert store.migrated_from == 0
    store.close()
    assert _names(db_path, "table") == TABLES
    assert _names(db_path, "view") >= VIEWS
    assert _versions(db_path) == list(range(1, SCHEMA_VERSION + 1))


def test_reopen_applies_nothing(db_path: Path) -> None:
    open_store(db_path).close()
    store = open_store(db_path)
    assert store.migrated_from == SCHEMA_VERSION
    store.close()
    assert _versions(db_path) == list(range(1, SCHEMA_VERSION + 1))


def test_migrations_are_numbered_without_gaps() -> None:
    assert [m.version for m in MIGRATIONS] == list(range(1, len(MIGRATIONS) + 1))
    assert MIGRATIONS[0].description == "initial schema"


def _add_note_column(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("ALTER TABLE runs ADD COLUMN note TEXT")


def test_a_later_migration_upgrades_an_old_file(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_store(db_path).close()
    nxt = SCHEMA_VERSION + 1
    monkeypatch.setattr(
        schema, "MIGRATIONS", (*MIGRATIONS, Migration(nxt, "note", _add_note_column))
    )
    monkeypatch.setattr(schema, "SCHEMA_VERSION", nxt)
    with pytest.raises(StoreError, match="opened read-only so it cannot be upgraded"):
        open_store(db_path, read_only=True)
    store = open_store(db_path)
    assert store.migrated_from == SCHEMA_VERSION
    cur = store.cursor()
    columns = {r[0] for r in cur.execute("DESCRIBE runs").fetchall()}
    assert "note" in columns
    cur.execute("SELECT count(*) FROM results").fetchone()  # views were recreated
    store.close()
    assert _versions(db_path)[-1] == nxt


def _half_done(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("ALTER TABLE runs ADD COLUMN note TEXT")
    con.execute("SELECT * FROM no_such_table")


def test_a_failing_migration_leaves_the_file_as_it_was(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_store(db_path).close()
    nxt = SCHEMA_VERSION + 1
    monkeypatch.setattr(schema, "MIGRATIONS", (*MIGRATIONS, Migration(nxt, "broken", _half_done)))
    monkeypatch.setattr(schema, "SCHEMA_VERSION", nxt)
    with pytest.raises(StoreError, match=f"could not upgrade .* from schema {SCHEMA_VERSION}"):
        open_store(db_path)
    assert _versions(db_path)[-1] == SCHEMA_VERSION
    con = duckdb.connect(str(db_path), read_only=True)
    assert "note" not in {r[0] for r in con.execute("DESCRIBE runs").fetchall()}
    con.close()


@pytest.mark.parametrize("read_only", [False, True])
def test_newer_schema_is_refused_with_upgrade_advice(db_path: Path, read_only: bool) -> None:
    open_store(db_path).close()
    newer = SCHEMA_VERSION + 4
    con = duckdb.connect(str(db_path))
    con.execute("INSERT INTO schema_version VALUES (?, now()::TIMESTAMP)", [newer])
    con.close()
    with pytest.raises(StoreError) as caught:
        open_store(db_path, read_only=read_only)
    message = str(caught.value)
    assert f"newer lctui (schema {newer} > {SCHEMA_VERSION}); upgrade lctui" in message
    assert str(db_path) in message
    # The refused open released the file: a plain DuckDB connection still works.
    duckdb.connect(str(db_path)).close()


def test_a_foreign_duckdb_file_is_not_taken_over(tmp_path: Path) -> None:
    path = tmp_path / "other.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE sales (id INTEGER)")
    con.close()
    with pytest.raises(StoreError, match="not an lctui one"):
        open_store(path)
    assert _names(path, "table") == {"sales"}


def test_an_empty_duckdb_file_cannot_be_read_only(tmp_path: Path) -> None:
    path = tmp_path / "empty.duckdb"
    duckdb.connect(str(path)).close()
    with pytest.raises(StoreError, match="empty database"):
        open_store(path, read_only=True)


def test_an_older_file_opened_read_only_sees_the_current_views(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Steps that only change views do not block read-only opens: the views are
    created per cursor as temporary ones and the file is left untouched."""
    open_store(db_path).close()
    nxt = SCHEMA_VERSION + 1
    views_only = Migration(nxt, "a new view", lambda con: None, views_only=True)
    monkeypatch.setattr(schema, "MIGRATIONS", (*MIGRATIONS, views_only))
    monkeypatch.setattr(schema, "SCHEMA_VERSION", nxt)
    monkeypatch.setitem(schema_views(), "lctui_test_view", "SELECT 42 AS answer")
    for shared in (False, True):
        store = open_store(db_path, read_only=True, shared=shared)
        assert store.migrated_from == SCHEMA_VERSION
        for _ in range(2):  # every cursor, not only the first
            cur = store.cursor()
            assert cur.execute("SELECT answer FROM lctui_test_view").fetchone() == (42,)
            cur.close()
        store.close()
    assert _versions(db_path)[-1] == SCHEMA_VERSION  # nothing was written
    assert "lctui_test_view" not in _names(db_path, "view")


def schema_views() -> dict[str, str]:
    from lctui.store import views

    return views.VIEWS
