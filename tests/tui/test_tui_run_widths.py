"""The live view's text is whole where there is room for it (issue 24): a grid cell of
a run that found stored examples reads `2/4 stored`, not `2/4 stor…` with columns free
beside it, and the focused stream's title keeps its model's name whole (`smollm2-13…`
was cut at 80 columns), shortening the task in its middle first. At 80x24 and 120x40.

Real engine and DuckDB: gold under a configured name (its fingerprint is gold's, so
the template's gold runs count as stored), answering a word a minute so that the first
example is still streaming while the test looks (helpers/slow_run.py)."""

from __future__ import annotations

from typing import Any

import pytest

from helpers.pilot import rendered, until
from helpers.slow_run import SlowGold, loader_of
from lctui.core.types import ModelSpec
from lctui.engine import RunRequest
from lctui.tasks import select_tasks
from lctui.tui.app import LctuiApp
from lctui.tui.screens.run import RunScreen
from lctui.tui.widgets.run_grid import RunGrid
from lctui.tui.widgets.stream_panel import StreamPanel

SIZES = [(80, 24), (120, 40)]
SIZE_IDS = ["80x24", "120x40"]
MODEL = "gold-128k-ref"  # as long as smollm2-135m, whose name was cut

pytestmark = pytest.mark.usefixtures("blank_home")


async def _live(app: LctuiApp, pilot: Any) -> RunScreen:
    """niah_multikey_1 (new) then niah_single_1 (2 of 4 stored by the template) at 1k."""
    spec = ModelSpec(name=MODEL, backend="gold", reference=True)
    tasks = select_tasks("niah_multikey_1,niah_single_1")
    request = RunRequest(models=[spec], tasks=tasks, lengths=[1024], n=4)
    run = app.start_run(request, loader=loader_of(SlowGold(delay=60.0)))
    await until(pilot, lambda: isinstance(app.screen, RunScreen) and run.state.started >= 1)
    screen = app.screen
    assert isinstance(screen, RunScreen)
    screen._stats_at = 0.0
    screen.tick()
    await pilot.pause()
    return screen


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_a_cell_of_stored_examples_says_so_whole(
    make_app: Any, size: tuple[int, int]
) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        screen = await _live(app, pilot)
        assert screen.state.skipped == 2
        grid = "\n".join(rendered(screen.query_one(RunGrid)))
        assert "2/4 stored" in grid, grid
        assert "…" not in grid, grid


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_the_stream_title_keeps_the_model_whole(make_app: Any, size: tuple[int, int]) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        screen = await _live(app, pilot)
        top = rendered(screen.query_one(StreamPanel))[0]
        title = top.strip("╭╮─ ")
        assert title.endswith(f" #0 @1k · {MODEL}"), top
        task = title.split(" #0")[0]
        head, cut, tail = task.partition("…")
        assert task == "niah_multikey_1" or (
            cut and "niah_multikey_1".startswith(head) and "niah_multikey_1".endswith(tail)
        ), top
        if size[0] >= 120:
            assert task == "niah_multikey_1", top  # room for all of it
