"""Driving the SQL console screen, and reading a database directly to check it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
from textual.pilot import Pilot

from helpers.pilot import settle
from lctui.tui.screens.sql_console import SqlConsoleScreen, SqlEditor
from lctui.tui.widgets.arrow_table import ArrowTable


async def open_console(pilot: Pilot[Any]) -> SqlConsoleScreen:
    await settle(pilot)
    await pilot.press("Q")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, SqlConsoleScreen)
    return screen


async def run_sql(pilot: Pilot[Any], screen: SqlConsoleScreen, sql: str) -> None:
    screen.query_one(SqlEditor).text = sql
    screen.query_one(SqlEditor).focus()
    await pilot.press("f5")
    await settle(pilot)


def shown_rows(table: ArrowTable) -> list[list[str]]:
    return [table.row_text(i) for i in range(table.row_count)]


def direct(db: Path, sql: str) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()
