"""The live view's statistics are true (issue 24): elapsed never goes back (it went from
230.6 s to 204.9 s when a run finished: the engine's time since its plan replaced the
view's time since Start), time to first token is unknown until the focused model's
first text (gold's instant answers showed `ttft 0.00 s` beside a model that had not
answered; a viewer's replay stamped every event at once, which read as 0 too), and a
run that has ended shows its mean rate, never the 0 of an idle window.

Real engine and DuckDB with the gold backend; where a test needs a model that takes a
while to load or to answer, gold is slowed (a loader that waits, as loading a real
checkpoint does; SlowGold answering a word a minute)."""

from __future__ import annotations

import re
import time
from dataclasses import replace
from typing import Any

import pytest
from textual.widgets import Static

from helpers.pilot import until
from helpers.slow_run import GOLD, SlowGold, loader_of
from helpers.store_factories import make_example, make_generation, make_score
from lctui.backends.gold import GoldBackend
from lctui.core.events import (
    CellKey,
    ChunkReceived,
    ExampleScored,
    ExampleStarted,
    GenerationFinished,
    RunFinished,
    RunPlanned,
)
from lctui.core.formatting import per_second
from lctui.core.types import ModelSpec
from lctui.engine import RunRequest
from lctui.tasks import select_tasks
from lctui.tui.screens.run import RunScreen
from lctui.tui.state.run_progress import RunState

pytestmark = pytest.mark.usefixtures("blank_home")

LOAD_S = 1.5
ELAPSED = re.compile(r"elapsed (\d+\.\d) s")


def _timings(screen: RunScreen) -> str:
    screen._stats_at = 0.0
    screen.tick()
    return str(screen.query_one("#run-timings", Static).render())


async def test_elapsed_never_goes_back_when_the_run_ends(make_app: Any) -> None:
    """A model that takes LOAD_S to load (a loader that waits): the view counts from
    Start, and the end must not switch to the engine's time since its plan."""

    def slow_loader(spec: ModelSpec, tokenizer: str | None) -> GoldBackend:
        time.sleep(LOAD_S)
        return SlowGold(delay=0.02)

    app = make_app()
    request = RunRequest([GOLD], select_tasks("niah_single_2"), [1024], n=3)
    async with app.run_test(size=(100, 30)) as pilot:
        run = app.start_run(request, loader=slow_loader)
        await until(pilot, lambda: isinstance(app.screen, RunScreen))
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RunScreen)
        shown: list[float] = []
        while run.running:
            found = ELAPSED.search(_timings(screen))
            assert found is not None
            shown.append(float(found.group(1)))
            await pilot.pause(0.05)
        await pilot.pause()
        final = ELAPSED.search(_timings(screen))
        assert final is not None and run.state.finished is not None
        shown.append(float(final.group(1)))
        assert shown == sorted(shown), shown
        assert shown[-1] >= LOAD_S  # loading is part of the run's time


async def test_ttft_is_unknown_until_the_focused_models_first_text(make_app: Any) -> None:
    """Gold answers at once; the focused model (slowed to a word a minute) has not
    answered yet: its time to first token is unknown, whatever gold's is."""
    slow = ModelSpec(name="slow-model", backend="gold", reference=True)
    backends = {"gold": GoldBackend(), "slow-model": SlowGold(delay=60.0)}

    def loader(spec: ModelSpec, tokenizer: str | None) -> GoldBackend:
        return backends[spec.name]

    app = make_app()
    request = RunRequest([GOLD, slow], select_tasks("niah_single_2"), [1024], n=2)
    async with app.run_test(size=(100, 30)) as pilot:
        run = app.start_run(request, loader=loader)
        await until(pilot, lambda: isinstance(app.screen, RunScreen))
        screen = app.screen
        assert isinstance(screen, RunScreen)
        state = run.state

        def waiting_on_slow() -> bool:
            screen.tick()
            focused = state.streams.get(run.focus_id or "")
            return state.done == 2 and focused is not None and focused.cell.model == "slow-model"

        await until(pilot, waiting_on_slow)
        timings = _timings(screen)
        assert "ttft —" in timings, timings
        assert state.model_ttft("gold") is not None  # gold's is known, and near 0


def test_a_replayed_stream_has_no_time_to_first_token_until_the_engine_says() -> None:
    """A viewer's replay stamps every event at one moment: a stream's text in it says
    nothing of when its first token came (it read as 0.00 s)."""
    state = RunState([], [], [])
    cell = CellKey("m", "t", 1024)
    example = make_example()
    state.replay(
        50.0,
        [
            RunPlanned("r", {cell: 1}, {}),
            ExampleStarted(cell, example, "g1"),
            ChunkReceived(cell, "g1", "The magic", 2),
        ],
    )
    assert state.mean_ttft is None and state.model_ttft("m") is None
    generation = replace(make_generation(example, generation_id="g1"), ttft_s=1.75)
    state.apply(51.0, GenerationFinished(cell, generation))
    assert state.model_ttft("m") == pytest.approx(1.75)


def test_a_run_that_has_ended_shows_its_mean_rate() -> None:
    """40 tokens over the 5 s it generated: 8 tok/s, long after its last chunk."""
    state = RunState(["m"], ["t"], [1024])
    cell = CellKey("m", "t", 1024)
    example = make_example()
    state.apply(100.0, RunPlanned("r", {cell: 1}, {}))
    state.apply(100.5, ExampleStarted(cell, example, "g1"))
    for second in range(1, 5):
        state.apply(100.0 + second, ChunkReceived(cell, "g1", "word ", 10))
    generation = make_generation(example, generation_id="g1")
    state.apply(104.5, ExampleScored(cell, generation, make_score(1.0)))
    assert state.tokens_per_s(104.5) == pytest.approx(40 / 4.5)  # the window, going
    state.apply(105.0, RunFinished("r", 1, 0, False, 5.0))
    for later in (105.0, 200.0, 10_000.0):
        assert state.tokens_per_s(later) == pytest.approx(8.0)
        assert state.examples_per_s(later) == pytest.approx(0.2)


def test_a_slow_runs_mean_reads_as_its_tenths_not_0() -> None:
    """smollm2-135m at 4k on a busy CPU ended at 0.3 tok/s, shown as `tok/s 0`."""
    state = RunState(["m"], ["t"], [4096])
    cell = CellKey("m", "t", 4096)
    state.apply(0.0, RunPlanned("r", {cell: 1}, {}))
    state.apply(0.0, ExampleStarted(cell, make_example(), "g1"))
    state.apply(40.0, ChunkReceived(cell, "g1", "8372225", 12))
    state.apply(40.0, RunFinished("r", 1, 0, False, 40.0))
    assert per_second(state.tokens_per_s(500.0)) == "0.3"
    assert [per_second(r) for r in (0.04, 9.94, 9.96, 1234.4)] == ["0.0", "9.9", "10", "1,234"]


async def test_a_finished_runs_view_shows_its_mean_tok_s(make_app: Any) -> None:
    app = make_app()
    request = RunRequest([GOLD], select_tasks("niah_single_2"), [1024], n=2)
    async with app.run_test(size=(100, 30)) as pilot:
        run = app.start_run(request, loader=loader_of(SlowGold(delay=0.02)))
        await until(pilot, lambda: isinstance(app.screen, RunScreen) and not run.running)
        screen = app.screen
        assert isinstance(screen, RunScreen)
        timings = _timings(screen)
        rate = run.state.tokens_per_s(time.monotonic() + 3600)
        assert rate is not None and rate > 0
        assert f"tok/s {per_second(rate)}" in timings, timings
