"""The live screen while the results file cannot be written: another process holds it.

The app's store is shared (held only while each flush runs, as headless runs hold
theirs), a second process opens the file read-write for a while, and the screen must
keep streaming, say that it cannot write and why, hold new examples once too much
waits, and go on by itself when the file is free, with every result stored.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from lctui.backends import builtin_models
from lctui.backends.gold import GoldBackend
from lctui.core.types import Chunk, Request
from lctui.engine import RunRequest, flushing
from lctui.engine.flushing import BacklogLimits
from lctui.store import open_store
from lctui.tasks import select_tasks
from lctui.tui.screens.run import RunScreen

GOLD = next(m for m in builtin_models() if m.name == "gold")
HOLD_S = 17.0  # past the 15 s a shared store waits for a held file, so a write fails


class SlowGold(GoldBackend):
    """Gold answers a word every `delay` seconds, two requests at a time (the run then
    lasts far longer than the test, which cancels it)."""

    def __init__(self, delay: float) -> None:
        super().__init__()
        self.max_concurrency = 2
        self.delay = delay

    async def stream(self, request: Request) -> AsyncIterator[Chunk]:
        async for chunk in super().stream(request):
            await asyncio.sleep(self.delay)
            yield chunk


pytestmark = pytest.mark.usefixtures("blank_home")  # a blank home screen


async def _until(pilot: Pilot[Any], check: Callable[[], bool], timeout: float) -> None:
    for _ in range(int(timeout / 0.1)):
        if check():
            return
        await pilot.pause(0.1)
    raise AssertionError("timed out waiting for the app")


def _hold(db: Path) -> subprocess.Popen[str]:
    code = f"""
        import time, duckdb
        while True:
            try:
                con = duckdb.connect({str(db)!r})
                break
            except duckdb.Error:
                time.sleep(0.005)
        print("held", flush=True)
        time.sleep({HOLD_S})
        con.close()
    """
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE, text=True
    )


@pytest.mark.slow
async def test_a_held_file_is_shown_new_work_waits_and_the_run_goes_on(
    make_app: Any, results_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(flushing, "BACKLOG_LIMITS", BacklogLimits(max_age_s=6.0))
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        app._store.close()
        app._store = open_store(results_db, shared=True)
        request = RunRequest(
            models=[GOLD], tasks=select_tasks("niah_single_2"), lengths=[1024], n=1000, seed=7
        )
        app.start_run(request, loader=lambda spec, tokenizer: SlowGold(0.05))
        run = app.screen
        assert isinstance(run, RunScreen)
        await _until(pilot, lambda: run.state.done >= 3, timeout=30)
        holder = _hold(results_db)
        try:
            assert holder.stdout is not None
            assert (await asyncio.to_thread(holder.stdout.readline)).strip() == "held"
            done_at_hold = run.state.done
            await _until(pilot, lambda: run.state.store_stalled is not None, timeout=30)
            # The run went on while its write waited for the file.
            assert run.state.done > done_at_hold
            assert "new examples wait until it can" in run.status_line()
            await pilot.pause(1.0)  # requests running at the pause end
            started = run.state.started
            await pilot.pause(2.0)
            assert run.state.started == started, "no new example starts while held"
            await _until(
                pilot,
                lambda: f"PID {holder.pid}" in str(run.query_one("#run-error", Static).render()),
                timeout=30,
            )
            assert await asyncio.to_thread(holder.wait, 30) == 0
        finally:
            holder.kill()
            holder.wait()
        await _until(pilot, lambda: run.state.store_stalled is None, timeout=30)
        await _until(
            pilot,
            lambda: any("Writing works again" in str(n.message) for n in app._notifications),
            timeout=5,
        )
        await _until(pilot, lambda: run.state.started > started + 2, timeout=30)
        assert run.status_line().startswith("Running")
        await pilot.press("c")
        await _until(pilot, lambda: not run.run.running, timeout=30)
        kept = run.state.done + run.state.errors
        run_id = run.state.run_id
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:  # the app's store closes as the app exits
        try:
            con = duckdb.connect(str(results_db), read_only=True)
            break
        except duckdb.Error:
            await asyncio.sleep(0.1)
    stored = con.execute("SELECT count(*) FROM results WHERE run_id = ?", [run_id]).fetchone()
    con.close()
    assert stored == (kept,)
