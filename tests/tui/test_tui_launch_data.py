"""The launch screen greys out tasks whose data is missing, says why, and never ticks them;
with data_dir in lctui.toml the same tasks are ticked as any other (HELMET's and
LongBench v2's, whose whole group ticks at once and counts in the estimate)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import Static

from helpers.helmet_data import HELMET_FIXTURES
from helpers.longbench_data import longbench_rows, write_longbench
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


LONGBENCH_TASKS = ["longbench_v2", "longbench_v2_cot", "longbench_v2_no_context"]


async def test_longbench_without_data_is_greyed_and_with_it_its_group_ticks(
    results_db: Path, tmp_path: Path
) -> None:
    app = LctuiApp(results_db, Config(), import_samples=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen, tree = await _tree(pilot)
        for name in LONGBENCH_TASKS:
            label = tree._task_nodes[name].label
            assert isinstance(label, Text) and "no data" in label.plain
        await _enter_on(pilot, tree, "longbench_v2_cot")
        assert tree.checked == []
        detail = " ".join(str(screen.query_one("#task-detail", Static).render()).split())
        assert detail.startswith("longbench_v2_cot is unavailable: the hub cache (no --data)")
        assert "longbench_v2/data.json" in detail

    write_longbench(tmp_path / "data", longbench_rows(3))
    app = LctuiApp(results_db, Config(data_dir=str(tmp_path / "data")), import_samples=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen, tree = await _tree(pilot)
        await pilot.press("space")  # the first model
        tree.focus()
        tree.move_cursor(tree._task_nodes["longbench_v2"].parent)
        await pilot.press("enter")  # the whole multichoice (LONGBENCH) group
        await pilot.pause()
        assert tree.checked == LONGBENCH_TASKS
        estimate = " ".join(str(screen.query_one("#estimate", Static).render()).split())
        assert "9 examples (1 model x 3 tasks x 1 length x n 3)" in estimate
