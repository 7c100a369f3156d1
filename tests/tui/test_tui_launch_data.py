"""The launch screen greys out tasks whose data is missing, says why, and never ticks them;
with data_dir in lctui.toml the same tasks are ticked as any other."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import Static

from helpers.helmet_data import HELMET_FIXTURES
from lctui.core.config import Config
from lctui.tui.app import LctuiApp
from lctui.tui.screens.launch import LaunchScreen
from lctui.tui.widgets.run_task_tree import TaskTree


async def _tree(pilot: Pilot[Any]) -> tuple[LaunchScreen, TaskTree]:
    await pilot.press("ctrl+n")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, LaunchScreen)
    return screen, screen.query_one(TaskTree)


async def _enter_on(pilot: Pilot[Any], tree: TaskTree, name: str) -> None:
    tree.focus()
    tree.move_cursor(tree._task_nodes[name])
    await pilot.pause()
    await pilot.press("enter")
    await pilot.pause()


async def test_a_task_without_data_is_greyed_out_with_the_reason(results_db: Path) -> None:
    app = LctuiApp(results_db, Config(), import_samples=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, tree = await _tree(pilot)
        label = tree._task_nodes["kilt_nq"].label
        assert isinstance(label, Text)
        assert "no data" in label.plain and "dim" in str(label.spans[0].style)
        await _enter_on(pilot, tree, "kilt_nq")
        assert tree.checked == []
        detail = str(screen.query_one("#task-detail", Static).render())
        assert "kilt_nq is unavailable" in detail and "--data" in detail
        # Ticking the whole category ticks none of its tasks without data.
        tree.move_cursor(tree._task_nodes["kilt_nq"].parent)
        await pilot.press("enter")
        await pilot.pause()
        assert tree.checked == []


async def test_data_dir_in_the_config_makes_the_task_available(results_db: Path) -> None:
    app = LctuiApp(results_db, Config(data_dir=str(HELMET_FIXTURES)), import_samples=False)
    async with app.run_test(size=(120, 40)) as pilot:
        _, tree = await _tree(pilot)
        label = tree._task_nodes["kilt_nq"].label
        assert isinstance(label, Text) and "no data" not in label.plain
        await _enter_on(pilot, tree, "kilt_nq")
        assert tree.checked == ["kilt_nq"]
