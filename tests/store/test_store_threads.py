"""A shared store used from several threads at once, as the TUI does while several runs
go (each run plans, flushes and reads in threads of its own, beside the screens' reads)."""

from __future__ import annotations

import threading
from pathlib import Path

from lctui.store import open_store

ROUNDS = 300


def test_threads_opening_the_file_at_once_all_get_working_connections(db_path: Path) -> None:
    # stored_keys opens a connection and queries an Arrow table through it: with two
    # threads opening and closing connections to the file at once, DuckDB 2.0.1 handed
    # out connections without their Python scans now and then (about 1 in 50), and a
    # run failed with "python_arrow_scan does not exist" before it started.
    store = open_store(db_path, shared=True)
    errors: list[str] = []

    def ask() -> None:
        for i in range(ROUNDS):
            try:
                assert store.stored_keys([f"key-{i}"]) == set()
            except Exception as exc:
                errors.append(f"{type(exc).__name__}: {exc}")

    try:
        threads = [threading.Thread(target=ask) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        store.close()
    assert errors == [], errors[:3]
