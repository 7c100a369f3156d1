"""Runs belong to the app: several go at once, the Runs screen lists them and opens,
pauses and cancels any one, leaving a live view never stops a run, and quitting while
runs go asks what becomes of them. Real engine, the gold model (slowed where a test
must act while a run goes), real DuckDB."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import duckdb
import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, SelectionList, Static

from helpers.pilot import rendered, until
from helpers.slow_run import SlowGold, gold_request, start_slow_run
from lctui.core.protocols import Backend
from lctui.core.types import ModelSpec
from lctui.tui.app import LctuiApp
from lctui.tui.screens.help import HelpScreen
from lctui.tui.screens.launch import LaunchScreen
from lctui.tui.screens.quit_runs import QuitRunsScreen
from lctui.tui.screens.run import RunScreen
from lctui.tui.screens.runs import RunsScreen
from lctui.tui.state.launch_choices import DEFAULT_LENGTH
from lctui.tui.state.run_manager import CANCELLED, FINISHED, LOADING, PAUSED, ManagedRun
from lctui.tui.state.run_rows import COLUMNS
from lctui.tui.widgets.run_task_tree import TaskTree

SIZES = [(80, 24), (120, 40)]
SIZE_IDS = ["80x24", "120x40"]


pytestmark = pytest.mark.usefixtures("blank_home")  # a blank home screen


def _notified(app: LctuiApp, severity: str = "information") -> str:
    return " ".join(str(n.message) for n in app._notifications if n.severity == severity)


async def _runs_screen(pilot: Pilot[Any]) -> RunsScreen:
    await pilot.press("G")
    await until(pilot, lambda: isinstance(pilot.app.screen, RunsScreen))
    screen = pilot.app.screen
    assert isinstance(screen, RunsScreen)
    return screen


def _row(screen: RunsScreen, run: ManagedRun) -> list[str]:
    """The table's row of `run` as the screen shows it (cell text)."""
    return [str(cell) for cell in screen.query_one(DataTable).get_row(str(run.number))]


