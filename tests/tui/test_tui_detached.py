"""Runs of other processes in the TUI: the Runs screen lists the live detached runs of its
database, enter attaches the live view to one (its focused generation streams token by
token), p and c reach the run through its socket, leaving the view or closing the app
detaches and never stops the run, and a run that vanishes says so.

One real detached `lctui run` serves the module (helpers/slow_detached.py: gold slowed
to a word every 50 ms, two at a time, so it goes for a minute or more); its last test
cancels it. The TUI opens its file read-only, as it does any file a run writes.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable
from textual.widgets.data_table import RowDoesNotExist

from helpers.live_runs import wait_for_record, wait_until
from helpers.pilot import rendered, until
from helpers.slow_detached import start_slow_detached
from lctui.core.config import Config
from lctui.core.run_record import CANCELLED as RECORD_CANCELLED
from lctui.core.run_record import KILLED, RunRecord
from lctui.engine.attach import AttachedRun, pid_alive
from lctui.tui.app import LctuiApp
from lctui.tui.screens.run import RunScreen
from lctui.tui.screens.runs import RunsScreen
from lctui.tui.state.detached_run import DetachedRun
from lctui.tui.state.run_manager import CANCELLED, PAUSED, RUNNING
from lctui.tui.widgets.stream_panel import StreamPanel

ARGS = ["run", "--model", "gold", "--tasks", "niah_single_1,niah_single_2", "--lengths", "1k"]
SIZES = [(80, 24), (120, 40)]
SIZE_IDS = ["80x24", "120x40"]


pytestmark = pytest.mark.usefixtures("blank_home")  # a blank home screen


@pytest.fixture(scope="module")
def _module_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, RunRecord]]:
    data = tmp_path_factory.mktemp("detached")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("LCTUI_DATA_DIR", str(data / "data"))
        # 120 examples of 1.5 s, two at a time: it outlasts the module, whose last test
        # cancels it.
        record = start_slow_detached(
            [*ARGS, "--n", "60"], data / "runs.duckdb", delay=0.05, words=30
        )
    yield data, record
    if pid_alive(record.pid):  # a test failed before cancelling it
        os.kill(record.pid, signal.SIGTERM)


@pytest.fixture
def detached(_module_run: tuple[Path, RunRecord], monkeypatch: pytest.MonkeyPatch) -> RunRecord:
    """The module's detached run, in this test's data folder (its runs/ is the run's)."""
    data, record = _module_run
    monkeypatch.setenv("LCTUI_DATA_DIR", str(data / "data"))
    assert pid_alive(record.pid), "the module's run is over before its tests"
    return record


async def _progress(record: RunRecord) -> tuple[bool, int, int]:
    """What the run itself says: paused, examples finished, viewers (the asker aside)."""
    attached = await AttachedRun.connect(record.socket)
    await attached.close()
    progress = attached.progress
    return progress.paused, progress.finished, progress.viewers


async def _open_detached(pilot: Pilot[Any], record: RunRecord) -> tuple[RunsScreen, DetachedRun]:
    """The Runs screen (G) once it lists `record`'s run, and that run."""
    app = pilot.app
    assert isinstance(app, LctuiApp)
    await pilot.press("G")
    await until(pilot, lambda: isinstance(app.screen, RunsScreen))
    await until(pilot, lambda: app.runs.find(record.run_id) is not None, timeout=15)
    screen = app.screen
    run = app.runs.find(record.run_id)
    assert isinstance(screen, RunsScreen) and isinstance(run, DetachedRun)
    await until(pilot, lambda: _row(screen, run)[1] == record.run_id)  # the table's refresh
    return screen, run


def _row(screen: RunsScreen, run: DetachedRun) -> list[str]:
    """The run's row as the table shows it (none until the table's next refresh)."""
    try:
        cells = screen.query_one(DataTable).get_row(str(run.number))
    except RowDoesNotExist:
        return ["", "", ""]
    return [str(cell) for cell in cells]


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_a_detached_run_is_watched_paused_and_left_going(
    detached: RunRecord, size: tuple[int, int]
) -> None:
    app = LctuiApp(Path(detached.db), Config(), import_samples=False)
    async with app.run_test(size=size) as pilot:
        assert app.read_only  # the run writes the file
        runs, run = await _open_detached(pilot, detached)
        await until(pilot, lambda: _row(runs, run)[2] == RUNNING, timeout=10)
        row = _row(runs, run)
        assert row[1] == detached.run_id and row[3].split("/")[1] == "120", row

        # The detail pane follows the row on its next refresh: wait for it (a hang bound).
        def detail() -> str:
            return "\n".join(rendered(runs.query_one("#runs-detail")))

        await until(pilot, lambda: f"pid {detached.pid}" in detail(), timeout=10)
        assert f"pid {detached.pid}" in detail() and "lctui attach" in detail()

        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, RunScreen) and run.attached)
        view = app.screen
        assert isinstance(view, RunScreen) and view.run is run
        # The replay brought the run so far; the focused generation streams word by word.
        await until(pilot, lambda: run.state.planned and run.focus_id is not None)
        assert run.state.to_do == 120 and run.state.models == ["gold"]
        lengths: list[int] = []
        for _ in range(40):
            stream = run.state.streams[run.focus_id] if run.focus_id else None
            if stream is not None and not stream.finished:
                lengths.append(len(stream.text))
            await pilot.pause(0.05)
        grew = [b for a, b in itertools.pairwise(lengths) if b > a]
        assert len(grew) >= 5, lengths
        panel = view.query_one(StreamPanel)  # it draws the streamed words
        await until(pilot, lambda: " w1 w2" in "\n".join(rendered(panel)))

        # Another viewer at the same time: both see the run.
        other = await AttachedRun.connect(detached.socket)
        async with other:
            assert other.record.run_id == detached.run_id and other.progress.viewers >= 1
            assert await other.read_replay()

        await pilot.press("p")
        assert run.status == PAUSED
        await until(pilot, lambda: run.state.paused)  # the run said so (RunPaused)
        assert (await _progress(detached))[0], "the run did not pause"
        await until(pilot, lambda: "Paused" in view.status_line())
        await pilot.press("p")
        await until(pilot, lambda: not run.state.paused)
        assert not run.paused and not (await _progress(detached))[0], "the run did not resume"

        await pilot.press("escape")  # leave the view: the viewer detaches, the run goes on
        await until(pilot, lambda: not run.attached)
        await until(pilot, lambda: isinstance(app.screen, RunsScreen))
        for _ in range(50):  # the run sees the connection close a moment later
            paused, finished, viewers = await _progress(detached)
            if not viewers:
                break
            await pilot.pause(0.1)
        assert viewers == 0 and not paused and pid_alive(detached.pid)
        await pilot.press("ctrl+q")  # no run of this process: quits at once
    # Closing the app leaves the run going.
    assert pid_alive(detached.pid)
    await asyncio.sleep(2.0)
    assert (await _progress(detached))[1] > finished


