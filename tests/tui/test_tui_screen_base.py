"""The screen base (tui/screens/base.py): `run_query` on a real results file, with a
DuckDB query that runs until it is interrupted (a cross join of two big ranges).

A newer query of the same group interrupts the one it replaces, whose answer never
arrives; unmounting the screen interrupts its running query; an error arrives on the
screen as an error (a callback or a notification), and the app keeps running.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
from textual.app import ComposeResult
from textual.pilot import Pilot
from textual.widgets import Static

from lctui.store.db import Store
from lctui.tui.app import LctuiApp
from lctui.tui.screens.base import LctuiHost, LctuiScreen, PendingQuery
from lctui.tui.screens.launch import LaunchScreen

MakeApp = Callable[..., LctuiApp]
LONG_QUERY = "SELECT count(*) FROM range(100000000) AS a, range(100000000) AS b"
WAIT_S = 30.0  # a generous bound for a loaded machine; no assertion is about time


def one_value(store: Store, sql: str) -> Any:
    cur = store.cursor()
    try:
        row = cur.execute(sql).fetchone()
    finally:
        cur.close()
    return None if row is None else row[0]


class ProbeScreen(LctuiScreen):
    """A screen that records what its queries deliver."""

    def __init__(self) -> None:
        super().__init__()
        self.answers: list[tuple[str, object]] = []
        self.errors: list[tuple[str, Exception]] = []

    def compose(self) -> ComposeResult:
        yield Static("probe")

    def ask(self, name: str, sql: str, *, with_failed: bool = True) -> PendingQuery[Any]:
        return self.run_query(
            one_value,
            sql,
            group="probe",
            done=lambda value: self.answers.append((name, value)),
            failed=(lambda error: self.errors.append((name, error))) if with_failed else None,
        )


async def until(pilot: Pilot[Any], check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await pilot.pause(0.02)


async def open_probe(pilot: Pilot[Any]) -> ProbeScreen:
    screen = ProbeScreen()
    await pilot.app.push_screen(screen)
    await pilot.pause()
    return screen


async def started(pilot: Pilot[Any], query: PendingQuery[Any]) -> None:
    """Wait until the query's cursor is registered, then a little for it to be busy."""
    await until(pilot, lambda: bool(query.targets), "the query's cursor")
    await asyncio.sleep(0.2)


def test_the_app_is_what_screens_take_it_for() -> None:
    # mypy checks this assignment: LctuiApp has every member of LctuiHost.
    host: type[LctuiHost] = LctuiApp
    assert host is LctuiApp


async def test_a_replaced_query_is_interrupted_and_its_answer_never_arrives(
    make_app: MakeApp,
) -> None:
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_probe(pilot)
        first = screen.ask("long", LONG_QUERY)
        await started(pilot, first)
        second = screen.ask("short", "SELECT count(*) FROM generations")
        await until(pilot, lambda: bool(screen.answers), "the newer query's answer")
        await until(pilot, first.finished.done, "the replaced query to end")
        assert isinstance(first.finished.exception(), duckdb.InterruptException)
        await pilot.pause()
        assert screen.answers == [("short", second.finished.result())]
        assert second.finished.result() > 0
        assert screen.errors == []  # the interrupted query's error is dropped too
        assert not first.delivered


async def test_unmounting_the_screen_interrupts_its_running_query(make_app: MakeApp) -> None:
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_probe(pilot)
        query = screen.ask("long", LONG_QUERY)
        await started(pilot, query)
        await pilot.app.pop_screen()
        await until(pilot, query.finished.done, "the query to end")
        assert isinstance(query.finished.exception(), duckdb.InterruptException)
        assert screen.closing
        assert screen.answers == [] and screen.errors == []
        # A closed screen starts no query.
        late = screen.ask("late", "SELECT 1")
        assert late.finished.cancelled()


async def test_an_error_arrives_on_the_screen_and_the_app_goes_on(make_app: MakeApp) -> None:
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_probe(pilot)
        screen.ask("bad", "SELECT * FROM no_such_table")
        await until(pilot, lambda: bool(screen.errors), "the error")
        [(name, error)] = screen.errors
        assert name == "bad" and isinstance(error, duckdb.CatalogException)
        # Without a `failed` callback the error is notified as one.
        screen.ask("bad again", "SELECT * FROM no_such_table", with_failed=False)
        await until(pilot, lambda: bool(pilot.app._notifications), "the notification")
        [note] = list(pilot.app._notifications)
        assert note.severity == "error" and "no_such_table" in note.message
        # The screen still answers.
        screen.ask("good", "SELECT 41 + 1")
        await until(pilot, lambda: bool(screen.answers), "the answer")
        assert screen.answers == [("good", 42)]
        assert pilot.app.is_running and pilot.app.screen is screen


async def test_a_failing_timings_read_leaves_the_launch_screen_open(
    make_app: MakeApp, results_db: Path
) -> None:
    # A damaged file: its runs' command column is gone (an up-to-date file is not
    # migrated, so it stays gone). The launch screen's timings read then fails for real;
    # it used to run in a worker that stopped the app on error.
    con = duckdb.connect(str(results_db))
    con.execute("ALTER TABLE runs RENAME COLUMN command TO command_gone")
    con.close()
    async with make_app().run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+n")
        await until(pilot, lambda: isinstance(pilot.app.screen, LaunchScreen), "the launch")
        screen = pilot.app.screen
        assert isinstance(screen, LaunchScreen)
        await until(
            pilot,
            # Started on mount; a worker leaves the list once it has ended.
            lambda: not any(w.group == "costs" for w in pilot.app.workers),
            "the timings read",
        )
        await pilot.pause(0.2)
        assert pilot.app.is_running and pilot.app.return_code is None
        assert screen.costs == {}  # before `is`, which widens `screen` to Screen
        assert pilot.app.screen is screen
