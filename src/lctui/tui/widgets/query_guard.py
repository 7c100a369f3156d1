"""Counts a screen's queries in flight so that unmounting waits for them.

The app closes the store right after its screens, and the store's last flush has to
wait while a query of this process holds the file with other settings (the SQL
console's sandbox); a query's connection also must not outlive the app, or DuckDB
reports it as leaked when the interpreter ends. Each query closes its connection
itself (a shared store opens one per query), so draining is all that is left."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

DRAIN_S = 2.0


class QueryGuard:
    def __init__(self) -> None:
        self._busy = 0
        self._lock = threading.Lock()

    @property
    def busy(self) -> int:
        return self._busy

    @contextmanager
    def running(self) -> Iterator[None]:
        """Wrap one query of a thread worker."""
        with self._lock:
            self._busy += 1
        try:
            yield
        finally:
            with self._lock:
                self._busy -= 1

    async def drain(self, timeout: float = DRAIN_S) -> None:
        """Wait (on the event loop) until no query runs, at most `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while self._busy and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
