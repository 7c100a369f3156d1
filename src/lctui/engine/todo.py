"""A model's work items still to do, planned as the run goes.

Items come from `ModelPlan.items` (engine/plan.py) a chunk at a time; each chunk is
planned and its keys checked against the store in a worker thread, stored keys are
skipped and counted, and the rest wait in a short queue. So a run of any n starts at
once, holds a chunk of items at most, and says what it skipped as it finds it.

Where requests run together (a backend with more than one in flight), each chunk's
items are sent longest first (`longest_first`): a run's wall time is its last
request's end, and a long one started last runs on alone (on LongBench v2 the 1,024-token
chains of thought started 21 and 44 s in, behind the short direct questions, and
decoded alone at the end). Examples sharing a context stay together.

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

# What one generated token costs in wall time, counted in prompt tokens read: vLLM on
# 2 CPU cores reads about 1,000 prompt tokens/s and generates about 22 tokens/s per
# request (one token as long as 45 read); a GPU's ratio is larger still. A budget is
# an upper bound (answers stop early), hence less. Only the order depends on it.
DECODE_WEIGHT = 32

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
        *,
        order: Callable[[list[WorkItem]], list[WorkItem]] | None = None,
    ) -> None:
        self._items = items
        self._order = order  # each chunk's items to do, reordered (longest_first)
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
            self._ready.extend(self._order(todo) if self._order is not None else todo)
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


def expected_work(item: WorkItem) -> int:
    """How long an item's request is expected to take, in prompt tokens read: its
    prompt plus DECODE_WEIGHT per token of its answer budget."""
    answer = item.config.max_new_tokens
    if item.prebuilt is not None:
        prompt = item.prebuilt.prompt_tokens
    else:  # a length counts the prompt and the answer reserve
        prompt = max(item.build_length - answer, 0)
    if item.truncate_to is not None:
        prompt = min(prompt, item.truncate_to)
    return prompt + DECODE_WEIGHT * answer


def longest_first(items: list[WorkItem]) -> list[WorkItem]:
    """`items` with the longest expected work first (expected_work), stable. Items that
    share a context (WorkItem.context_key, planned back to back for a server's prefix
    cache) stay together, the group placed by its longest item."""
    groups: dict[object, list[WorkItem]] = {}
    for position, item in enumerate(items):
        key = item.context_key if item.context_key is not None else ("own", position)
        groups.setdefault(key, []).append(item)
    ranked = sorted(groups.values(), key=lambda g: -max(expected_work(i) for i in g))
    return [item for group in ranked for item in group]
