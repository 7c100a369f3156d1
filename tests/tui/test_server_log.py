"""The server log panel follows a supervised process's output (a real child process)."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult

from lctui.backends import vllm_server
from lctui.backends.vllm_server import ServerProcess
from lctui.core.types import ModelSpec
from lctui.engine import RunRequest
from lctui.tasks import select_tasks
from lctui.tui.screens.run import RunScreen
from lctui.tui.widgets.server_log import ServerLogPanel

# Prints a few lines, then more after a pause, like a server that starts and then logs.
_SCRIPT = (
    "import sys, time\n"
    "for i in range(3): print(f'start {i}', flush=True)\n"
    "time.sleep(0.6)\n"
    "for i in range(2): print(f'later {i}', flush=True)\n"
    "time.sleep(30)\n"
)


class _LogApp(App[None]):
    def __init__(self, process: ServerProcess | None) -> None:
        super().__init__()
        self.process = process

    def compose(self) -> ComposeResult:
        yield ServerLogPanel("m", lookup=lambda name: self.process)


async def test_the_panel_shows_new_lines_as_the_process_writes_them(tmp_path: Path) -> None:
    process = ServerProcess("m", [sys.executable, "-c", _SCRIPT], tmp_path / "m.log")
    app = _LogApp(None)
    async with app.run_test(size=(80, 24)) as pilot:
        panel = app.query_one(ServerLogPanel)
        await pilot.pause(0.6)
        assert panel.lines == ["waiting for the vLLM server of m to start…"]
        process.start()
        app.process = process
        try:
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline and "later 1" not in panel.lines:
                await pilot.pause(0.2)
        finally:
            process.stop()
    assert panel.lines[1] == f"log file: {tmp_path / 'm.log'}"
    assert panel.lines[2:] == ["start 0", "start 1", "start 2", "later 0", "later 1"]
    assert (tmp_path / "m.log").read_text().splitlines() == panel.lines[2:]
    assert process.exit_code() is not None  # stopped, well before its 30 s sleep


# Stands in for `vllm serve` of a checkpoint that does not exist: a few lines of log,
# then an exit while starting. A real server takes minutes on 2 cores to get as far
# (importing vLLM); tests/integration/test_vllm_server_kind.py starts real ones.
_CANNOT_START = (
    "import sys\n"
    "print('INFO vLLM API server (stand-in) starting', flush=True)\n"
    "print('INFO model: ' + sys.argv[1], flush=True)\n"
    "print('Traceback (most recent call last):', flush=True)\n"
    "print('OSError: ' + sys.argv[1] + ' is not a local folder', file=sys.stderr, flush=True)\n"
    "raise SystemExit(1)\n"
)


async def test_the_live_screen_shows_the_log_of_a_stand_in_vllm_server_that_cannot_start(
    make_app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The vllm-server kind's server, asked for a checkpoint that does not exist, exits
    while starting, and the run screen shows its log next to the failure."""

    def stand_in(spec: ModelSpec, checkpoint: str, served: str, port: int) -> list[str]:
        return [sys.executable, "-c", _CANNOT_START, checkpoint]

    monkeypatch.setattr(vllm_server, "server_command", stand_in)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # the missing model must not be fetched
    spec = ModelSpec("broken-server", "vllm-server", path=str(tmp_path / "no-such-model"))
    request = RunRequest(models=[spec], tasks=select_tasks("vt"), lengths=[1024], n=1)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.start_run(request)
        run = app.screen
        assert isinstance(run, RunScreen)
        deadline = time.monotonic() + 240
        while run.run.running and time.monotonic() < deadline:
            await pilot.pause(0.5)
        await pilot.pause(0.6)  # one more poll of the panel
        panel = run.query_one(ServerLogPanel)
        assert run.run.failure is not None and "exited with code" in run.run.failure
        assert any(line.startswith("log file: ") for line in panel.lines)
        assert len(panel.lines) > 3  # the server's own lines, not only ours
