"""Plots in the terminal (textual-plotext): the length view plots the highlighted row's
task with a line per model from `analysis.curves`, the correlation scatter plots every
model's two scores with the legend of their markers, the character drawings stay
where only 256 colours show (the lctui-256 theme), and `p` switches. Snapshots at
80x24 and 120x40: the sample runs of the embedded model (real, shipped with lctui)
and LIFBench's published scores (20 models); the synthetic-vs-downstream tab on five
models with HELMET's categories (tests/helpers/helmet_runs.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Static
from textual_plotext import PlotextPlot

from helpers.helmet_runs import write_helmet_run
from helpers.pilot import rendered, settle
from lctui.analysis.correlation import synthetic_vs_downstream
from lctui.analysis.curves import length_curves
from lctui.store import open_store
from lctui.tui.app import LctuiApp
from lctui.tui.screens.correlation import CorrelationScreen, ScatterScreen
from lctui.tui.screens.curves import CurvesScreen
from lctui.tui.themes import SAFE_THEME
from lctui.tui.widgets.plots import LengthPlot, ScatterPlot, ScatterView
from lctui.tui.widgets.scatter import Scatter, marker

MakeApp = Callable[..., LctuiApp]
SIZES = [(80, 24), (120, 40)]
SIZE_IDS = ["80x24", "120x40"]


def sample_app(make_app: MakeApp, tmp_path: Path) -> LctuiApp:
    """The app on an empty file, which it fills with the sample runs on first open."""
    return make_app(tmp_path / "samples.duckdb", import_samples=True)


async def open_curves(pilot: Pilot[Any], theme: str = "lctui-dark") -> CurvesScreen:
    pilot.app.theme = theme
    await settle(pilot)
    await pilot.press("V")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, CurvesScreen) and screen.data is not None
    return screen


async def highlight_row(pilot: Pilot[Any], row: int) -> None:
    await pilot.press("tab", *["down"] * row)  # the tab bar, then the table
    await settle(pilot)


def most_varied(screen: CurvesScreen) -> tuple[int, str]:
    """(row, task) of the table's task whose curve takes the most distinct values (the
    sample runs' recorded scores decide which; the first such row)."""
    with open_store(screen.lctui.db_path, read_only=True) as store:
        curves = length_curves(store)
    spread = {c.task: len({p.mean for p in c.points}) for c in curves}
    table = screen.query_one("#curves-table", DataTable)
    tasks = [str(table.get_row_at(row)[1]) for row in range(table.row_count)]
    row = max(range(len(tasks)), key=lambda r: (spread.get(tasks[r], 0), -r))
    return row, tasks[row]


async def test_the_plot_draws_the_highlighted_task_as_the_analysis_computes(
    make_app: MakeApp, tmp_path: Path
) -> None:
    async with sample_app(make_app, tmp_path).run_test(size=(120, 40)) as pilot:
        screen = await open_curves(pilot)
        with open_store(screen.lctui.db_path, read_only=True) as store:
            want = {c.task: c for c in length_curves(store)}
        plot = screen.query_one(LengthPlot)
        assert plot.display and plot.shown_task == "cwe"  # the first row's
        row, task = most_varied(screen)
        await highlight_row(pilot, row)
        table = screen.query_one("#curves-table", DataTable)
        assert str(table.get_row_at(table.cursor_row)[1]) == task != "cwe"
        assert plot.shown_task == task
        (line,) = plot.lines
        curve = want[task]
        assert line.label == curve.model == "smollm2-135m"
        assert line.points == tuple((p.length, p.mean) for p in curve.points)
        assert len({m for _, m in line.points}) > 1  # a curve, not a flat line
        assert f"{task}: mean score by length" in str(plot.border_title)
        drawn = "\n".join(rendered(plot.query_one(PlotextPlot)))
        assert all(tick in drawn for tick in ("1k", "2k", "4k", "8k"))
        assert "smollm2-135m" in "".join(rendered(plot.query_one(".legend", Static)))


