"""The length views on the gold runs of conftest (three tasks at 1K and 2K): the curve
table and the effective lengths equal `analysis.curves`, the threshold box changes the
effective length, and the needle tasks get depth x length heatmaps."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, OptionList, Static

from helpers.pilot import settle
from lctui.analysis.curves import depth_grids, effective_lengths, length_curves, ruler_tasks
from lctui.core.lengths import format_length
from lctui.store import open_store
from lctui.store.derived import refresh_derived
from lctui.tui.app import LctuiApp
from lctui.tui.screens.curves import CurvesScreen, sparkline
from lctui.tui.widgets.heatmap import Heatmap

MakeApp = Callable[..., LctuiApp]


async def open_curves(pilot: Pilot[Any]) -> CurvesScreen:
    await settle(pilot)
    await pilot.press("V")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, CurvesScreen) and screen.data is not None
    return screen


def rows(table: DataTable[Any]) -> list[list[str]]:
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


def lower_score(db: Path, task: str, length: int, value: float) -> None:
    """Set the task's scores at `length`; gold stops being a reference so that the
    effective length (which leaves references out) counts it."""
    con = duckdb.connect(str(db))
    con.execute("UPDATE models SET reference = false")
    con.execute(
        "UPDATE scores SET value = ? WHERE generation_id IN (SELECT g.generation_id "
        "FROM generations AS g JOIN examples AS e USING (example_id) "
        "WHERE e.task = ? AND e.length = ?)",
        [value, task, length],
    )
    # rows changed by hand: what the writer keeps on write (store/result_cells.py)
    refresh_derived(con)
    con.close()


async def test_curves_and_effective_lengths_match_the_analysis(
    make_app: MakeApp, results_db: Path
) -> None:
    # vt at 2K drops to 0.7: the mean over RULER's two tasks (niah_single_1, vt) at 2K is
    # 0.85, under 0.856; HELMET's json_kv (1.0) is no RULER task and stays out of it
    # (folded in, the mean would be 0.9 and the effective length 2K).
    lower_score(results_db, "vt", 2048, 0.7)
    with open_store(results_db, read_only=True) as store:
        curves = length_curves(store)
    want = effective_lengths(curves)
    async with make_app().run_test(size=(120, 40)) as pilot:
        screen = await open_curves(pilot)
        table = screen.query_one("#curves-table", DataTable)
        shown = rows(table)
        assert len(shown) == len(curves) == 3
        for row, curve in zip(shown, curves, strict=True):
            means = [p.mean for p in curve.points]
            assert row[1] == curve.task and row[2] == sparkline(means)
            assert row[3:] == [f"{m:.2f}" for m in means]
        vt = next(r for r in shown if r[1] == "vt")
        assert vt[3:] == ["1.00", "0.70"] and vt[2] == "█▆"
        assert any(r[1] == "json_kv" for r in shown)  # its own curve, on this tab
        effective = rows(screen.query_one("#effective-table", DataTable))
        assert [r[0] for r in effective] == [e.model for e in want]
        assert effective[0][1] == format_length(1024) == format_length(want[0].length or 0)
        assert effective[0][2] == f"2/{len(ruler_tasks())}"
        assert effective[0][3:] == ["1.000", "0.850"]
        assert effective[0][3:] == [f"{want[0].means[n]:.3f}" for n in (1024, 2048)]
        # A threshold of 0.8, on the table's 0-1 scale, lets the 2K mean (0.85) through.
        await pilot.press("2")
        box = screen.query_one("#threshold", Input)
        assert box.value == "0.856" and "(0-1, RULER: 0.856)" in str(
            screen.query_one("#threshold-label", Static).render()
        )
        box.value = "0.8"
        await pilot.pause()
        assert screen.threshold == pytest.approx(0.8)
        effective = rows(screen.query_one("#effective-table", DataTable))
        assert effective[0][1] == format_length(2048)
        assert effective_lengths(curves, 0.8)[0].length == 2048
        box.value = "80"  # the old 0-100 scale is refused
        await pilot.pause()
        assert box.has_class("-invalid") and screen.threshold == pytest.approx(0.8)


async def test_depth_tab_shows_each_needle_grid(make_app: MakeApp, results_db: Path) -> None:
    with open_store(results_db, read_only=True) as store:
        grids = depth_grids(store)
    assert grids
    async with make_app().run_test(size=(120, 40)) as pilot:
        screen = await open_curves(pilot)
        await pilot.press("3")
        await pilot.pause()
        pairs = screen.query_one("#depth-pairs", OptionList)
        assert pairs.option_count == len(grids)
        for index, grid in enumerate(grids):
            pairs.highlighted = index
            await pilot.pause()
            heat = screen.query_one("#depth-heatmap", Heatmap).grid
            assert [r.label for r in heat.rows] == [f"{d:.0f} %" for d in grid.depths]
            assert list(heat.columns) == [format_length(n) for n in grid.lengths]
            for (i, j), cell in heat.cells.items():
                assert cell.value == grid.mean[i][j]
                assert cell.text.endswith(f"n{grid.n[i][j]}")


async def test_an_empty_database_says_how_to_get_results(make_app: MakeApp, tmp_path: Path) -> None:
    empty = tmp_path / "empty.duckdb"
    open_store(empty).close()
    async with make_app(empty).run_test(size=(120, 40)) as pilot:
        screen = await open_curves(pilot)
        assert screen.has_class("-empty")
