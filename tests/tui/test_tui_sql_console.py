"""The SQL console on a real results file: results against DuckDB's own answer, the
LIMIT guard, errors and refused writes that change nothing, cancellation through
interrupt(), CSV / Parquet export read back, a 100K-row result that scrolls without
converting every row, and history / saved queries that persist."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from pathlib import Path

import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
import pytest
from rich.cells import cell_len
from textual.widgets import Input, OptionList, Static, TabbedContent
from textual.widgets._footer import FooterKey

from helpers.pilot import on_screen, settle
from helpers.sql_console import direct, open_console, run_sql, shown_rows
from lctui.tui.app import LctuiApp
from lctui.tui.screens.sql_console import SqlEditor
from lctui.tui.widgets.arrow_table import ArrowTable
from lctui.tui.widgets.ask import AskScreen

MakeApp = Callable[..., LctuiApp]
LONG_QUERY = "SELECT count(*) FROM range(100000000) AS a, range(100000000) AS b"


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv("LCTUI_DATA_DIR", str(folder))
    return folder


async def test_a_query_shows_duckdbs_rows_and_the_views_list_their_columns(
    make_app: MakeApp, results_db: Path
) -> None:
    sql = "SELECT model, task, length, count(*) AS n FROM results GROUP BY ALL ORDER BY ALL"
    want = direct(results_db, sql)
    async with make_app().run_test(size=(120, 40)) as pilot:
        screen = await open_console(pilot)
        await run_sql(pilot, screen, sql)
        table = screen.query_one(ArrowTable)
        assert table.table.column_names == ["model", "task", "length", "n"]
        assert shown_rows(table) == [[str(v) for v in row] for row in want]
        assert screen.status.startswith(f"{len(want)} rows, 4 columns")
        views = screen.query_one("#sql-views", OptionList)
        names = [str(views.get_option_at_index(i).prompt) for i in range(views.option_count)]
        assert names[:4] == ["results", "results_core", "rubric", "judge_scores"]
        assert {"run_model_stats", "judge_stats", "lifeval_ars"} <= set(names)
        columns = str(screen.query_one("#sql-columns", Static).render())
        assert "results:" in columns and "score  double" in columns
        # Enter on a view puts a query over it into the editor.
        views.focus()
        views.highlighted = names.index("rubric")
        await pilot.press("enter")
        assert screen.query_one(SqlEditor).text == "SELECT * FROM rubric"


async def test_limit_guard_says_more_than_the_limit(make_app: MakeApp) -> None:
    async with make_app().run_test(size=(120, 40)) as pilot:
        screen = await open_console(pilot)
        await run_sql(pilot, screen, "SELECT * FROM range(501)")
        assert screen.status.startswith("500 of more than 500 rows")
        assert screen.query_one(ArrowTable).row_count == 500
        await run_sql(pilot, screen, "SELECT * FROM range(500)")
        assert screen.status.startswith("500 rows")
        limit = screen.query_one("#sql-limit", Input)
        limit.value = "1000"
        await run_sql(pilot, screen, "SELECT * FROM range(501)")
        assert screen.status.startswith("501 rows")


async def test_an_invalid_query_shows_duckdbs_error_and_clears_the_last_result(
    make_app: MakeApp,
) -> None:
    async with make_app().run_test(size=(120, 40)) as pilot:
        screen = await open_console(pilot)
        await run_sql(pilot, screen, "SELECT 42 AS answer")
        assert screen.status.startswith("1 row, 1 column in ")  # never "1 rows"
        await run_sql(pilot, screen, "SELEC 1")
        assert "Parser Error" in screen.status and "SELEC" in screen.status
        status = screen.query_one("#sql-status", Static)
        assert status.has_class("-error")
        # The rows of the query before are not this one's: none are shown, none exported.
        table = screen.query_one(ArrowTable)
        assert table.row_count == 0 and not table.display
        assert "f2 Export" not in {
            f"{k.key_display} {k.description}" for k in screen.query(FooterKey)
        }
        await run_sql(pilot, screen, "SELECT * FROM no_such_table")
        assert "no_such_table" in screen.status and "does not exist" in screen.status
        await run_sql(pilot, screen, "SELECT 42 AS answer")
        assert shown_rows(table) == [["42"]] and table.display and not status.has_class("-error")


async def test_a_refusal_shows_whole_at_80_columns_in_place_of_the_last_result(
    make_app: MakeApp,
) -> None:
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_console(pilot)
        await run_sql(pilot, screen, "SELECT * FROM range(30)")
        await run_sql(pilot, screen, "SELECT * FROM read_csv('/etc/passwd')")
        refusal = screen.status
        assert refusal.startswith("refused") and refusal.endswith("by configuration)")
        shown = on_screen(pilot.app, screen.query_one("#sql-status", Static))
        assert len([line for line in shown if line.strip()]) > 5  # more than the old cut
        assert " ".join(" ".join(shown).split()) == refusal  # every word, in order
        assert not any(line.strip().isdigit() for line in on_screen(pilot.app, screen))


@pytest.mark.parametrize("read_only", [False, True])
async def test_writes_are_refused_and_change_nothing(
    make_app: MakeApp, results_db: Path, read_only: bool
) -> None:
    before = direct(results_db, "SELECT count(*) FROM generations")
    async with make_app(read_only=read_only).run_test(size=(120, 40)) as pilot:
        screen = await open_console(pilot)
        assert "read-only" in screen.status  # whichever way the app opened the file
        for sql in ("CREATE TABLE sneaky AS SELECT 1 AS x", "DELETE FROM generations"):
            await run_sql(pilot, screen, sql)
            assert f"read-only): {sql.split()[0]} does not only read" in screen.status
    assert direct(results_db, "SELECT count(*) FROM generations") == before
    tables = direct(results_db, "SELECT table_name FROM information_schema.tables")
    assert ("sneaky",) not in tables


async def test_escape_interrupts_a_long_query_and_the_console_stays_usable(
    make_app: MakeApp,
) -> None:
    async with make_app().run_test(size=(120, 40)) as pilot:
        screen = await open_console(pilot)
        screen.query_one(SqlEditor).text = LONG_QUERY
        await pilot.press("f5")
        deadline = time.monotonic() + 10
        while not screen.query_running and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert screen.query_running and screen.status.startswith("Running")
        await asyncio.sleep(0.3)
        started = time.monotonic()
        await pilot.press("escape")
        await settle(pilot)
        assert time.monotonic() - started < 10
        assert not screen.query_running
        assert "cancelled" in screen.status
        assert pilot.app.screen is screen  # escape cancelled; it did not leave the screen
        await run_sql(pilot, screen, "SELECT 1 AS one")
        assert shown_rows(screen.query_one(ArrowTable)) == [["1"]]
        await pilot.press("escape")  # nothing runs now: escape goes back
        assert pilot.app.screen is not screen


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
async def test_export_writes_the_result_and_it_reads_back(
    make_app: MakeApp, tmp_path: Path, suffix: str
) -> None:
    sql = "SELECT model, task, length, score FROM results ORDER BY generation_id"
    target = tmp_path / "out" / f"result{suffix}"
    async with make_app().run_test(size=(120, 40)) as pilot:
        screen = await open_console(pilot)
        await run_sql(pilot, screen, sql)
        shown = screen.query_one(ArrowTable).table
        await pilot.press("f2")
        await pilot.pause()
        ask = pilot.app.screen
        assert isinstance(ask, AskScreen)
        ask.query_one(Input).value = str(target)
        await pilot.press("enter")
        await settle(pilot)
        assert screen.last_export == target and str(target) in screen.status
    back = pa_csv.read_csv(target) if suffix == ".csv" else pq.read_table(target)
    assert back.column_names == shown.column_names
    assert back.num_rows == shown.num_rows > 0
    assert back.column("score").to_pylist() == shown.column("score").to_pylist()
    assert back.column("task").to_pylist() == shown.column("task").to_pylist()


async def test_a_100k_row_result_scrolls_to_the_end_formatting_only_visible_rows(
    make_app: MakeApp,
) -> None:
    async with make_app().run_test(size=(120, 40)) as pilot:
        screen = await open_console(pilot)
        screen.query_one("#sql-limit", Input).value = "200000"
        started = time.monotonic()
        await run_sql(
            pilot, screen, "SELECT range AS i, 'row ' || range AS label FROM range(100000)"
        )
        table = screen.query_one(ArrowTable)
        assert table.row_count == 100_000 and screen.status.startswith("100,000 rows")
        table.focus()
        await pilot.press("end")
        await pilot.pause()
        assert table.cursor_row == 99_999
        assert time.monotonic() - started < 10
        height = table.scrollable_content_region.height
        bottom = "".join(s.text for s in table.render_line(height - 1))
        assert "99999" in bottom and "row 99999" in bottom
        assert table.rows_converted < 2_000  # a few blocks, never all 100K rows


async def test_wide_characters_keep_the_columns_aligned(make_app: MakeApp) -> None:
    """A CJK value takes two terminal cells a character: its column is sized and cut in
    cells (with the one ellipsis), so the next column starts at the same cell on every
    line."""
    wide = "漢字" * 30  # 60 characters, 120 cells: wider than a column may be
    sql = f"SELECT '{wide}' AS word, 'x' AS next UNION ALL SELECT 'かな', 'y' ORDER BY next"
    async with make_app().run_test(size=(200, 40)) as pilot:
        screen = await open_console(pilot)
        await run_sql(pilot, screen, sql)
        table = screen.query_one(ArrowTable)
        lines = ["".join(s.text for s in table.render_line(y)) for y in range(3)]
        starts = [
            cell_len(line[: line.index(mark)]) for line, mark in zip(lines, "nxy", strict=True)
        ]
        assert len(set(starts)) == 1, lines
        assert "漢字漢字" in lines[1] and "…" in lines[1]  # cut, and the cut is marked
        assert cell_len(lines[1][: lines[1].index("…")]) < starts[0]


async def test_history_and_saved_queries_persist(make_app: MakeApp, data_dir: Path) -> None:
    async with make_app().run_test(size=(120, 40)) as pilot:
        screen = await open_console(pilot)
        await run_sql(pilot, screen, "SELECT 1 AS first")
        await run_sql(pilot, screen, "SELECT 2 AS second")
        editor = screen.query_one(SqlEditor)
        editor.text = ""
        await pilot.press("up")
        assert editor.text == "SELECT 2 AS second"
        await pilot.press("up")
        assert editor.text == "SELECT 1 AS first"
        await pilot.press("down")
        assert editor.text == "SELECT 2 AS second"
        await pilot.press("ctrl+s")
        await pilot.pause()
        ask = pilot.app.screen
        assert isinstance(ask, AskScreen)
        ask.query_one(Input).value = "two"
        await pilot.press("enter")
        await pilot.pause()
    history = json.loads((data_dir / "sql_history.json").read_text())
    assert history == ["SELECT 1 AS first", "SELECT 2 AS second"]
    assert json.loads((data_dir / "sql_saved.json").read_text()) == {"two": "SELECT 2 AS second"}
    async with make_app().run_test(size=(120, 40)) as pilot:
        screen = await open_console(pilot)
        saved = screen.query_one("#sql-saved", OptionList)
        assert saved.option_count == 1
        screen.query_one("#sql-side", TabbedContent).active = "tab-saved"
        saved.focus()
        saved.highlighted = 0
        await pilot.press("enter")
        assert screen.query_one(SqlEditor).text == "SELECT 2 AS second"
        history_list = screen.query_one("#sql-history", OptionList)
        assert history_list.option_count == 2
