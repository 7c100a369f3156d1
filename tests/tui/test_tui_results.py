"""The results screen: the model x task x length heatmap, its cursor and drill-down to a
cell's examples with filters, errors shown as errors, the depth view, reload and the
empty database; plus SVG snapshots at 80x24 and 120x40."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from helpers.pilot import settle_each_worker as settle
from helpers.results_screen import screen_of as results_screen
from helpers.results_screen import status_line
from lctui.core.types import Generation, GenerationStatus, Score, ScoreStatus
from lctui.scoring import error_score
from lctui.tui.app import LctuiApp
from lctui.tui.screens import results as results_module
from lctui.tui.state.heatmap_data import CellKey
from lctui.tui.widgets.examples_table import ExamplesTable
from lctui.tui.widgets.heatmap import Heatmap

MakeApp = Callable[..., LctuiApp]


def cell_text(app: LctuiApp, model: str, task: str, length: int) -> str:
    grid = results_screen(app).grid
    assert grid is not None
    found = grid.find(CellKey(model, task, length))
    assert found is not None, f"no cell {model} {task} {length}"
    return grid.grid.cells[found].text


def example_id(app: LctuiApp, task: str, length: int, idx: int = 0) -> str:
    row = (
        app.store.cursor()
        .execute(
            "SELECT example_id FROM examples WHERE task = ? AND length = ? AND idx = ?",
            [task, length, idx],
        )
        .fetchone()
    )
    assert row is not None
    return str(row[0])


def add_result(
    app: LctuiApp,
    generation_id: str,
    example: str,
    score: Score,
    *,
    model_id: str = "gold",
    output: str = "",
) -> None:
    """Store one more generation of `example` (its own gen_key) with `score`."""
    failed = score.status is ScoreStatus.ERROR
    generation = Generation(
        generation_id=generation_id,
        gen_key=f"key-{generation_id}",
        run_id="test-run",
        model_id=model_id,
        example_id=example,
        config_hash="test",
        status=GenerationStatus.ERROR if failed else GenerationStatus.OK,
        output=output,
        prompt_tokens=100,
        output_tokens=0 if failed else 3,
        ttft_s=None,
        latency_s=0.1,
        finish_reason=None if failed else "stop",
        error="boom" if failed else None,
        started_at=time.time(),
    )
    with app.store.writing():  # the idle app lends its file: it takes it back to write
        app.store.add_generation(generation, {})
        app.store.add_score(generation_id, score)
        app.store.flush(force=True)


def gold_model_id(app: LctuiApp) -> str:
    row = app.store.cursor().execute("SELECT model_id FROM models WHERE name = 'gold'").fetchone()
    assert row is not None
    return str(row[0])


def scored(value: float, status: ScoreStatus = ScoreStatus.OK) -> Score:
    return Score("test", "string_match_all", value, status, (), "test score")


async def test_heatmap_shows_three_tasks_by_two_lengths_with_gold_at_one(
    make_app: MakeApp,
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        grid = results_screen(app).grid
        assert grid is not None
        assert grid.grid.columns == ("1k", "2k")
        assert [row.label for row in grid.grid.rows] == ["json_kv", "niah_single_1", "vt"]
        assert {row.group for row in grid.grid.rows} == {"gold (reference)"}
        assert len(grid.grid.cells) == 6
        assert {cell.text for cell in grid.grid.cells.values()} == {"1.00"}
        assert app.focused is app.screen.query_one(Heatmap)
        status = status_line(app)
        assert "gold · json_kv · 1k" in status
        assert "mean 1.00" in status and "2 scored" in status
        assert "0 unparsed" in status and "0 errors" in status


async def test_cursor_moves_and_enter_lists_the_cells_examples(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app()
    opened: list[str] = []
    monkeypatch.setattr(app, "open_generation", opened.append)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("down", "right")
        assert "gold · niah_single_1 · 2k" in status_line(app)
        await pilot.press("enter")
        await settle(pilot)
        screen = results_screen(app)
        assert screen.open_cell == CellKey("gold", "niah_single_1", 2048)
        table = screen.query_one(ExamplesTable)
        assert table.display and app.focused is table
        assert table.row_count == 2
        assert [str(table.get_row_at(i)[2]) for i in range(2)] == ["ok", "ok"]
        # Enter on a row opens that generation in the inspector.
        await pilot.press("down", "enter")
        await pilot.pause()
        row = (
            app.store.cursor()
            .execute("SELECT task, length, idx FROM results WHERE generation_id = ?", [opened[0]])
            .fetchone()
        )
        assert len(opened) == 1 and row == ("niah_single_1", 2048, 1)
        # Escape closes the list and gives the keys back to the heatmap.
        await pilot.press("escape")
        assert screen.open_cell is None and not table.display
        assert app.focused is screen.query_one(Heatmap)


async def test_filters_change_the_listed_examples(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        gold = gold_model_id(app)
        vt_2k = example_id(app, "vt", 2048)
        add_result(app, "t-wrong", vt_2k, scored(0.5), model_id=gold, output="half right")
        add_result(
            app, "t-unparsed", vt_2k, scored(0.0, ScoreStatus.UNPARSED), model_id=gold, output="?"
        )
        add_result(app, "t-error", vt_2k, error_score("boom"), model_id=gold)
        await pilot.press("R")
        await settle(pilot)
        await pilot.press("down", "down", "right", "enter")
        await settle(pilot)
        screen = results_screen(app)
        assert screen.open_cell == CellKey("gold", "vt", 2048)
        table = screen.query_one(ExamplesTable)

        async def rows_after(key: str) -> list[str]:
            await pilot.press(key)
            await settle(pilot)
            return sorted(str(table.get_row_at(i)[2]) for i in range(table.row_count))

        assert await rows_after("f") == ["ok", "unparsed"]
        assert "failures" in str(table.border_title)
        assert await rows_after("u") == ["unparsed"]
        assert await rows_after("x") == ["error"]
        outputs = [str(table.get_row_at(i)[4]) for i in range(table.row_count)]
        assert outputs == ["error: boom"]
        assert await rows_after("a") == ["error", "ok", "ok", "ok", "unparsed"]
        # 0.5 + 1 + 1 + 0 (unparsed) over 4 scored; the error is counted apart.
        assert cell_text(app, "gold", "vt", 2048) == "0.62 1err"


async def test_an_error_is_shown_as_an_error_not_a_zero(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        vt_2k = example_id(app, "vt", 2048)
        add_result(app, "t-gold-error", vt_2k, error_score("boom"), model_id=gold_model_id(app))
        add_result(app, "t-broken", vt_2k, error_score("boom"), model_id="broken-endpoint")
        await pilot.press("ctrl+l")
        await settle(pilot)
        assert cell_text(app, "gold", "vt", 2048) == "1.00 1err"
        assert cell_text(app, "gold", "vt", 1024) == "1.00"
        grid = results_screen(app).grid
        assert grid is not None
        position = grid.find(CellKey("broken-endpoint", "vt", 2048))
        assert position is not None
        cell = grid.grid.cells[position]
        assert cell.text == "1err" and cell.value is None and cell.alert
        # Models under evaluation come before the reference model.
        assert grid.grid.rows[0].group == "broken-endpoint"
        assert grid.grid.rows[1].group == "gold (reference)"
        # The cursor stayed on its cell (gold · json_kv · 1k), now one row down.
        assert results_screen(app).query_one(Heatmap).cursor == (1, 0)
        await pilot.press("up", "right")
        status = status_line(app)
        assert "broken-endpoint · vt · 2k" in status
        assert "mean —" in status and "0 scored" in status and "1 error" in status


async def test_depth_view_toggles_for_the_selected_needle_task(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("down", "right")  # niah_single_1 at 2k
        await pilot.press("d")
        await settle(pilot)
        screen = results_screen(app)
        grid = screen.grid
        assert grid is not None and grid.is_depth
        # The fixture's four examples (two per length) sit at the depths their seeds drew.
        assert [row.label for row in grid.grid.rows] == ["30 %", "40 %", "60 %"]
        assert grid.grid.columns == ("1k", "2k")
        assert {cell.text for cell in grid.grid.cells.values()} == {"1.00"}
        heatmap = screen.query_one(Heatmap)
        assert "niah_single_1" in str(heatmap.border_title)
        assert heatmap.cursor == (0, 1)  # same length kept
        assert "depth 30 % · 2k" in status_line(app) and "not run" in status_line(app)
        await pilot.press("down")  # 40 %: the example of 2k there
        await settle(pilot)
        assert "depth 40 % · 2k" in status_line(app) and "1 scored" in status_line(app)
        await pilot.press("enter")
        await settle(pilot)
        assert screen.open_cell == CellKey("gold", "niah_single_1", 2048, 40.0)
        assert screen.query_one(ExamplesTable).row_count == 1
        await pilot.press("escape")  # closes the examples
        await pilot.press("d")  # back to the model grid, on the same task and length
        await settle(pilot)
        grid = screen.grid
        assert grid is not None and not grid.is_depth
        assert len(grid.grid.rows) == 3 and heatmap.cursor == (1, 1)


async def test_depth_view_of_a_task_without_depths_says_so(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        with app.store.writing(), contextlib.closing(app.store.cursor()) as cur:
            cur.execute("UPDATE examples SET depth = NULL WHERE task = 'vt'")
        await pilot.press("down", "down", "d")  # vt
        await settle(pilot)
        grid = results_screen(app).grid
        assert grid is not None and not grid.is_depth and len(grid.rows) == 3
        messages = " ".join(str(n.message) for n in app._notifications)
        assert "vt records no needle depth" in messages


async def test_new_rows_appear_without_a_key(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(results_module, "AUTO_REFRESH_S", 0.05)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        json_1k = example_id(app, "json_kv", 1024)
        add_result(app, "t-late", json_1k, scored(0.0), model_id=gold_model_id(app))
        for _ in range(40):
            await pilot.pause(0.05)
            await settle(pilot)
            if cell_text(app, "gold", "json_kv", 1024) != "1.00":
                break
        assert cell_text(app, "gold", "json_kv", 1024) == "0.67"


async def test_empty_database_says_how_to_get_results(make_app: MakeApp, tmp_path: Path) -> None:
    app = make_app(db=tmp_path / "empty.duckdb")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = results_screen(app)
        assert screen.has_class("-empty")
        message = screen.query_one("#results-empty", Static)
        assert message.display and "No results yet: ctrl+n starts a run" in str(message.content)
        assert not screen.query_one(Heatmap).display
        # Keys that need cells are off (and left out of the footer).
        await pilot.press("d", "f", "enter")
        await settle(pilot)
        assert screen.open_cell is None and screen.grid is not None and screen.grid.is_empty


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_snapshot_results_heatmap(
    make_app: MakeApp, snap_compare: Any, size: tuple[int, int]
) -> None:
    async def ready(pilot: Pilot[Any]) -> None:
        pilot.app.theme = "lctui-dark"
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=ready)


def test_snapshot_results_examples_of_a_cell(make_app: MakeApp, snap_compare: Any) -> None:
    async def open_cell(pilot: Pilot[Any]) -> None:
        pilot.app.theme = "lctui-dark"
        await settle(pilot)
        await pilot.press("down", "right", "enter")
        await settle(pilot)
        # The list's scrollbar decides the last column's width: let layout finish.
        await pilot.wait_for_scheduled_animations()
        await pilot.pause(0.2)

    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=open_cell)
