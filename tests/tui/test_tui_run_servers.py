"""The live run screen and the Runs screen show where a model's requests go when it is
served from several base URLs: one line per server with its share, errors and latency.
Two fake servers, one of which refuses a request (what a real server does not do on
demand)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from helpers.fake_openai_server import FakeOpenAIServer
from helpers.pilot import until
from lctui.core.types import ModelSpec
from lctui.engine import RunRequest
from lctui.tasks import select_tasks
from lctui.tui.app import LctuiApp
from lctui.tui.screens.run import RunScreen
from lctui.tui.screens.runs import RunsScreen

CHUNKS = ["The special ", "number is ", "42", "."]


pytestmark = pytest.mark.usefixtures("blank_home")  # a blank home screen


async def _live(app: LctuiApp, request: RunRequest) -> RunScreen:
    """Start `request` through the app and return its live view."""
    app.start_run(request)
    screen = app.screen
    assert isinstance(screen, RunScreen)
    return screen


def _painted(widget: Static) -> str:
    return "\n".join(strip.text for strip in widget.render_lines(widget.size.region))


async def test_the_run_screen_shows_each_servers_share_and_errors(
    make_app: Any, tmp_path: Path
) -> None:
    with FakeOpenAIServer("m", CHUNKS) as one, FakeOpenAIServer("m", CHUNKS, fail=[2]) as two:
        spec = ModelSpec(
            "spread",
            "openai",
            params={"base_url": [one.base_url, two.base_url], "model": "m", "max_retries": 0},
        )
        request = RunRequest(
            models=[spec], tasks=select_tasks("niah_single_1"), lengths=[1024], n=4
        )
        app = make_app()
        async with app.run_test(size=(120, 30)) as pilot:
            run = await _live(app, request)
            await until(pilot, lambda: not run.run.running)
            await pilot.pause(0.3)
            panel = run.query_one("#run-servers", Static)
            assert panel.display
            lines = _painted(panel).splitlines()
            # The Runs screen names them under the table for the highlighted run.
            await pilot.press("G")
            await until(pilot, lambda: isinstance(app.screen, RunsScreen))
            await pilot.pause()
            detail = _painted(app.screen.query_one("#runs-detail", Static))
    for shown in (lines, detail.splitlines()):
        # The server's line (the last error, which names its URL too, has no share).
        first = next(line for line in shown if f"127.0.0.1:{one.port} " in line)
        second = next(line for line in shown if f"127.0.0.1:{two.port} " in line)
        assert "50%" in first and " 0 err" in first
        assert "50%" in second and " 1 err" in second and "lat " in second


async def test_one_server_shows_no_servers_panel(make_app: Any) -> None:
    with FakeOpenAIServer("m", CHUNKS) as one:
        spec = ModelSpec("single", "openai", params={"base_url": one.base_url, "model": "m"})
        request = RunRequest(
            models=[spec], tasks=select_tasks("niah_single_1"), lengths=[1024], n=2
        )
        app = make_app()
        async with app.run_test(size=(120, 30)) as pilot:
            run = await _live(app, request)
            await until(pilot, lambda: not run.run.running)
            await pilot.pause(0.3)
            assert run.state.servers["single"][0].requests == 2  # told, not shown
            assert not run.query_one("#run-servers", Static).display
