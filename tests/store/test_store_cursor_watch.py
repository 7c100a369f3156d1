"""`Store.watching_cursors`: the hook through which the TUI registers every cursor a
query opens, so that it can interrupt it (tui/screens/base.py)."""

from __future__ import annotations

import threading
from pathlib import Path

import duckdb
import pytest

from lctui.store import open_store


class Refused(Exception):
    pass


def test_each_cursor_of_the_watching_thread_is_handed_over_first(db_path: Path) -> None:
    store = open_store(db_path, shared=True)
    try:
        seen: list[duckdb.DuckDBPyConnection] = []
        with store.watching_cursors(seen.append):
            cur = store.cursor()
            cur.close()
            # Another thread's cursors are its own business.
            other = threading.Thread(target=lambda: store.cursor().close())
            other.start()
            other.join()
        after = store.cursor()
        after.close()
        assert seen == [cur]
    finally:
        store.close()


def test_a_refusing_watcher_closes_the_cursor_and_the_file_is_free(db_path: Path) -> None:
    store = open_store(db_path, shared=True)
    try:
        handed: list[duckdb.DuckDBPyConnection] = []

        def refuse(cur: duckdb.DuckDBPyConnection) -> None:
            handed.append(cur)
            raise Refused

        with store.watching_cursors(refuse), pytest.raises(Refused):
            store.cursor()
        [cur] = handed
        with pytest.raises(duckdb.ConnectionException):
            cur.execute("SELECT 1")
    finally:
        store.close()
    # Nothing of this process holds the file: another connection with other settings opens.
    con = duckdb.connect(str(db_path), read_only=True)
    con.close()