def _runs_db(db: Path) -> dict[str, tuple[str, int]]:
    """Each run's status and number of stored results."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute(
            "SELECT r.run_id, r.status, count(g.generation_id) FROM runs r "
            "LEFT JOIN generations g USING (run_id) GROUP BY ALL"
        ).fetchall()
    finally:
        con.close()
    return {run_id: (status, count) for run_id, status, count in rows}


async def _exited(app: LctuiApp, timeout: float = 30.0) -> None:
    """Wait until the app has closed (quitting it ends its run_test)."""
    for _ in range(int(timeout / 0.05)):
        if not app.is_running:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the app did not quit")


# -- leaving and coming back ---------------------------------------------------------------


async def test_leaving_the_live_view_never_stops_the_run_and_it_comes_back_as_left(
    make_app: Any,
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        view = await start_slow_run(app, pilot, delay=0.05, n=50)  # ends by its cancel
        run = view.run
        await pilot.press("f")  # focus the first example: follow the newest no more
        focused = run.focus_id
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is not view)
        assert run.running and not run.cancel_asked
        assert "goes on" in _notified(app)
        started = run.state.started
        await until(pilot, lambda: run.state.started > started)  # still working
        screen = await _runs_screen(pilot)
        assert _row(screen, run)[2] == run.status
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, RunScreen))
        again = app.screen
        assert isinstance(again, RunScreen) and again.run is run and again is not view
        assert run.focus_id == focused and not run.follow
        assert "Running" in again.status_line()
        await pilot.press("c")  # cancelling is an explicit action, here or in the list
        await until(pilot, lambda: not run.running)
        assert run.status == CANCELLED and run.state.done > 0


async def test_escape_on_the_results_screen_opens_the_runs_while_runs_go(make_app: Any) -> None:
    from lctui.tui.screens.results import ResultsScreen

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        view = await start_slow_run(app, pilot, delay=0.5)
        await app.push_screen(ResultsScreen())
        await until(pilot, lambda: isinstance(app.screen, ResultsScreen))
        assert view.run.running, "the run ended before the test could leave it"
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, RunsScreen))


async def test_a_run_finishing_unwatched_is_told_with_its_counts(make_app: Any) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        run = (await start_slow_run(app, pilot, delay=0.2, n=1)).run
        await pilot.press("ctrl+r")  # results (a blank home screen here)
        await until(pilot, lambda: not isinstance(app.screen, RunScreen))
        await until(pilot, lambda: not run.running)
        told = f"Run #1 gold ({run.state.run_id}) finished: 2 done, 0 errors"
        await until(pilot, lambda: told in _notified(app))


# -- several runs at once --------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_two_runs_go_at_once_and_one_is_cancelled_while_the_other_finishes(
    make_app: Any, results_db: Path, size: tuple[int, int]
) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        first = (await start_slow_run(app, pilot, delay=0.05, n=8)).run
        # Large: it is cancelled long before it could finish.
        second = (await start_slow_run(app, pilot, delay=0.1, n=50, seed=1)).run
        assert first.running and second.running
        screen = await _runs_screen(pilot)
        await until(pilot, lambda: _row(screen, second)[1] == second.state.run_id)
        table = screen.query_one(DataTable)
        shown = "\n".join(rendered(table))
        for heading in COLUMNS:
            assert heading in shown, (heading, shown)
        for run in (first, second):  # whole run ids, never cut, at 80 columns too
            assert f"#{run.number}" in shown and str(run.state.run_id) in shown, shown
        # The lines under the table say the highlighted run in full.
        detail = " ".join(rendered(screen.query_one("#runs-detail", Static)))
        assert "#1 gold: niah_single_2, niah_multikey_1" in detail, detail
        await pilot.press("p")  # the first, paused: it must still be there after the cancel
        assert first.paused and _row(screen, first)[2] == PAUSED
        await pilot.press("down")
        await until(
            pilot, lambda: "#2 gold" in " ".join(rendered(screen.query_one("#runs-detail")))
        )
        await pilot.press("c")
        assert second.cancel_asked and not first.cancel_asked
        await until(pilot, lambda: not second.running)
        assert first.running and not first.cancel_asked, "cancelling one leaves the other"
        await until(pilot, lambda: "#2 gold cancelled" in _notified(app, "warning"))
        await until(pilot, lambda: _row(screen, second)[2] == CANCELLED)
        await pilot.press("up", "p")
        assert not first.paused
        await until(pilot, lambda: not first.running, timeout=60)
        await until(pilot, lambda: _row(screen, first)[2] == FINISHED)
        assert _row(screen, first)[3] == "16/16" and _row(screen, first)[6] == "0"
        kept = second.state.done + second.state.errors
        assert 0 < kept < 100
        assert "#2 gold cancelled" in _notified(app, "warning")
    stored = _runs_db(results_db)
    assert stored[str(first.state.run_id)] == ("finished", 16)
    assert stored[str(second.state.run_id)] == ("cancelled", kept)


async def test_the_launch_screen_starts_a_run_while_another_goes(make_app: Any) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        first = (await start_slow_run(app, pilot, delay=0.2, n=50)).run
        await pilot.press("ctrl+n")  # a new run, not back to the one going
        await until(pilot, lambda: isinstance(app.screen, LaunchScreen))
        launch = app.screen
        assert isinstance(launch, LaunchScreen)
        launch.query_one("#models", SelectionList).select("gold")
        lengths = launch.query_one("#lengths", SelectionList)
        lengths.deselect(DEFAULT_LENGTH)
        lengths.select(1024)
        tree = launch.query_one(TaskTree)
        tree.focus()
        tree.move_cursor(tree._task_nodes["niah_single_2"])
        await pilot.press("enter")
        launch.query_one("#n", Input).value = "1"
        launch.query_one("#seed", Input).value = "5"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: len(app.runs.runs) == 2)
        second = app.runs.runs[1]
        await until(pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.run is second)
        await until(pilot, lambda: not second.running)
        assert second.status == FINISHED and second.state.done == 1
        assert first.running, "the first run goes on beside the second"


# -- quitting --------------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_quitting_while_runs_go_asks_and_escape_or_ctrl_q_stays(
    make_app: Any, size: tuple[int, int]
) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        run = (await start_slow_run(app, pilot, delay=0.2, n=50)).run
        for stay in ("escape", "ctrl+q"):
            await pilot.press("ctrl+q")
            await until(pilot, lambda: isinstance(app.screen, QuitRunsScreen))
            prompt = app.screen
            await pilot.pause()
            parts = (prompt.query_one("#quit-runs"), prompt.query_one("#quit-choices"))
            text = "\n".join(line for part in parts for line in rendered(part))
            assert "A run is going:" in text and "#1 gold" in text, text
            assert "cancel them, then quit" in text and "escape  stay" in text, text
            await pilot.press(stay)
            await until(pilot, lambda: not isinstance(app.screen, QuitRunsScreen))
            assert app.is_running and run.running and not run.cancel_asked


async def test_the_question_names_a_run_still_loading_its_model_once(make_app: Any) -> None:
    """A run whose model is still loading (the gold backend, handed over once the test
    lets it: a real load takes seconds or minutes) is listed with what it does, once:
    not `loading  loading`."""
    loaded = threading.Event()

    def load_when_let(spec: ModelSpec, tokenizer: str | None) -> Backend:
        loaded.wait(timeout=60)
        return SlowGold(0.01)

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        run = app.start_run(gold_request(n=1), loader=load_when_let)
        await until(pilot, lambda: run.status == LOADING)
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(app.screen, QuitRunsScreen))
        await pilot.pause()
        lines = rendered(app.screen.query_one("#quit-runs"))
        assert lines[0].strip() == "A run is going:", lines
        listed = lines[1].split()
        assert listed == ["#1", "gold", "loading"], lines
        await pilot.press("escape")
        loaded.set()
        await until(pilot, lambda: not run.running)
        assert run.status == FINISHED


async def test_quit_and_cancel_stops_every_run_and_keeps_what_they_finished(
    make_app: Any, results_db: Path
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        first = (await start_slow_run(app, pilot, delay=0.1, n=50)).run
        second = (await start_slow_run(app, pilot, delay=0.1, n=50, seed=1)).run
        await until(pilot, lambda: first.state.done >= 1 and second.state.done >= 1)
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(app.screen, QuitRunsScreen))
        await pilot.press("c")
        await _exited(app)
    assert first.status == second.status == CANCELLED
    stored = _runs_db(results_db)
    for run in (first, second):
        # The UI applies buffered events on its timers: what the run said after the last
        # tick before the app closed is applied here, as the app's next tick would.
        run.drain()
        assert stored[str(run.state.run_id)] == ("cancelled", run.state.done + run.state.errors)


async def test_quit_and_wait_quits_once_the_runs_have_finished(
    make_app: Any, results_db: Path
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        run = (await start_slow_run(app, pilot, delay=0.2, n=2)).run
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(app.screen, QuitRunsScreen))
        await pilot.press("w")
        await until(pilot, lambda: not isinstance(app.screen, QuitRunsScreen))
        assert app.is_running and run.running, "the app waits for the run"
        assert "lctui quits when the 1 run going has finished" in _notified(app)
        await _exited(app, timeout=60)
    assert run.status == FINISHED
    assert _runs_db(results_db)[str(run.state.run_id)] == ("finished", 4)


async def test_closing_the_app_otherwise_cancels_the_runs_and_records_it(
    make_app: Any, results_db: Path
) -> None:
    """The app closed by other means than its quit key (its process told to end):
    the runs are cancelled, not left `running` in the file."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        run = (await start_slow_run(app, pilot, delay=0.1, n=50)).run
        await until(pilot, lambda: run.state.done >= 1)
        app.exit()
    assert run.status == CANCELLED
    assert _runs_db(results_db)[str(run.state.run_id)][0] == "cancelled"