async def test_256_colours_keep_the_character_drawing_and_p_switches(
    make_app: MakeApp, tmp_path: Path
) -> None:
    async with sample_app(make_app, tmp_path).run_test(size=(80, 24)) as pilot:
        screen = await open_curves(pilot, SAFE_THEME)
        plot = screen.query_one(LengthPlot)
        table = screen.query_one("#curves-table", DataTable)
        assert not plot.display and table.size.height > 12  # the table, sparklines and all
        await pilot.press("p")
        await settle(pilot)
        assert plot.display and plot.size.height > table.size.height
        await pilot.press("p")
        await settle(pilot)
        assert not plot.display


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_snapshot_length_plot(
    make_app: MakeApp, tmp_path: Path, snap_compare: Any, size: tuple[int, int]
) -> None:
    async def plotted(pilot: Pilot[Any]) -> None:
        screen = await open_curves(pilot)
        await highlight_row(pilot, most_varied(screen)[0])
        pilot.app.clear_notifications()  # "Sample runs": when it fades is no part of this
        await pilot.pause(0.2)

    assert snap_compare(sample_app(make_app, tmp_path), terminal_size=size, run_before=plotted)


async def open_scatter(pilot: Pilot[Any], theme: str = "lctui-dark") -> ScatterScreen:
    """The scatter behind the matrix's third cell of its second row."""
    pilot.app.theme = theme
    await settle(pilot)
    await pilot.press("S")
    await settle(pilot)
    assert isinstance(pilot.app.screen, CorrelationScreen)
    await pilot.press("down", "right", "right", "enter")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ScatterScreen)
    return screen


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_snapshot_scatter_plot(
    make_app: MakeApp, published_db: Path, snap_compare: Any, size: tuple[int, int]
) -> None:
    async def plotted(pilot: Pilot[Any]) -> None:
        await open_scatter(pilot)
        await pilot.pause(0.2)

    assert snap_compare(make_app(published_db), terminal_size=size, run_before=plotted)


def five_models(tmp_path: Path) -> Path:
    """Five models with a synthetic score (json_kv) and two downstream ones."""
    db = tmp_path / "five.duckdb"
    with open_store(db) as store:
        for i in range(5):
            scores = {
                ("json_kv", 8192): [0.1 * (i + 1)],
                ("kilt_nq", 8192): [0.9 - 0.1 * i],
                ("msmarco_rerank", 8192): [0.2 + 0.1 * (i % 3)],
            }
            write_helmet_run(store, f"model-{i}", scores)
        store.flush(force=True)
    return db


async def test_the_synthetic_tab_plots_or_draws_the_same_points(
    make_app: MakeApp, tmp_path: Path
) -> None:
    db = five_models(tmp_path)
    with open_store(db, read_only=True) as store:
        want = synthetic_vs_downstream(store)
    assert len(want.points) == 5
    async with make_app(db).run_test(size=(80, 24)) as pilot:
        pilot.app.theme = SAFE_THEME
        await settle(pilot)
        await pilot.press("S")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, CorrelationScreen)
        await pilot.press("2")
        await settle(pilot)
        view = screen.query_one("#synthetic-scatter", ScatterView)
        scatter, plot = view.query_one(Scatter), view.query_one(ScatterPlot)
        points = [(p.model, p.x, p.y) for p in want.points]
        assert [(p.label, p.x, p.y) for p in scatter.points] == points
        assert [(p.label, p.x, p.y) for p in plot.points] == points
        assert scatter.display and not plot.display  # 256 colours: characters
        await pilot.press("p")
        await settle(pilot)
        assert plot.display and not scatter.display
        legend = rendered(plot.query_one(".legend", Static))
        assert [line.split()[:2] for line in legend[:5]] == [
            [marker(i), p.model] for i, p in enumerate(want.points)
        ]
