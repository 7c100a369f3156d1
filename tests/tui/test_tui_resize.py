"""A screen lays out at the terminal's size as soon as the terminal is resized: the
inspector's prompt wrapped at the new width, its rubric's columns fitted, whatever
order Textual hands the screen its Resize events in (tui/screens/base.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
from textual import events
from textual.geometry import Size

from helpers.pilot import open_inspector
from lctui.tui.screens.inspector import InspectorScreen
from lctui.tui.widgets.prompt_view import PromptView
from lctui.tui.widgets.rubric_table import RubricTable


def _gid(db: Path) -> str:
    with duckdb.connect(str(db), read_only=True) as con:
        row = con.execute(
            "SELECT g.generation_id FROM generations AS g JOIN examples AS e USING (example_id) "
            "WHERE e.task = 'vt' AND e.length = 2048 AND e.idx = 0"
        ).fetchone()
    assert row is not None
    return str(row[0])


def _layout(screen: InspectorScreen) -> tuple[Any, ...]:
    """The widths the inspector is laid out at: the screen's, the prompt's wrap and the
    width the rubric's columns were fitted to."""
    view = screen.query_one(PromptView)
    table = screen.query_one(RubricTable)
    return screen.outer_size, view.scrollable_content_region.width, view.wrapped_at, table.fitted_to


async def test_the_inspector_lays_out_at_once_after_a_resize(
    make_app: Any, results_db: Path
) -> None:
    gid = _gid(results_db)
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_inspector(pilot, gid)
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        size, width, wrapped, fitted = _layout(screen)
        assert size == Size(120, 40) and screen.has_class("-wide")
        assert wrapped == width  # the prompt's lines are wrapped for the panel it has now
        table = screen.query_one(RubricTable)
        assert fitted == table.size.width  # every column within the rubric's panel


async def test_a_stale_resize_handed_over_last_is_laid_out_at_the_terminal_size(
    make_app: Any, results_db: Path
) -> None:
    """Textual merges the Resize events queued for a screen into the last one queued,
    which may be one the screen posted itself while laid out at an older size (a
    terminal resized in steps, the inspector busy re-wrapping). A drag through seven
    sizes left the inspector at an older width in 1 of 20 tries here, until the next
    resize; this hands it that last, stale event on demand."""
    gid = _gid(results_db)
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_inspector(pilot, gid)
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        settled = _layout(screen)
        screen.post_message(events.Resize(Size(110, 34), Size(110, 34)))
        await pilot.pause()
        await pilot.pause()
        assert _layout(screen) == settled
