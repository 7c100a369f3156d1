"""The launch screen's task tree groups tasks as HELMET does: RULER's categories, then
HELMET's categories in its order (recall: JSON KV and three RULER needle tasks), then
LIFBench and LongBench v2; a task listed twice is ticked once and shows ticked in both
places."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text

from lctui.core.config import Config
from lctui.tui.app import LctuiApp
from lctui.tui.screens.launch import LaunchScreen
from lctui.tui.widgets.run_task_tree import TaskTree


def _label(node: Any) -> str:
    label = node.label
    return label.plain if isinstance(label, Text) else str(label)


async def test_tree_groups_in_helmets_order_and_ticks_a_shared_task_once(
    results_db: Path,
) -> None:
    app = LctuiApp(results_db, Config(), import_samples=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+n")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, LaunchScreen)
        tree = screen.query_one(TaskTree)
        branches = {_label(b): b for b in tree.root.children}
        # RULER's categories first, then HELMET's in its order, then the other suites,
        # LongBench v2 in a group of its own.
        labels = list(branches)
        ruler_groups = [label for label in labels if label.endswith("(RULER)")]
        assert ruler_groups == ["synthetic (RULER)", "qa (RULER)"]
        assert labels[: len(ruler_groups)] == ruler_groups
        assert labels[len(ruler_groups) :] == [
            "recall (HELMET)",
            "rag (HELMET)",
            "cite (HELMET)",
            "rerank (HELMET)",
            "icl (HELMET)",
            "longqa (HELMET)",
            "summ (HELMET)",
            "lifbench (LIFBENCH)",
            "multichoice (LONGBENCH)",
        ]
        longbench = [c.data.name for c in branches["multichoice (LONGBENCH)"].children if c.data]
        assert longbench == ["longbench_v2", "longbench_v2_cot", "longbench_v2_no_context"]
        recall = branches["recall (HELMET)"]
        names = [c.data.name for c in recall.children if c.data is not None]
        assert names == ["json_kv", "niah_multikey_2", "niah_multikey_3", "niah_multivalue"]
        tree.focus()
        tree.move_cursor(recall)
        await pilot.press("enter")  # ticks HELMET's whole recall column
        await pilot.pause()
        assert tree.checked == names
        ruler = branches["synthetic (RULER)"]
        shared = next(c for c in ruler.children if c.data and c.data.name == "niah_multikey_2")
        assert _label(shared).startswith("[x] niah_multikey_2")  # ticked where RULER lists it
        tree.move_cursor(shared)
        await pilot.press("enter")
        await pilot.pause()
        assert "niah_multikey_2" not in tree.checked
        assert _label(recall.children[1]).startswith("[ ] niah_multikey_2")
