"""The sandbox of user SQL: its connection's settings as DuckDB reports them, the
refusal of in-memory stores, the temporary views of older files, and the wait between
it and the store's own connections (DuckDB refuses one process a second connection
to a file with other settings, so each side waits for the other, like for a lock)."""

from __future__ import annotations

import threading
from pathlib import Path

import duckdb
import pytest

from lctui.core.errors import StoreError
from lctui.store import db, open_store, schema
from lctui.store.db import connect_waiting
from lctui.store.sandbox import (
    NEEDS_A_FILE,
    SANDBOX_SETTINGS,
    SqlSandbox,
    refusal,
    sandbox_settings,
)
from lctui.store.schema import MIGRATIONS, SCHEMA_VERSION, Migration


@pytest.fixture
def file(db_path: Path) -> Path:
    open_store(db_path).close()
    return db_path


def test_the_connection_has_the_settings_that_shut_the_outside_off(file: Path) -> None:
    names = [*SANDBOX_SETTINGS, "access_mode"]
    sql = "SELECT name, value FROM duckdb_settings() WHERE list_contains($names, name)"
    with open_store(file, shared=True) as store, SqlSandbox(store) as sandbox:
        # The sandbox runs no parameters, so the list goes in as a literal.
        table = sandbox.query(sql.replace("$names", repr(names).replace('"', "'")))
    values = {row["name"]: row["value"] for row in table.to_pylist()}
    assert values == {
        "enable_external_access": "false",
        "autoinstall_known_extensions": "false",
        "autoload_known_extensions": "false",
        "lock_configuration": "true",
        "access_mode": "read_only",
    }


def test_user_sql_spills_only_into_a_private_folder(file: Path) -> None:
    """DuckDB writes in its temp directory even with external access off; by default
    that is `<db>.tmp/`, shared with the writer (found in review)."""
    sql = "SELECT value FROM duckdb_settings() WHERE name = 'temp_directory'"
    with open_store(file, shared=True) as store, SqlSandbox(store) as sandbox:
        folder = Path(str(sandbox.query(sql).to_pylist()[0]["value"]))
    assert folder.is_dir() and folder.parent != file.parent
    assert folder.stat().st_mode & 0o777 == 0o700


def test_an_in_memory_store_is_refused_clearly() -> None:
    with open_store(":memory:") as store, pytest.raises(StoreError) as caught:
        SqlSandbox(store)
    assert str(caught.value) == NEEDS_A_FILE


def test_a_store_that_holds_its_file_cannot_lend_it(file: Path) -> None:
    with open_store(file) as store, pytest.raises(ValueError, match="shared=True"):
        SqlSandbox(store)


def test_the_store_waits_while_the_sandbox_holds_the_file(file: Path) -> None:
    with open_store(file, shared=True) as store:
        sandbox = SqlSandbox(store)
        closer = threading.Timer(0.3, sandbox.close)
        closer.start()
        cur = store.cursor()  # another configuration in this process: waits, then opens
        try:
            assert cur.execute("SELECT count(*) FROM runs").fetchone() == (0,)
        finally:
            cur.close()
            closer.join()


def test_the_sandbox_waits_while_the_store_holds_the_file(file: Path) -> None:
    with open_store(file, shared=True) as store:
        cur = store.cursor()
        closer = threading.Timer(0.3, cur.close)
        closer.start()
        with SqlSandbox(store) as sandbox:
            assert sandbox.query("SELECT count(*) AS n FROM runs").to_pylist() == [{"n": 0}]
        closer.join()


def test_a_file_busy_in_this_process_for_too_long_says_so(file: Path) -> None:
    with (
        open_store(file, shared=True) as store,
        SqlSandbox(store),
        pytest.raises(StoreError, match="stayed busy in this process"),
    ):
        connect_waiting(file, read_only=False, wait_s=0.2)


def _views_with_a_newer_one(con: duckdb.DuckDBPyConnection, temporary: bool = False) -> None:
    VIEWS(con, temporary=temporary)
    con.execute(f"CREATE {'TEMP ' if temporary else ''}VIEW newer_view AS SELECT 7 AS x")


VIEWS = db.create_views


def test_an_older_file_read_only_gets_the_current_views_in_the_sandbox(
    file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    nxt = SCHEMA_VERSION + 1
    views = Migration(nxt, "a newer view", lambda con: None, views_only=True)
    monkeypatch.setattr(schema, "MIGRATIONS", (*MIGRATIONS, views))
    monkeypatch.setattr(schema, "SCHEMA_VERSION", nxt)
    monkeypatch.setattr(db, "create_views", _views_with_a_newer_one)
    with open_store(file, read_only=True, shared=True) as store:
        assert store.migrated_from == SCHEMA_VERSION  # the file is older than this lctui
        with SqlSandbox(store) as sandbox:
            assert sandbox.query("SELECT x FROM newer_view").to_pylist() == [{"x": 7}]
            assert sandbox.query("SELECT count(*) AS n FROM results").num_rows == 1


def test_interrupt_stops_a_long_query(file: Path) -> None:
    long_query = "SELECT count(*) FROM range(100000000) AS a, range(100000000) AS b"
    with open_store(file, shared=True) as store, SqlSandbox(store) as sandbox:
        stopper = threading.Timer(0.3, sandbox.interrupt)
        stopper.start()
        with pytest.raises(StoreError, match=r"(?i)interrupt"):
            sandbox.query(long_query)
        stopper.join()
        assert sandbox.query("SELECT 1 AS one").to_pylist() == [{"one": 1}]


@pytest.mark.parametrize(
    ("sql", "why"),
    [
        ("SET enable_external_access = true", "settings cannot be changed"),
        ("SET lock_configuration = false", "settings cannot be changed"),
        ("RESET autoload_known_extensions", "settings cannot be changed"),
        ("PRAGMA enable_profiling", "settings cannot be changed"),
        ("SELECT * FROM read_text('/etc/hostname')", "out of reach"),
        ("SELECT * FROM read_csv('/etc/hostname')", "out of reach"),
        ("SELECT * FROM glob('/etc/*')", "out of reach"),
        ("SELECT * FROM '/etc/hostname'", "out of reach"),
        ("SELECT * FROM sqlite_scan('/tmp/x.db', 't')", "sqlite_scanner extension"),
        ("INSTALL httpfs", "out of reach"),
        ("LOAD httpfs", "out of reach"),
        ("DELETE FROM runs", "would change the results"),
    ],
)
def test_the_connection_alone_refuses_what_the_gate_would(file: Path, sql: str, why: str) -> None:
    """The second defence without the first: the statement runs on a connection made
    with the sandbox's settings, as SqlSandbox makes it, and DuckDB refuses it."""
    con = connect_waiting(file, read_only=True, config=dict(sandbox_settings()))
    try:
        with pytest.raises(duckdb.Error) as caught:
            con.execute(sql).fetchall()
    finally:
        con.close()
    reason = refusal(caught.value)
    assert reason is not None and why in reason, str(caught.value)
