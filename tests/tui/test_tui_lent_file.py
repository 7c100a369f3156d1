"""A TUI merely open on the default database lets a headless `lctui run` write it
(issue 24, item 15): idle, the app holds no writer claim (`Store.lend_when_idle`), reads
on, read-only, while the run writes, says so, and writes the file again once the run
has ended. The app's own writes take the claim back: a headless run started while
they go is refused, and the app's run started while a headless one writes fails with
the reason and leaves nothing half done.

Real processes: the headless runs are `python -m lctui run` with the gold model, and,
where one must still be writing when the app looks, the same CLI with a slowed gold
stand-in (helpers/slow_detached.py run in the foreground).
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import helpers.slow_detached
from helpers.live_runs import lctui, records, stored_generations
from helpers.pilot import until
from helpers.slow_run import FRESH_TASKS, gold_request, start_slow_run
from lctui.backends import load_backend
from lctui.core.paths import default_db_path
from lctui.core.run_record import RUNNING
from lctui.store.claim import writer_active
from lctui.tui.app import LctuiApp
from lctui.tui.screens.launch import LaunchScreen
from lctui.tui.state.run_manager import CANCELLED, FAILED, FINISHED

pytestmark = pytest.mark.usefixtures("blank_home")  # a blank home screen

TEMPLATE_ROWS = 3 * 2 * 2  # the template's gold runs (tui conftest)
GOLD_RUN = ["run", "--model", "gold", "--tasks", "niah_single_1", "--lengths", "1k"]
SLOW_PROGRAM = helpers.slow_detached.__file__


@pytest.fixture
def default_db(results_db: Path) -> Path:
    """The template's results as the default database (the isolated data folder's)."""
    db = default_db_path()
    db.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(results_db, db)
    return db


def _told(app: LctuiApp) -> str:
    return " ".join(str(n.message) for n in app._notifications)


def _writing(db: Path) -> bool:
    """Whether a run of `db` says it is running (it has opened the file and planned)."""
    return any(
        r.status == RUNNING and Path(r.db).resolve() == db.resolve() for r in records().values()
    )


def _slow_headless(n: int, seed: int) -> subprocess.Popen[str]:
    """`lctui run` (no --db: the default database) in the foreground, with gold slowed
    to a word every 0.1 s, one request at a time: it writes for a while."""
    program = [sys.executable, SLOW_PROGRAM, "--delay", "0.1", "--words", "20"]
    program += ["--streams", "1", "--", *GOLD_RUN, "--n", str(n), "--seed", str(seed)]
    # Its progress lines are not read: a full pipe must not stall the run.
    return subprocess.Popen(program, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


async def _headless(*args: str) -> subprocess.CompletedProcess[str]:
    """A plain headless `lctui run` on the default database, to its end."""
    return await asyncio.to_thread(
        subprocess.run, lctui(*GOLD_RUN, *args), capture_output=True, text=True, timeout=180
    )


@pytest.mark.slow
async def test_a_headless_run_writes_the_idle_apps_file_and_the_app_writes_it_after(
    make_app: Any, default_db: Path
) -> None:
    app = make_app(default_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert not app.read_only and not writer_active(default_db)  # open, idle
        headless = _slow_headless(n=4, seed=5)
        try:
            await until(pilot, lambda: _writing(default_db) or headless.poll() is not None, 60)
            assert headless.poll() is None, headless.communicate()[1]  # not refused
            assert writer_active(default_db)
            # The app starts a run just as the headless one took the file: it fails
            # with the reason, and the app keeps no claim it could not use.
            mine = app.start_run(gold_request(n=1, seed=6), loader=load_backend)
            await until(pilot, lambda: not mine.running)
            assert mine.status == FAILED and "being written by another lctui process" in (
                mine.failure or ""
            )
            assert app.store.claim is None and not app.store.writes_going
            # The app saw the other writer: read-only meanwhile, and it says so.
            await until(pilot, lambda: app.read_only, timeout=15)
            assert "Another lctui process writes lctui.duckdb" in _told(app)
            await pilot.press("ctrl+n")
            await pilot.pause()
            assert not isinstance(app.screen, LaunchScreen)
            assert "runs can start here once it has ended" in _told(app)
            _, err = await asyncio.to_thread(headless.communicate, timeout=180)
        finally:
            if headless.poll() is None:
                headless.kill()
        assert headless.returncode == 0, err
        # The run has ended: the app may write the file again, and does.
        await until(pilot, lambda: not app.read_only, timeout=15)
        assert "runs can start here again" in _told(app)
        again = app.start_run(gold_request(n=1, seed=6), loader=load_backend)
        await until(pilot, lambda: not again.running, timeout=60)
        assert again.status == FINISHED, again.failure
        assert not writer_active(default_db)  # and lends it again
    headless_rows, app_rows = 4, 2  # niah_single_1 x 4; FRESH_TASKS' two tasks x 1
    assert FRESH_TASKS.count(",") + 1 == app_rows
    total = TEMPLATE_ROWS + headless_rows + app_rows
    assert stored_generations(default_db) == (total, total, total)


@pytest.mark.slow
async def test_a_headless_run_is_refused_only_while_the_app_writes(
    make_app: Any, default_db: Path
) -> None:
    app = make_app(default_db)
    async with app.run_test(size=(80, 24)) as pilot:
        view = await start_slow_run(app, pilot, delay=0.2, n=20, seed=1)
        busy = await _headless("--n", "1", "--seed", "7")
        assert busy.returncode != 0 and "being written by another lctui process" in busy.stderr
        assert view.run.running, "the app's run ended before the headless one tried"
        view.run.cancel()
        await until(pilot, lambda: not view.run.running, timeout=60)
        assert view.run.status == CANCELLED
        # Its run over, the app is idle: it lent the file back.
        assert not writer_active(default_db)
        rows, _, _ = stored_generations(default_db)
        assert rows > TEMPLATE_ROWS  # what the app's run finished
        free = await _headless("--n", "1", "--seed", "7")
        assert free.returncode == 0, free.stderr
        await until(pilot, lambda: not app.read_only, timeout=15)
    assert stored_generations(default_db) == (rows + 1, rows + 1, rows + 1)
