"""Runs the TUI hands to processes of their own: the launch screen's "in background"
starts `lctui run` detached with the same command and attaches to it (the file goes to
that run and comes back when it ends), and quitting with "leave them running" cancels
the runs of the app and starts each again detached, where they resume and finish.

Real processes: `python -m lctui run` with the gold model (a few seconds each); the
app's own runs are gold slowed in-process (helpers/slow_run.py) so that they still go
when the test quits.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Checkbox, Input, OptionList, SelectionList

from helpers.live_runs import stored_generations, wait_for_record
from helpers.pilot import rendered, until
from helpers.slow_run import FRESH_TASKS, start_slow_run
from lctui.cli.run_args import parse_run_argv
from lctui.core.run_record import FINISHED as RECORD_FINISHED
from lctui.tui.app import LctuiApp
from lctui.tui.screens.launch import LaunchScreen
from lctui.tui.screens.quit_runs import QuitRunsScreen
from lctui.tui.screens.run import RunScreen
from lctui.tui.state.detached_run import DetachedRun
from lctui.tui.state.run_manager import FINISHED
from lctui.tui.widgets.run_task_tree import TaskTree

pytestmark = pytest.mark.usefixtures("blank_home")  # a blank home screen


def _told(app: LctuiApp) -> str:
    return " ".join(str(n.message) for n in app._notifications)


async def _choose(pilot: Pilot[Any], tasks: list[str]) -> LaunchScreen:
    await pilot.press("ctrl+n")
    await until(pilot, lambda: isinstance(pilot.app.screen, LaunchScreen))
    screen = pilot.app.screen
    assert isinstance(screen, LaunchScreen)
    models = screen.query_one("#models", SelectionList)
    models.deselect_all()
    models.select("gold")
    lengths = screen.query_one("#lengths", SelectionList)
    lengths.deselect_all()
    lengths.select(1024)
    screen.query_one("#n", Input).value = "2"
    tree = screen.query_one(TaskTree)
    for name in list(tree.checked):  # what the screen opened with
        tree.set_checked(name, False)
    tree.focus()
    for name in tasks:
        tree.move_cursor(tree._task_nodes[name])
        await pilot.press("enter")
    await pilot.pause()
    return screen


@pytest.mark.slow
async def test_in_background_starts_the_run_detached_and_attaches_to_it(
    make_app: Any, results_db: Path
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        local = (await start_slow_run(app, pilot, delay=0.2, n=20, seed=1)).run
        launch = await _choose(pilot, FRESH_TASKS.split(","))
        await pilot.press("f8")
        assert launch.query_one("#background", Checkbox).value
        # The app's own run writes the file, which has one writer: refused, said why.
        await pilot.press("ctrl+s")
        await until(pilot, lambda: "a file has one writer" in _told(app))
        assert app.screen is launch and not app.read_only
        local.cancel()
        await until(pilot, lambda: not local.running)

        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, RunScreen))
        view = app.screen
        assert isinstance(view, RunScreen)
        run = view.run
        assert isinstance(run, DetachedRun) and app.read_only  # the file is the run's
        assert "Started in the background" in " ".join(n.title for n in app._notifications)
        args = parse_run_argv(run.record.argv)
        assert args.model == ["gold"] and args.tasks == FRESH_TASKS and args.n == 2
        assert Path(args.db) == results_db and run.record.log is not None
        await until(pilot, lambda: not run.running, timeout=120)
        assert run.status == FINISHED
        assert "progress · run #2 · detached" in "\n".join(
            rendered(view.query_one("#run-grid-box"))
        )
        # The run has ended: the app writes its file again.
        await until(pilot, lambda: not app.read_only, timeout=15)
        assert "runs can start here again" in _told(app)
    record = wait_for_record(run.record.run_id, lambda r: r.ended, 30, "the record to close")
    assert (record.status, record.done, record.errors) == (RECORD_FINISHED, 4, 0)


@pytest.mark.slow
async def test_leaving_runs_running_at_quit_hands_them_over_and_they_finish(
    make_app: Any, results_db: Path
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        first = (await start_slow_run(app, pilot, delay=0.3, n=4, seed=1)).run
        second = (await start_slow_run(app, pilot, delay=0.3, n=4, seed=2)).run
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(app.screen, QuitRunsScreen))
        choices = app.screen.query_one(OptionList)
        await until(pilot, lambda: "l  leave them running detached" in "".join(rendered(choices)))
        assert first.running and second.running, "a run ended before the test could quit"
        await pilot.press("l")
        await until(pilot, lambda: not app.is_running, timeout=60)
    left = app.run_host.left_running
    assert len(left) == 2
    for record, seed in zip(left, ("1", "2"), strict=True):
        args = parse_run_argv(record.argv)
        assert args.seed == int(seed) and args.tasks == FRESH_TASKS and Path(args.db) == results_db
    # They take turns at the file and finish what the app's runs had left.
    for record in left:
        wait_for_record(
            record.run_id, lambda r: r.status == RECORD_FINISHED, 120, "a run left running"
        )
    rows, keys, perfect = stored_generations(results_db)
    fresh = 2 * 2 * 4  # two runs of two tasks x 4 examples each
    template = 3 * 2 * 2  # the template's gold runs
    assert (rows, keys, perfect) == (template + fresh, template + fresh, template + fresh)
