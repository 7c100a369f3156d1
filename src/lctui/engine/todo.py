"""A model's work items still to do, planned as the run goes.

Items come from `plan.iter_items` (a generator) a chunk at a time; each chunk is
planned and its keys checked against the store in a worker thread, stored keys are
skipped and counted, and the rest wait in a short queue. So a run of any n starts at
once, holds a chunk of items at most, and says what it skipped as it finds it.
"""

from __future__ import annotations

import asyncio
from collections import Counter, deque
from collections.abc import Callable, Iterator, Sequence
from itertools import islice

from lctui.core.events import CellKey
from lctui.engine.plan import WorkItem

# Items planned and checked against the store at a time: one query per chunk; a
# chunk's items take about 1 MB.
CHECK_CHUNK = 2048

StoredKeys = Callable[[Sequence[str]], set[str]]


class TodoStream:
    """The work items of one model that are not stored yet, in plan order.

    `stored_keys` is None for a deliberate re-run (nothing is skipped).
    """

    def __init__(self, items: Iterator[WorkItem], stored_keys: StoredKeys | None) -> None:
        self._items = items
        self._stored_keys = stored_keys
        self._ready: deque[WorkItem] = deque()
        self._exhausted = False
        self._unreported: Counter[CellKey] = Counter()
        self.planned = 0  # items planned so far
        self.skipped = 0  # of which already stored

    async def has_work(self) -> bool:
        """Whether an item is left to do (plans chunks until one is found or none is left)."""
        while not self._ready and not self._exhausted:
            todo, skipped, planned = await asyncio.to_thread(self._next_chunk)
            self._ready.extend(todo)
            self._unreported.update(skipped)
            self.planned += planned
            self.skipped += sum(skipped.values())
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

    def _next_chunk(self) -> tuple[list[WorkItem], Counter[CellKey], int]:
        """In a worker thread: plan a chunk and split off what is stored."""
        chunk = list(islice(self._items, CHECK_CHUNK))
        if len(chunk) < CHECK_CHUNK:
            self._exhausted = True
        if self._stored_keys is None or not chunk:
            return chunk, Counter(), len(chunk)
        stored = self._stored_keys([item.gen_key for item in chunk])
        todo = [item for item in chunk if item.gen_key not in stored]
        skipped = Counter(item.cell for item in chunk if item.gen_key in stored)
        return todo, skipped, len(chunk)
