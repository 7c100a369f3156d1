"""The base of every lctui screen: the app as screens see it, and the one way to query.

`LctuiScreen.lctui` is the app typed as `LctuiHost`, the few things screens use of it,
so no screen names the app class that opens it. `run_query(fn, *args, group=...,
done=...)` runs `fn(store, *args)` in a thread worker (DuckDB calls block; the UI
thread never waits on them), exclusive within its group:

- every cursor `fn` opens through the store (and anything it hands to `register_connection`, such as
  the SQL console's sandbox) is registered with its query, and interrupted when a newer
  query of the same group replaces it or when the screen is unmounted;
- the outcome comes back to the UI thread as a message (`QueryDone`, `QueryFailed`),
  whose handler calls `done(result)` or `failed(error)` there; the answer of a query
  that was replaced, cancelled or outlived its screen is dropped;
- any exception of `fn` is an error message on the screen, never a crash.

Unmounting stops the screen's queries and waits (at most `DRAIN_S`) for their threads:
the app closes the store right after its screens, DuckDB refuses to close a connection
while a cursor of it is mid-query, and a query's connection must not outlive the app.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, cast

import duckdb
from textual import events, on
from textual.message import Message
from textual.screen import Screen

if sys.version_info >= (3, 11):
    from typing import TypeVarTuple, Unpack
else:  # a dependency of textual's
    from typing_extensions import TypeVarTuple, Unpack

if TYPE_CHECKING:
    from lctui.core.config import Config
    from lctui.engine import RunRequest
    from lctui.store.db import Store
    from lctui.tui.state.run_manager import ManagedRun, RunManager

T = TypeVar("T")
Ts = TypeVarTuple("Ts")

DRAIN_S = 2.0  # how long unmounting waits for the threads of interrupted queries


def on_a_cursor(
    fn: Callable[[duckdb.DuckDBPyConnection, Unpack[Ts]], T],
) -> Callable[[Store, Unpack[Ts]], T]:
    """`fn(cursor, *args)` as a `run_query` function: a cursor of the store is opened
    for it (and registered, like every cursor the store opens) and closed after it."""

    def on_cursor(store: Store, *args: Unpack[Ts]) -> T:
        cur = store.cursor()
        try:
            return fn(cur, *args)
        finally:
            cur.close()  # a shared store's file is held until its connection closes

    return on_cursor


class LctuiHost(Protocol):
    """What screens use of the app (`lctui.tui.app.LctuiApp` is one)."""

    config: Config
    db_path: Path
    read_only: bool
    writable_later: bool  # read-only only while another lctui process writes the file

    @property
    def store(self) -> Store: ...

    @property
    def runs(self) -> RunManager: ...

    def open_generation(self, generation_id: str) -> None: ...

    def start_run(self, request: RunRequest) -> ManagedRun: ...

    async def start_background(self, request: RunRequest) -> ManagedRun | None: ...

    def show_run(self, run: ManagedRun) -> None: ...

    def show_runs(self) -> None: ...


class Interruptible(Protocol):
    """A connection (a DuckDB cursor, the SQL sandbox) whose query can be stopped from
    another thread; the query then fails with an error."""

    def interrupt(self) -> None: ...


class QuerySuperseded(Exception):
    """The query was replaced or its screen closed: it must not open another cursor."""


class PendingQuery(Generic[T]):
    """One `run_query` call. `finished` completes in the worker thread with the result
    or the error, whether or not the screen still wants it; it is cancelled if the
    query is replaced, or its screen closes, before its thread starts it."""

    def __init__(
        self,
        group: str,
        done: Callable[[T], None],
        failed: Callable[[Exception], None] | None,
    ) -> None:
        self.group = group
        self.done = done
        self.failed = failed
        self.finished: Future[T] = Future()
        self.started = False
        self.delivered = False
        self.targets: list[Interruptible] = []


class LctuiScreen(Screen[None]):
    """A screen of the lctui app (see the module docstring)."""

    class QueryDone(Message):
        """A query of this screen returned (posted from its worker thread)."""

        def __init__(self, query: PendingQuery[Any]) -> None:
            super().__init__()
            self.query = query

    class QueryFailed(Message):
        """A query of this screen raised (posted from its worker thread)."""

        def __init__(self, query: PendingQuery[Any], error: Exception) -> None:
            super().__init__()
            self.query = query
            self.error = error

    def __init__(self) -> None:
        super().__init__()
        self._queries_lock = threading.Lock()
        self._queries_current: dict[str, PendingQuery[Any]] = {}  # the query each group wants
        self._queries_running: set[PendingQuery[Any]] = set()  # queries whose thread runs
        self._queries_closing = False
        self._queries_thread = threading.local()  # the query the calling worker thread runs
        self._queries_names = itertools.count(1)

    @property
    def lctui(self) -> LctuiHost:
        return cast("LctuiHost", self.app)  # LctuiApp, checked against LctuiHost in app.py

    @property
    def closing(self) -> bool:
        """True once the screen is being unmounted: no query starts any more."""
        return self._queries_closing

    # -- starting -----------------------------------------------------------------------

    def run_query(
        self,
        fn: Callable[[Store, Unpack[Ts]], T],
        *args: Unpack[Ts],
        group: str,
        done: Callable[[T], None],
        failed: Callable[[Exception], None] | None = None,
    ) -> PendingQuery[T]:
        """Run `fn(store, *args)` in a thread worker, replacing the group's query.

        `done` gets the result and `failed` the exception, both on the UI thread and
        only if this is still the group's query; without `failed` an error is notified.
        """
        query: PendingQuery[T] = PendingQuery(group, done, failed)
        with self._queries_lock:
            if self._queries_closing:
                query.finished.cancel()
                return query
            replaced = self._queries_current.get(group)
            self._queries_current[group] = query
            self._forget_unstarted(replaced)
        if replaced is not None:
            self._interrupt(replaced)
        store = self.lctui.store
        self.run_worker(
            lambda: self._execute(query, store, fn, args),
            name=f"{group}-{next(self._queries_names)}",
            group=group,
            thread=True,
            exclusive=True,
            exit_on_error=False,
        )
        return query

    def cancel_query(self, group: str) -> None:
        """Interrupt the group's query, if one runs, and drop its answer."""
        with self._queries_lock:
            query = self._queries_current.pop(group, None)
            self._forget_unstarted(query)
        if query is not None:
            self._interrupt(query)

    def register_connection(self, target: Interruptible) -> None:
        """From inside a query's `fn`: register a connection the store did not open
        (the SQL sandbox) so that replacing or closing interrupts it too."""
        query: PendingQuery[Any] | None = getattr(self._queries_thread, "query", None)
        if query is None:
            raise RuntimeError(
                "register_connection() is for the thread of a query started by run_query"
            )
        self._register(query, target)

    def deliver_if_finished(self, query: PendingQuery[Any]) -> bool:
        """Deliver `query`'s outcome now if its thread has finished (on the UI thread);
        its message is then dropped. Whether it was delivered, now or before."""
        if not query.finished.done() or query.finished.cancelled():
            return query.delivered
        error = query.finished.exception()
        if error is None:
            self._deliver(query, query.finished.result(), None)
        elif isinstance(error, Exception):
            self._deliver(query, None, error)
        return query.delivered

    # -- the worker thread --------------------------------------------------------------

    def _execute(
        self,
        query: PendingQuery[T],
        store: Store,
        fn: Callable[[Store, Unpack[Ts]], T],
        args: tuple[Unpack[Ts]],
    ) -> None:
        with self._queries_lock:
            if not self._wanted(query):
                query.finished.cancel()
                return
            query.started = True
            self._queries_running.add(query)
        self._queries_thread.query = query
        try:
            with store.watching_cursors(lambda cur: self._register(query, cur)):
                result = fn(store, *args)
        except Exception as exc:
            query.finished.set_exception(exc)
            if self._wanted(query):
                self.post_message(self.QueryFailed(query, exc))
            return
        finally:
            self._queries_thread.query = None
            with self._queries_lock:
                self._queries_running.discard(query)
                query.targets.clear()
        query.finished.set_result(result)
        if self._wanted(query):
            self.post_message(self.QueryDone(query))

    def _register(self, query: PendingQuery[Any], target: Interruptible) -> None:
        # Under the lock that replacing and unmounting take, so no connection of a query
        # they have already interrupted starts a query after they looked.
        with self._queries_lock:
            if not self._wanted(query):
                raise QuerySuperseded(f"the {query.group} query was replaced or its screen closed")
            query.targets.append(target)

    @staticmethod
    def _forget_unstarted(query: PendingQuery[Any] | None) -> None:
        # Under the lock: a query whose thread has not started will not run (_execute
        # checks), and Textual may drop its worker unstarted, so end it here.
        if query is not None and not query.started:
            query.finished.cancel()

    def _wanted(self, query: PendingQuery[Any]) -> bool:
        return not self._queries_closing and self._queries_current.get(query.group) is query

    def _interrupt(self, query: PendingQuery[Any]) -> None:
        with self._queries_lock:
            targets = list(query.targets)
        for target in targets:
            # One that just finished may be closed already: nothing left to stop.
            with contextlib.suppress(duckdb.Error, RuntimeError):
                target.interrupt()

    # -- the UI thread ------------------------------------------------------------------

    @on(QueryDone)
    def _query_done(self, message: QueryDone) -> None:
        message.stop()
        self._deliver(message.query, message.query.finished.result(), None)

    @on(QueryFailed)
    def _query_failed(self, message: QueryFailed) -> None:
        message.stop()
        self._deliver(message.query, None, message.error)

    def _deliver(self, query: PendingQuery[Any], result: Any, error: Exception | None) -> None:
        with self._queries_lock:
            if query.delivered or not self._wanted(query):
                return  # replaced meanwhile, or already delivered by deliver_if_finished
            query.delivered = True
        if error is None:
            query.done(result)
        elif query.failed is not None:
            query.failed(error)
        else:
            self.notify(f"Could not read the results: {error}", severity="error")

    # -- layout -------------------------------------------------------------------------

    @on(events.Resize)
    def _lay_out_at_the_terminal_size(self, event: events.Resize) -> None:
        """A screen fills the terminal: lay it out at the terminal's size, whatever size
        the Resize it is handed says.

        Textual merges the Resize events queued for a screen into the last one queued, and
        that may be the screen's own, posted by a layout at an older size while the
        terminal's newer one waited behind it (a terminal resized in steps, a screen busy
        re-wrapping): the screen then kept that older width until the next resize, its
        prompt lines cut and its tables' columns missing."""
        size = self.app.size
        if event.size != size and not self.app.is_inline:
            event.prevent_default()  # no layout at the stale size
            self.post_message(events.Resize(size, size))

    @on(events.Unmount)
    async def _stop_queries(self) -> None:
        with self._queries_lock:
            self._queries_closing = True
            running = list(self._queries_running)
            for query in self._queries_current.values():
                self._forget_unstarted(query)
        for query in running:
            self._interrupt(query)
        deadline = time.monotonic() + DRAIN_S
        while self._queries_running and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
