"""The SQL console can neither change the results nor reach outside them (issues 15
and 17): every attack of tests/sql_attacks.py is refused with its reason on a
read-write app, the file stays byte for byte as it was, and nothing is written,
fetched or shown; reading (views, CTEs, windows, EXPLAIN, DESCRIBE...) still works.

The app holds its file only while a query or a write runs, so `lctui query` from
another process reads it while the TUI is open, and a run goes on, and is stored,
while the console queries."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from helpers.pilot import until
from helpers.slow_run import start_slow_run
from helpers.sql_attacks import ATTACK_PARAMS, READ_PARAMS, Attack, Witness, isolated_home
from helpers.sql_console import direct, open_console, run_sql, shown_rows
from lctui.core.text import plural
from lctui.tui.app import LctuiApp
from lctui.tui.screens.sql_console import SqlConsoleScreen, SqlEditor
from lctui.tui.widgets.arrow_table import ArrowTable

MakeApp = Callable[..., LctuiApp]


def _shown(screen: SqlConsoleScreen) -> str:
    """Everything the console shows of a query: its status line and result rows."""
    table = screen.query_one(ArrowTable)
    return screen.status + "\n" + "\n".join(" ".join(row) for row in shown_rows(table))


@pytest.mark.parametrize("attack", ATTACK_PARAMS)
async def test_the_console_refuses_each_attack_and_nothing_changes(
    make_app: MakeApp,
    results_db: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    attack: Attack,
) -> None:
    witness = Witness(results_db, tmp_path)
    isolated_home(monkeypatch, witness)
    try:
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            assert not app.read_only  # the app could write: only the console may not
            screen = await open_console(pilot)
            await run_sql(pilot, screen, "SELECT 42 AS answer")
            await run_sql(pilot, screen, witness.sql(attack))
            status, shown = screen.status, _shown(screen)
            rows = shown_rows(screen.query_one(ArrowTable))
        witness.assert_nothing_happened(shown)  # first: what matters most
    finally:
        witness.close()
    assert attack.refusal in status, status
    if attack.refusal != "invalid SQL":  # DuckDB's parser errors point at the place
        assert status.startswith("refused (queries here are read-only): ")
        assert "\n" not in status
    assert rows == []  # none of the query before's rows are left under the refusal


@pytest.mark.parametrize(("sql", "column"), READ_PARAMS)
async def test_reading_features_still_work_in_the_console(
    make_app: MakeApp, results_db: Path, tmp_path: Path, sql: str, column: str
) -> None:
    witness = Witness(results_db, tmp_path)
    try:
        async with make_app().run_test(size=(120, 40)) as pilot:
            screen = await open_console(pilot)
            await run_sql(pilot, screen, sql)
            table = screen.query_one(ArrowTable).table
            assert column in table.column_names, screen.status
            assert table.num_rows > 0
            assert screen.status.startswith(f"{plural(table.num_rows, 'row')}, ")
        witness.assert_nothing_happened("")
    finally:
        witness.close()


async def test_lctui_query_reads_the_file_while_the_tui_has_it_open(
    make_app: MakeApp, results_db: Path
) -> None:
    command = [sys.executable, "-m", "lctui", "query", "--db", str(results_db), "--format"]
    sql = "SELECT count(*) AS n FROM generations"
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.5)
        assert not app.read_only
        # In a thread, so that the app keeps running (and polling its file) meanwhile.
        done = await asyncio.to_thread(
            subprocess.run, [*command, "json", sql], capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == [{"n": 12}]
        screen = await open_console(pilot)  # and the app's own console still works
        await run_sql(pilot, screen, sql)
        assert shown_rows(screen.query_one(ArrowTable)) == [["12"]]


async def _query_while_running(pilot: Pilot[Any], screen: SqlConsoleScreen, sql: str) -> None:
    """run_sql, but waiting on the console's status: the run keeps the app busy."""
    screen.query_one(SqlEditor).text = sql
    screen.action_run()
    await until(pilot, lambda: not screen.status.startswith("Running"))


async def test_a_run_goes_on_and_is_stored_while_the_console_queries(
    make_app: MakeApp, results_db: Path
) -> None:
    app = make_app()
    counts: list[int] = []
    async with app.run_test(size=(120, 40)) as pilot:
        run = (await start_slow_run(app, pilot, delay=0.1)).run
        app.action_show_sql_console()
        await until(pilot, lambda: isinstance(app.screen, SqlConsoleScreen))
        screen = app.screen
        assert isinstance(screen, SqlConsoleScreen)
        await until(pilot, lambda: screen.status.startswith("Ready"))  # mounted
        while run.running:
            await _query_while_running(pilot, screen, "SELECT count(*) FROM generations")
            assert screen.status.startswith("1 row,"), screen.status
            counts.append(int(shown_rows(screen.query_one(ArrowTable))[0][0]))
        await until(pilot, lambda: run.state.finished is not None)
        assert run.state.done == 8 and run.state.errors == 0, run.state.last_error
    assert direct(results_db, "SELECT count(*) FROM generations") == [(12 + 8,)]
    assert len(set(counts)) >= 2, counts  # the console saw the run's flushes land
