"""A gold run slow enough for a test to act while it goes (the live screen, the Runs
screen, the SQL console beside a running writer)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

from textual.pilot import Pilot

from helpers.pilot import until
from lctui.backends import builtin_models
from lctui.backends.gold import GoldBackend
from lctui.core.types import Chunk, ModelSpec, Request
from lctui.engine import RunRequest
from lctui.tasks import select_tasks
from lctui.tui.app import LctuiApp
from lctui.tui.screens.run import RunScreen

GOLD = next(m for m in builtin_models() if m.name == "gold")
# The tui conftest's template holds gold runs of niah_single_1, vt, json_kv at 1k/2k,
# seed 0; these tasks are not in it, so a run has work to do.
FRESH_TASKS = "niah_single_2,niah_multikey_1"


class SlowGold(GoldBackend):
    """Gold answers a word every `delay` seconds, one request at a time, so a test can
    act while a run is going (and an error every `fail_every`-th request, if set)."""

    def __init__(self, delay: float = 0.05, fail_every: int = 0) -> None:
        super().__init__()
        self.max_concurrency = 1
        self.delay = delay
        self.fail_every = fail_every
        self.calls = 0

    async def stream(self, request: Request) -> AsyncIterator[Chunk]:
        self.calls += 1
        if self.fail_every and self.calls % self.fail_every == 0:
            raise ConnectionError("connection dropped by the fake")
        async for chunk in super().stream(request):
            await asyncio.sleep(self.delay)
            yield chunk


def loader_of(backend: Any) -> Callable[[ModelSpec, str | None], Any]:
    """A run's loader that hands out `backend` whatever model is asked for."""
    return lambda spec, tokenizer: backend


def gold_request(n: int = 2, seed: int = 0, tasks: str = FRESH_TASKS) -> RunRequest:
    return RunRequest(models=[GOLD], tasks=select_tasks(tasks), lengths=[1024], n=n, seed=seed)


async def start_slow_run(
    app: LctuiApp, pilot: Pilot[Any], delay: float, *, n: int = 4, seed: int = 0
) -> RunScreen:
    """A gold run of 2 x `n` examples answering a word every `delay` seconds, started
    through the app (its run manager) and shown in its live view, once one started."""
    run = app.start_run(gold_request(n=n, seed=seed), loader=loader_of(SlowGold(delay)))
    await until(pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.run is run)
    await until(pilot, lambda: run.state.started >= 1)
    screen = app.screen
    assert isinstance(screen, RunScreen)
    return screen
