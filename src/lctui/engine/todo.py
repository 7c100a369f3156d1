"""A model's work items still to do, planned as the run goes.

Items come from `ModelPlan.items` (engine/plan.py) a chunk at a time; each chunk is
planned and its keys checked against the store in a worker thread, stored keys are
skipped and counted, and the rest wait in a short queue. So a run of any n starts at
once, holds a chunk of items at most, and says what it skipped as it finds it.

A check that cannot read the file (another process holds it longer than a shared
store waits) is retried with backoff, like a write (engine/flushing.py), and said
through `on_stall`: a long `lctui query` or `lctui export` never ends a run.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator, Sequence
from itertools import islice

from lctui.core.errors import StoreError
from lctui.core.events import CellKey
from lctui.engine.flushing import FLUSH_EVERY_S, RETRY_MAX_S
from lctui.engine.plan import WorkItem

# Items planned and checked against the store at a time: one query per chunk; a
# chunk's items take about 1 MB.
CHECK_CHUNK = 2048

StoredKeys = Callable[[Sequence[str]], set[str]]
# Told the store's error while a check fails, then None (with the seconds it failed)
# once one succeeds again.
StallReport = Callable[[str | None, float], None]


class TodoStream:
    """The work items of one model that are not stored yet, in plan order.

    `stored_keys` is None for a deliberate re-run (nothing is skipped).
    """

    def __init__(
        self,
        items: Iterator[WorkItem],
        stored_keys: StoredKeys | None,
        on_stall: StallReport | None = None,
    ) -> None:
        self._items = items
        self._stored_keys = stored_keys
        self._on_stall = on_stall
        self._ready: deque[WorkItem] = deque()
        self._chunk: list[WorkItem] | None = None  # planned, not checked yet
        self._exhausted = False
        self._unreported: Counter[CellKey] = Counter()
        self._unreported_keys: list[str] = []
        self.planned = 0  # items planned so far
        self.skipped = 0  # of which already stored

    async def has_work(self) -> bool:
        """Whether an item is left to do (plans chunks until one is found or none is left)."""
        while not self._ready and (self._chunk is not None or not self._exhausted):
            if self._chunk is None:
                self._chunk = await asyncio.to_thread(self._next_chunk)
                self.planned += len(self._chunk)
            stored = await self._check(self._chunk)
            todo = [item for item in self._chunk if item.gen_key not in stored]
            found = [item for item in self._chunk if item.gen_key in stored]
            self._chunk = None
            self._ready.extend(todo)
            self._unreported.update(item.cell for item in found)
            self._unreported_keys += [item.gen_key for item in found]
            self.skipped += len(found)
        return bool(self._ready)

    async def next(self) -> WorkItem | None:
        """The next item to do, or None once every item is done or stored."""
        if not await self.has_work():
            return None
        return self._ready.popleft()

    def take_skipped(self) -> dict[CellKey, int]:
        """Stored items found since the last call, per cell."""
        found, self._unreported = dict(self._unreported), Counter()
        return found

    def take_skipped_keys(self) -> list[str]:
        """The generation keys of the stored items found since the last call (the run
        records them as reused: store/writer.py add_reused)."""
        keys, self._unreported_keys = self._unreported_keys, []
        return keys

    def _next_chunk(self) -> list[WorkItem]:
        """In a worker thread: plan the next chunk of items."""
        chunk = list(islice(self._items, CHECK_CHUNK))
        if len(chunk) < CHECK_CHUNK:
            self._exhausted = True
        return chunk

    async def _check(self, chunk: list[WorkItem]) -> set[str]:
        """The keys of `chunk` already stored, asked until the file answers."""
        if self._stored_keys is None or not chunk:
            return set()
        keys = [item.gen_key for item in chunk]
        delay, since = FLUSH_EVERY_S, None
        while True:
            try:
                stored = await asyncio.to_thread(self._stored_keys, keys)
            except StoreError as err:
                since = time.monotonic() if since is None else since
                if self._on_stall is not None:
                    self._on_stall(f"cannot check which examples are stored: {err}", 0.0)
                await asyncio.sleep(delay)
                delay = min(delay * 2, RETRY_MAX_S)
                continue
            if since is not None and self._on_stall is not None:
                self._on_stall(None, time.monotonic() - since)
            return stored
