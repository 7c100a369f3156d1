"""Identifiers and state readable at 80 and 120 columns, without colour: the heatmap's
task names whole (folded under their family only when the widget is too narrow), model
names on heading lines, a legend of its colours; the launch screen's ticks `[x]`/`[ ]`
for models and lengths as for tasks and its task names fitted; the compare screen's
pickers one tab away, their focus drawn reverse; and the SVG snapshots of both."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Select
from textual.widgets._select import SelectCurrent

from helpers.pilot import rendered, settle, until
from lctui.cli import main as cli_main
from lctui.core.config import Config
from lctui.core.lengths import format_length
from lctui.core.text import fold_names
from lctui.engine import published_run
from lctui.tui.app import LctuiApp
from lctui.tui.screens.compare import CompareScreen
from lctui.tui.screens.launch import LaunchScreen
from lctui.tui.state.launch_choices import DEFAULT_LENGTH
from lctui.tui.widgets.heat_legend import SCORE_SAMPLES, HeatLegend
from lctui.tui.widgets.heatmap import HeatCell, Heatmap
from lctui.tui.widgets.run_task_tree import TaskTree
from lctui.tui.widgets.tick_list import TickList

MakeApp = Callable[..., LctuiApp]
LONG = ["lifbench_blur_offset_query_element", "lifbench_blur_offset_query_id"]
TASKS = [*LONG, "lifbench_offset_query_element", "niah_single_1"]


@pytest.fixture(scope="module")
def long_names_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two gold runs (the second at another temperature, so the compare screen pairs them)
    of tasks whose names differ past the heatmap's old 24-character cut, at 4K and 8K.
    Their run ids are fixed (`new_run_id` gives the time and a random part) so that the
    compare screen's snapshot shows the same pickers every time."""
    folder = tmp_path_factory.mktemp("names")
    db = folder / "names.duckdb"
    run = ["run", "--model", "gold", "--tasks", ",".join(TASKS), "--lengths", "4k,8k", "--n", "1"]
    ids = iter(["20250301-101500-aaaaaa", "20250301-101600-bbbbbb"])
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LCTUI_DATA_DIR", str(folder / "data"))
        mp.setattr(published_run, "new_run_id", lambda: next(ids))
        assert cli_main([*run, "--db", str(db)]) == 0
        assert cli_main([*run, "--temperature", "0.5", "--db", str(db)]) == 0
    return db


def _app(db: Path) -> LctuiApp:
    return LctuiApp(db, Config(), import_samples=False)


async def test_heatmap_names_whole_at_80_columns_folded_only_when_narrower(
    long_names_db: Path,
) -> None:
    async with _app(long_names_db).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        heatmap = pilot.app.screen.query_one(Heatmap)
        lines = heatmap.row_layout.lines
        assert [line.text for line in lines if line.kind == "group"] == ["gold (reference)"]
        assert [line.text.strip() for line in lines if line.kind == "row"] == sorted(TASKS)
        height = heatmap.scrollable_content_region.height
        shown = [heatmap.render_line(y).text for y in range(height)]
        assert shown[1].startswith("gold (reference)")
        for task in TASKS:  # whole on screen, followed by its cells
            assert any(line.startswith(f" {task} ") and "1.00" in line for line in shown)
        # Narrower than the longest name and three cells: the family folds under its name.
        await pilot.resize_terminal(48, 24)
        await settle(pilot)
        await pilot.pause(0.1)
        lines = heatmap.row_layout.lines
        assert [line.text.strip() for line in lines if line.kind == "family"] == ["lifbench_*"]
        labels = [line.text.strip() for line in lines if line.kind == "row"]
        assert len(set(labels)) == len(labels) and "niah_single_1" in labels
        assert "blur_offset_query_id" in labels  # the rest of a name, whole where it fits
        assert all(len(line.text) <= heatmap.row_layout.label_width for line in lines[1:])


async def test_the_legend_draws_the_scale_as_the_cells_are_drawn(long_names_db: Path) -> None:
    async with _app(long_names_db).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        legend = pilot.app.screen.query_one(HeatLegend)
        heatmap = pilot.app.screen.query_one(Heatmap)
        text = legend.render()
        assert text.plain.startswith("mean  0.00  0.25  0.50  0.75  1.00 ")
        assert "· not run" in text.plain and "2err failed" in text.plain
        assert len(text.plain) <= 78  # one line at 80 columns
        for value, label in SCORE_SAMPLES:
            start = text.plain.index(f" {label} ")
            (span,) = [s for s in text.spans if s.start == start]
            assert span.style == heatmap.cell_style(HeatCell(value, label))
        # Red, amber and green: the ends and the middle differ.
        colours = {heatmap.cell_style(HeatCell(v, "")).bgcolor for v in (0.0, 0.5, 1.0)}
        assert len(colours) == 3


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_launch_ticks_read_the_same_everywhere_and_task_names_fit(
    long_names_db: Path, size: tuple[int, int]
) -> None:
    async with _app(long_names_db).run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, LaunchScreen)
        models, lengths = (
            screen.query_one("#models", TickList),
            screen.query_one("#lengths", TickList),
        )
        assert all(line.startswith("[ ] ") for line in rendered(models) if line.strip())
        ticked = [line for line in rendered(lengths) if line.startswith("[x] ")]
        default = f"[x] {format_length(DEFAULT_LENGTH)}"
        assert ticked == [line for line in rendered(lengths) if line.startswith(default)]
        await pilot.press("space")  # the first model
        await settle(pilot)
        assert rendered(models)[0].startswith("[x] ")
        tree = screen.query_one(TaskTree)
        room = tree.scrollable_content_region.width - tree.guide_depth - 2 - 4
        for branch in tree.root.children:
            names = [leaf.data.name for leaf in branch.children if leaf.data is not None]
            fitted = fold_names(names, room)
            for leaf, shown in zip(branch.children, fitted, strict=True):
                assert str(leaf.label).split("  ")[0][4:] == shown
            if size == (120, 40):
                assert fitted == names  # room enough: every name whole
        lifbench = next(b for b in tree.root.children if str(b.label).startswith("lifbench"))
        labels = [str(leaf.label).split("  ")[0] for leaf in lifbench.children]
        assert len(set(labels)) == len(labels)


async def test_compare_pickers_are_one_tab_away_and_focus_shows_without_colour(
    long_names_db: Path,
) -> None:
    async with _app(long_names_db).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("C")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, CompareScreen)
        await until(pilot, lambda: screen.result is not None)
        await settle(pilot)
        pick_a = screen.query_one("#pick-a", Select)
        current = pick_a.query_one(SelectCurrent)
        assert not current.rich_style.reverse
        await pilot.press("tab")
        assert pilot.app.focused is pick_a
        await pilot.pause()
        assert current.rich_style.reverse and current.rich_style.bold


def _snapshot_setup(keys: list[str]) -> Callable[[Pilot[Any]], Any]:
    async def run_before(pilot: Pilot[Any]) -> None:
        pilot.app.theme = "lctui-dark"
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        await pilot.pause(0.3)

    return run_before


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_snapshot_heatmap_of_long_names(
    long_names_db: Path, snap_compare: Any, size: tuple[int, int]
) -> None:
    assert snap_compare(_app(long_names_db), terminal_size=size, run_before=_snapshot_setup([]))


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_snapshot_compare_with_a_focused_picker(
    long_names_db: Path, snap_compare: Any, size: tuple[int, int]
) -> None:
    setup = _snapshot_setup(["C", "tab"])
    assert snap_compare(_app(long_names_db), terminal_size=size, run_before=setup)
