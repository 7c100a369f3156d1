"""Writing a run's results while it goes, its end with the last of them, and what the
run does when the file refuses.

The engine flushes the store about once a second. A flush that fails (a full disk,
another process holding the file) keeps its rows buffered; the flusher says so
(StoreStalled, with the store's own error) and tries again with backoff, for as long
as the run lasts. Finished results then pile up in memory, where a `kill -9` would
lose them, so once the backlog passes a bound no new request starts (in-flight ones
finish) until a write succeeds (StoreRecovered); then the run goes on by itself.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from lctui.core.errors import StoreError
from lctui.core.events import EventSink, StoreRecovered, StoreStalled
from lctui.core.statuses import CANCELLED, FINISHED
from lctui.store.writer import Backlog

FLUSH_EVERY_S = 1.0
RETRY_MAX_S = 8.0  # the longest wait between two tries of a failing write
# Tries of the run's last write (its status) while the file is busy.
FINISH_TRIES = 3
# A write still running after this long is reported (StoreStalled without an error):
# a shared store waits up to 15 s for a file another process holds before failing.
SLOW_WRITE_S = 8.0
# A shared store's writes go to DuckDB's write-ahead log (<db>.wal) and close without a
# checkpoint (store/db.py); this often the log is folded into the file, when the file
# is free, so a copy of the .duckdb file alone lags a running run by at most this.
CHECKPOINT_EVERY_S = 60.0


@dataclass(frozen=True)
class BacklogLimits:
    """Past either bound, new work waits for a successful write.

    `max_age_s` bounds what a kill -9 during a stall loses (about that many seconds
    of results, against about one second when writing works). It is well above the
    15 s a shared store waits for a file another process holds (store/db.py), and
    above the few seconds a write to a large shared file takes (it checkpoints on
    every close), so slow but working writes never hold a run. `max_results` bounds
    the memory unwritten results take (up to a 128K-token example each).
    """

    max_age_s: float = 30.0
    max_results: int = 1000

    def exceeded(self, backlog: Backlog) -> bool:
        age = backlog.oldest_s or 0.0
        return age >= self.max_age_s or backlog.generations >= self.max_results


BACKLOG_LIMITS = BacklogLimits()


class FlushingStore(Protocol):
    """The part of the store the flusher needs (lctui.store.Store has it)."""

    def flush(self, force: bool = False) -> int: ...

    def backlog(self) -> Backlog: ...

    def finish_run(
        self, run_id: str, status: str, notes: Mapping[str, object] | None = None
    ) -> None: ...


class RunFlusher:
    """Flushes on a timer with retries, and holds new work while too much is unwritten."""

    def __init__(
        self,
        store: FlushingStore,
        sink: EventSink,
        limits: BacklogLimits = BACKLOG_LIMITS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._store = store
        self._sink = sink
        self._limits = limits
        self._clock = clock
        self._writable = asyncio.Event()
        self._writable.set()
        self._stalled_since: float | None = None

    @property
    def holding(self) -> bool:
        """True while new work waits for a successful write."""
        return not self._writable.is_set()

    async def run(self) -> None:
        """Flush every FLUSH_EVERY_S; after a failure, back off up to RETRY_MAX_S.
        Every CHECKPOINT_EVERY_S, after a flush that worked, checkpoint the file."""
        delay = FLUSH_EVERY_S
        checkpoint = getattr(self._store, "checkpoint", None)
        last_checkpoint = self._clock()
        while True:
            await asyncio.sleep(delay)
            written = await self.flush()
            delay = FLUSH_EVERY_S if written else min(delay * 2, RETRY_MAX_S)
            due = self._clock() - last_checkpoint >= CHECKPOINT_EVERY_S
            if written and due and checkpoint is not None:
                last_checkpoint = self._clock()
                await asyncio.to_thread(checkpoint)

    async def drain(self) -> None:
        """Write everything buffered, trying until it is written (or cancelled)."""
        delay = FLUSH_EVERY_S
        while not await self.flush(force=True) or self._store.backlog().rows:
            await asyncio.sleep(delay)
            delay = min(delay * 2, RETRY_MAX_S)

    async def flush(self, force: bool = False) -> bool:
        """One write in a thread; False (and StoreStalled) when it failed."""
        write = asyncio.ensure_future(asyncio.to_thread(self._store.flush, force))
        try:
            done, _ = await asyncio.wait({write}, timeout=SLOW_WRITE_S)
        except asyncio.CancelledError:
            write.cancel()  # the thread finishes its write; nobody waits for it here
            raise
        if not done:
            # Said once per write; the run goes on meanwhile (room() holds new work
            # once the backlog is too large).
            if self._stalled_since is None:
                self._stalled_since = self._clock() - SLOW_WRITE_S
            backlog = self._store.backlog()
            self._sink(self._stalled(backlog, backlog.error))  # the last failure, if any
        try:
            written = await write
        except StoreError as err:
            self._failed(str(err))
            return False
        except Exception as err:  # not foreseen, but still a write that did not happen
            self._failed(f"{type(err).__name__}: {err}")
            return False
        self._recovered(written)
        return True

    def _recovered(self, written: int) -> None:
        """After a write that worked: a stall, or held work, is over (and said so)."""
        if self._stalled_since is not None or self.holding:
            since = self._stalled_since if self._stalled_since is not None else self._clock()
            self._stalled_since = None
            self._writable.set()
            self._sink(StoreRecovered(self._clock() - since, written))

    async def finish_at_once(self, run_id: str, notes: Mapping[str, object]) -> bool:
        """Write the last results and record the run finished, in one try (a shared file
        is opened once); False when the file refused (what was not written stays
        buffered: `drain` writes it, then `finish` the end)."""
        rows = self._store.backlog().rows
        try:
            await asyncio.to_thread(self._store.finish_run, run_id, FINISHED, notes or None)
        except StoreError:
            return False
        self._recovered(rows)
        return True

    async def finish(
        self, run_id: str, status: str, notes: Mapping[str, object]
    ) -> StoreError | None:
        """Record the run's end (and `notes` on its record), in a thread, trying again
        while the file is busy (a cancelled run tries once); the error to raise when
        results could not be written (the run is then `failed`, or `interrupted` on the
        next open). A status alone that cannot be written is said, not raised: every
        result is stored."""
        tries = 1 if status == CANCELLED else FINISH_TRIES
        delay = FLUSH_EVERY_S
        for attempt in range(tries):
            try:
                await asyncio.to_thread(self._store.finish_run, run_id, status, notes or None)
                return None
            except StoreError as err:
                error = err
            if attempt + 1 < tries:
                await asyncio.sleep(delay)
                delay = min(delay * 2, RETRY_MAX_S)
        waiting = self._store.backlog().generations
        if waiting:
            return StoreError(
                f"run {run_id} ended ({status}) but {waiting} finished generation(s) could "
                f"not be written and are lost: {error}"
            )
        self._sink(
            StoreStalled(
                error=f"every result is stored, but the run's end could not be recorded "
                f"({error}); it shows as interrupted once the file is opened read-write",
                waiting=0,
                rows=0,
                oldest_s=0.0,
                paused=False,
            )
        )
        return None

    async def room(self) -> None:
        """Return when new work may start: at once unless the backlog is too large."""
        while True:
            if not self.holding:
                backlog = self._store.backlog()
                if not self._limits.exceeded(backlog):
                    return
                self._hold(backlog, backlog.error)
            await self._writable.wait()

    def _failed(self, error: str) -> None:
        if self._stalled_since is None:
            self._stalled_since = self._clock()
        backlog = self._store.backlog()
        if self._limits.exceeded(backlog):
            self._writable.clear()
        self._sink(self._stalled(backlog, error))

    def _hold(self, backlog: Backlog, error: str | None) -> None:
        if self._stalled_since is None:
            self._stalled_since = self._clock()
        self._writable.clear()
        self._sink(self._stalled(backlog, error))

    def _stalled(self, backlog: Backlog, error: str | None) -> StoreStalled:
        return StoreStalled(
            error=error,
            waiting=backlog.generations,
            rows=backlog.rows,
            oldest_s=backlog.oldest_s or 0.0,
            paused=self.holding,
        )
