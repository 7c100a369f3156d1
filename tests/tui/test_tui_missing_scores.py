"""Missing scores in the TUI: the heatmap shows a cell without scores as missing (never
0.00) and a mixed cell with its count of missing ones, `s` scores them in a worker, the
examples list and the inspector say "unscored" / "not scored"."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest
from textual.widgets import Static

from helpers.pilot import settle_each_worker as settle
from helpers.results_screen import (
    cell_text,
    notes,
    score_key_offered,
    screen_of,
    status_line,
)
from helpers.unscored_runs import delete_scores, score_count
from lctui.tui.app import LctuiApp
from lctui.tui.screens.inspector import InspectorScreen
from lctui.tui.screens.results import ResultsScreen
from lctui.tui.widgets.examples_table import ExamplesTable
from lctui.tui.widgets.heatmap import Heatmap

MakeApp = Callable[..., LctuiApp]


@pytest.fixture
def unscored_db(results_db: Path) -> Path:
    """The template (gold: json_kv, niah_single_1, vt at 1K and 2K, 2 each) without the
    scores of vt and of one niah_single_1 generation at 1K."""
    delete_scores(results_db, "task = 'vt'")
    delete_scores(
        results_db,
        "generation_id = (SELECT min(generation_id) FROM generations "
        "WHERE task = 'niah_single_1' AND length = 1024)",
    )
    return results_db


async def test_heatmap_shows_missing_scores_as_missing_never_zero(
    make_app: MakeApp, unscored_db: Path
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert cell_text(app, "vt", 1024) == "2miss"  # was 0.00: a missing score is no 0
        assert cell_text(app, "vt", 2048) == "2miss"
        assert cell_text(app, "niah_single_1", 1024) == "1.00 1miss"
        assert cell_text(app, "niah_single_1", 2048) == "1.00"
        assert cell_text(app, "json_kv", 1024) == "1.00"
        grid = screen_of(app).grid
        assert grid is not None and grid.n_unscored == 5
        assert "5 not scored (s)" in str(screen_of(app).query_one(Heatmap).border_subtitle)
        assert "5 results of this grid have no score" in notes(app)
        await pilot.press("down", "down")  # vt at 1K
        line = status_line(app)
        assert "gold · vt · 1k" in line and "mean —" in line and "0 scored" in line
        assert "2 not scored (s scores them)" in line


async def test_s_scores_the_missing_scores_then_the_cells_show_them(
    make_app: MakeApp, unscored_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = score_count(unscored_db)
    shown: list[str] = []
    set_status = ResultsScreen._set_status

    def record(screen: ResultsScreen, text: str) -> None:
        shown.append(text)
        set_status(screen, text)

    monkeypatch.setattr(ResultsScreen, "_set_status", record)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "Score missing" in app.screen.active_bindings["s"].binding.description
        await pilot.press("s")
        await settle(pilot)
        assert cell_text(app, "vt", 1024) == "1.00"
        assert cell_text(app, "vt", 2048) == "1.00"
        assert cell_text(app, "niah_single_1", 1024) == "1.00"
        assert "Scored 5 of 5 generation(s)." in notes(app)
        assert "Scoring the missing scores: 5 of 5…" in shown  # progress, from the worker
        grid = screen_of(app).grid
        assert grid is not None and grid.n_unscored == 0
        assert not score_key_offered(app)  # nothing left to score: key hidden
    assert score_count(unscored_db) == before + 5


async def test_a_read_only_app_does_not_write_scores(make_app: MakeApp, unscored_db: Path) -> None:
    before = score_count(unscored_db)
    app = make_app(read_only=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        assert "Opened read-only: cannot store scores" in notes(app)
        assert cell_text(app, "vt", 1024) == "2miss"
    assert score_count(unscored_db) == before


async def test_examples_and_inspector_say_not_scored(make_app: MakeApp, unscored_db: Path) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("down", "down", "enter")  # vt at 1K: its examples
        await settle(pilot)
        table = app.screen.query_one(ExamplesTable)
        assert table.row_count == 2
        assert [str(table.get_row_at(i)[2]) for i in range(2)] == ["unscored"] * 2
        assert [str(table.get_row_at(i)[3]) for i in range(2)] == ["—"] * 2
        await pilot.press("enter")
        await settle(pilot)
        inspector = app.screen
        assert isinstance(inspector, InspectorScreen)
        assert inspector.query_one("#output-panel").border_title == "Output: not scored"
        status = str(inspector.query_one("#output-status", Static).content)
        assert status.startswith("status not scored")
        summary = str(inspector.query_one("#score-lines", Static).content)
        assert summary.startswith("not scored yet (s scores it)") and "0.00" not in summary


async def test_depth_view_scores_only_its_model_and_task(
    make_app: MakeApp, unscored_db: Path
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("down", "d")  # niah_single_1: depth x length
        await settle(pilot)
        grid = screen_of(app).grid
        assert grid is not None and grid.is_depth and grid.n_unscored == 1
        await pilot.press("s")
        await settle(pilot)
        assert "Scored 1 of 1 generation(s)." in notes(app)
    with duckdb.connect(str(unscored_db), read_only=True) as con:
        left = con.execute(
            "SELECT task, count(*) FROM results WHERE status = 'unscored' GROUP BY 1"
        )
        assert left.fetchall() == [("vt", 4)]
