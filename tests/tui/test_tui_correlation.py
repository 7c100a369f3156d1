"""The correlation screen on LIFBench's published scores (20 models, 11 tasks): the
rho heatmap, p and n of the focused cell and the scatter behind it equal
`analysis.correlation`'s results; a length can be chosen; with too few models the
analysis's message replaces the numbers; a legend of the rho colours, names whole on
numbered rows, and snapshots at 80x24 and 120x40."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static, TabbedContent

from helpers.pilot import rendered, settle
from lctui.analysis.correlation import CorrelationMatrix, correlate, synthetic_vs_downstream
from lctui.core.errors import UserInputError
from lctui.core.formatting import p_value
from lctui.store import open_store
from lctui.tui.app import LctuiApp
from lctui.tui.screens.correlation import (
    RHO_SAMPLES,
    CorrelationScreen,
    ScatterScreen,
    describe,
    rho_text,
)
from lctui.tui.widgets.heat_legend import HeatLegend
from lctui.tui.widgets.heatmap import HeatCell, Heatmap
from lctui.tui.widgets.plots import ScatterPlot
from lctui.tui.widgets.scatter import Scatter, marker

MakeApp = Callable[..., LctuiApp]


def analysis(db: Path, length: int | None = None, by: str = "task") -> CorrelationMatrix:
    with open_store(db, read_only=True) as store:
        return correlate(store, by=by, length=length)


async def open_correlation(pilot: Pilot[Any]) -> CorrelationScreen:
    await settle(pilot)
    await pilot.press("S")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, CorrelationScreen) and screen.loaded is not None
    return screen


def grid_texts(heatmap: Heatmap) -> list[list[str]]:
    grid = heatmap.grid
    return [
        [grid.cells[(i, j)].text for j in range(len(grid.columns))] for i in range(len(grid.rows))
    ]


async def test_heatmap_shows_the_rho_matrix_with_p_and_n_of_the_focused_cell(
    make_app: MakeApp, published_db: Path
) -> None:
    want = analysis(published_db)
    assert len(want.models) == 20 and len(want.labels) == 11
    async with make_app(published_db).run_test(size=(120, 40)) as pilot:
        pilot.app.theme = "lctui-dark"  # truecolor: plots (TERM may say 256 colours here)
        screen = await open_correlation(pilot)
        heatmap = screen.query_one(Heatmap)
        # Rows named and numbered, columns numbered: 11 columns in 120 cells, not 2.
        assert [r.label for r in heatmap.grid.rows] == [
            f"{i + 1} {label}" for i, label in enumerate(want.labels)
        ]
        assert list(heatmap.grid.columns) == [str(i + 1) for i in range(len(want.labels))]
        assert heatmap.virtual_size.width <= 120
        assert grid_texts(heatmap) == [[rho_text(c.rho) for c in row] for row in want.cells]
        assert "across 20 models by task @ all lengths" in str(
            screen.query_one("#corr-header", Static).render()
        )
        await pilot.press("down", "right", "right")
        cell = str(screen.query_one("#corr-cell", Static).render())
        x, y = want.labels[2], want.labels[1]
        result = want.cell(y, x)
        assert cell == f"{y} / {x}: {describe(result)}"
        assert result.p is not None and f"p {p_value(result.p)}" in cell and "n 20" in cell
        await pilot.press("enter")
        await settle(pilot)
        scatter_screen = pilot.app.screen
        assert isinstance(scatter_screen, ScatterScreen)
        found = want.scatter(x, y)
        # A plotext plot first (a truecolor theme), its legend naming every model's marker.
        plot = scatter_screen.query_one(ScatterPlot)
        assert plot.display and [(p.label, p.x, p.y) for p in plot.points] == [
            (p.model, p.x, p.y) for p in found
        ]
        legend = "\n".join(rendered(plot.query_one(".legend", Static)))
        assert all(f"{marker(i)} {p.model}" in legend for i, p in enumerate(found[:5]))
        # p: the character drawing, with the same points.
        await pilot.press("p")
        await settle(pilot)
        scatter = scatter_screen.query_one(Scatter)
        assert scatter.display and not plot.display
        assert [p.label for p in scatter.points] == [p.model for p in found]
        assert [(p.x, p.y) for p in scatter.points] == [(p.x, p.y) for p in found]
        lines = "\n".join(rendered(scatter))
        for model in want.models[:5]:
            assert model in lines
        await pilot.press("escape")
        assert pilot.app.screen is screen


async def test_choosing_a_length_recomputes_the_matrix(
    make_app: MakeApp, published_db: Path
) -> None:
    with open_store(published_db, read_only=True) as store:
        cur = store.cursor()
        sql = "SELECT DISTINCT length FROM results WHERE NOT reference ORDER BY 1"
        lengths = [int(r[0]) for r in cur.execute(sql).fetchall()]
        cur.close()
    assert len(lengths) > 1
    want = analysis(published_db, length=lengths[0])
    by_category = analysis(published_db, length=lengths[0], by="category")
    async with make_app(published_db).run_test(size=(120, 40)) as pilot:
        screen = await open_correlation(pilot)
        assert screen.lengths == [None, *lengths]
        await pilot.press("n")
        await settle(pilot)
        assert screen.length == lengths[0]
        assert screen.loaded is not None and screen.loaded.length == lengths[0]
        heatmap = screen.query_one(Heatmap)
        assert grid_texts(heatmap) == [[rho_text(c.rho) for c in row] for row in want.cells]
        await pilot.press("t")
        await settle(pilot)
        assert [r.label.split(" ", 1)[1] for r in heatmap.grid.rows] == by_category.labels


async def test_synthetic_tab_says_why_without_a_synthetic_category(
    make_app: MakeApp, published_db: Path
) -> None:
    with open_store(published_db, read_only=True) as store:
        want = synthetic_vs_downstream(store)
    async with make_app(published_db).run_test(size=(120, 40)) as pilot:
        screen = await open_correlation(pilot)
        await pilot.press("2")
        await pilot.pause()
        assert screen.query_one(TabbedContent).active == "synthetic"
        note = str(screen.query_one("#synthetic-note", Static).render())
        assert describe(want.overall) in note
        assert want.overall.reason is not None and "no scores in synthetic" in note


async def test_too_few_models_show_the_analysis_message_instead_of_numbers(
    make_app: MakeApp, results_db: Path
) -> None:
    with open_store(results_db, read_only=True) as store, pytest.raises(UserInputError) as err:
        correlate(store)
    async with make_app().run_test(size=(120, 40)) as pilot:
        screen = await open_correlation(pilot)
        assert screen.has_class("-few")
        message = screen.query_one("#corr-message", Static)
        assert str(message.render()) == str(err.value)
        assert "needs at least 5" in str(err.value)
        assert not screen.query_one(Heatmap).display


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_the_rho_legend_draws_the_scale_as_the_cells_are(
    make_app: MakeApp, published_db: Path, size: tuple[int, int]
) -> None:
    async with make_app(published_db).run_test(size=size) as pilot:
        screen = await open_correlation(pilot)
        heatmap = screen.query_one(Heatmap)
        text = screen.query_one(HeatLegend).render()
        assert text.plain.startswith("rho  -1.00  -0.50  +0.00  +0.50  +1.00 ")
        assert len(text.plain) <= size[0] - 2
        for value, label in RHO_SAMPLES:
            (span,) = [s for s in text.spans if s.start == text.plain.index(f" {label} ")]
            assert span.style == heatmap.cell_style(HeatCell(value, label))
        # Every name whole on its row; the columns are numbers, all on screen at 120.
        shown = [heatmap.render_line(y).text for y in range(1, len(heatmap.grid.rows) + 1)]
        for row, line in zip(heatmap.grid.rows, shown, strict=False):
            assert line.startswith(row.label + " ")


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_snapshot_correlation_matrix(
    make_app: MakeApp, published_db: Path, snap_compare: Any, size: tuple[int, int]
) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        pilot.app.theme = "lctui-dark"
        await open_correlation(pilot)
        await pilot.pause(0.2)

    assert snap_compare(make_app(published_db), terminal_size=size, run_before=run_before)