@pytest.mark.slow
async def test_cancelling_a_detached_run_from_the_tui_keeps_what_it_finished(
    detached: RunRecord,
) -> None:
    app = LctuiApp(Path(detached.db), Config(), import_samples=False)
    async with app.run_test(size=(120, 40)) as pilot:
        runs, run = await _open_detached(pilot, detached)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, RunScreen) and run.state.planned)
        view = app.screen
        assert isinstance(view, RunScreen)
        await pilot.press("c")
        await until(pilot, lambda: not run.running, timeout=15)
        assert run.status == CANCELLED
        assert view.status_line().startswith("Cancelled: kept")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, RunsScreen))
        await until(pilot, lambda: _row(runs, run)[2] == CANCELLED)
        # Its file is free once its process has ended: the app takes it back.
        await until(pilot, lambda: not app.read_only, timeout=15)
    record = wait_for_record(
        detached.run_id, lambda r: r.status == RECORD_CANCELLED, 30, "the run to end cancelled"
    )
    assert 0 < record.done < 120
    wait_until(lambda: not pid_alive(detached.pid), 30, "the run's process to end")


@pytest.mark.slow
async def test_a_detached_run_that_vanishes_says_so(tmp_path: Path) -> None:
    record = start_slow_detached(
        [*ARGS, "--n", "20"], tmp_path / "gone.duckdb", delay=0.05, words=30
    )
    app = LctuiApp(Path(record.db), Config(), import_samples=False)
    async with app.run_test(size=(80, 24)) as pilot:
        _, run = await _open_detached(pilot, record)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, RunScreen) and run.attached)
        view = app.screen
        assert isinstance(view, RunScreen)
        os.kill(record.pid, signal.SIGKILL)
        await until(pilot, lambda: not run.running, timeout=15)
        assert run.status == KILLED
        assert "is gone" in view.status_line() and record.command in view.status_line()
        told = " ".join(str(n.message) for n in app._notifications)
        assert f"Run {run.name} ({record.run_id}) is gone" in told