async def test_quitting_without_runs_going_quits_at_once(make_app: Any) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+q")
        await _exited(app, timeout=5)


async def test_the_runs_screen_says_how_to_start_a_run_lists_its_keys_and_shows_new_runs(
    make_app: Any,
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _runs_screen(pilot)
        detail = " ".join(rendered(screen.query_one("#runs-detail", Static)))
        assert "No run in this session yet: ctrl+n starts one." in detail
        await pilot.press("c")
        assert "nothing to cancel" in _notified(app, "warning")
        assert "Runs" in [c.title for c in app.get_system_commands(screen)]
        await pilot.press("f1")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        table = app.screen.query_one(DataTable)
        keys = {(str(r[0]), str(r[1])) for r in map(table.get_row_at, range(table.row_count))}
        assert {("G", "Runs"), ("enter", "Live view"), ("p", "Pause/resume")} <= keys
        assert ("c", "Cancel") in keys
        await pilot.press("escape")
        # A run started now shows up, its row growing to its whole run id once planned.
        run = (await start_slow_run(app, pilot, delay=0.1, n=50)).run
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen)
        table = screen.query_one(DataTable)
        await until(pilot, lambda: str(run.state.run_id) in "\n".join(rendered(table)))
        assert " running " in "\n".join(rendered(table))
