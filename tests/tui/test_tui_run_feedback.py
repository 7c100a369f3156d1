"""The live view says what is happening: time to first token as soon as a stream's first
text arrives, what pausing does (no new example starts; those running finish), and every
way out of the app while a run goes asks before anything is lost (ctrl+q from any
screen, the palette's Quit; ctrl+c says which key quits). Real engine and DuckDB, the
gold model slowed so the test can act while a stream goes (helpers/slow_run.py)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from textual.widgets import Input, Static

from helpers.pilot import until
from helpers.slow_run import start_slow_run
from helpers.store_factories import make_example, make_generation
from lctui.core.events import CellKey, ChunkReceived, ExampleStarted, GenerationFinished
from lctui.tui.app import LctuiApp
from lctui.tui.screens.launch import LaunchScreen
from lctui.tui.screens.quit_runs import QuitRunsScreen
from lctui.tui.state.run_progress import RunState
from lctui.tui.widgets.stream_panel import StreamPanel

SIZES = [(80, 24), (120, 40)]
SIZE_IDS = ["80x24", "120x40"]


pytestmark = pytest.mark.usefixtures("blank_home")  # a blank home screen


def _notified(app: LctuiApp) -> str:
    return " ".join(f"{n.title}: {n.message}" for n in app._notifications)


def test_ttft_counts_from_the_first_text_and_the_engines_measure_replaces_it() -> None:
    state = RunState(["m"], ["t"], [1024])
    cell = CellKey("m", "t", 1024)
    example = make_example()
    state.apply(10.0, ExampleStarted(cell, example, "g1"))
    state.apply(10.5, ChunkReceived(cell, "g1", "", 0, restart=True))  # no text yet
    assert state.mean_ttft is None
    state.apply(11.25, ChunkReceived(cell, "g1", "The", 1))
    assert state.mean_ttft == pytest.approx(1.25)
    assert state.streams["g1"].ttft_s == pytest.approx(1.25)
    generation = replace(make_generation(example, generation_id="g1"), ttft_s=1.2)
    state.apply(12.0, GenerationFinished(cell, generation))
    assert state.mean_ttft == pytest.approx(1.2)  # one value per generation, the engine's


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_ttft_shows_a_number_while_the_first_stream_goes(
    make_app: Any, size: tuple[int, int]
) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        view = await start_slow_run(app, pilot, delay=0.3, n=2)
        state = view.state
        await until(pilot, lambda: any(s.text and not s.finished for s in state.streams.values()))
        assert not state.done, "the first example ended before the test could look"
        view._stats_at = 0.0
        view.tick()
        timings = str(view.query_one("#run-timings", Static).render())
        assert "ttft 0." in timings or "ttft 1." in timings, timings
        assert "ttft —" not in timings


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_pause_says_that_new_examples_wait_and_running_ones_finish(
    make_app: Any, size: tuple[int, int]
) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        view = await start_slow_run(app, pilot, delay=0.1, n=3)
        await until(pilot, lambda: view.state.in_flight == 1)
        await pilot.press("p")
        said = "Run paused: No new example starts until p resumes; the one running finishes"
        assert said in _notified(app)  # never "the 1 running finish"
        assert "no new example starts; the one running finishes (p resumes)" in view.status_line()
        panel = view.query_one(StreamPanel)
        if not view.state.streams[view.run.focus_id or ""].finished:
            assert "paused: this one finishes" in str(panel.border_subtitle)
        await until(pilot, lambda: view.state.in_flight == 0)
        started = view.state.started
        assert "none is running (p resumes)" in view.status_line()
        await pilot.pause(0.5)
        assert view.state.started == started, "no example may start while paused"
        await pilot.press("p")
        assert "Run resumed" in _notified(app)
        await until(pilot, lambda: view.state.started > started)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_every_way_out_asks_while_a_run_goes(make_app: Any, size: tuple[int, int]) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        run = (await start_slow_run(app, pilot, delay=0.2, n=50)).run

        async def asked() -> None:
            await until(pilot, lambda: isinstance(app.screen, QuitRunsScreen))
            await pilot.press("escape")
            await until(pilot, lambda: not isinstance(app.screen, QuitRunsScreen))
            assert app.is_running and run.running and not run.cancel_asked

        await pilot.press("ctrl+q")  # from the live view
        await asked()
        await pilot.press("ctrl+n")  # from the launch screen, typing in a field
        await until(pilot, lambda: isinstance(app.screen, LaunchScreen))
        app.screen.query_one("#n", Input).focus()
        await pilot.press("ctrl+q")
        await asked()
        await pilot.press("ctrl+p")  # the palette's Quit
        await pilot.press(*"Quit", "enter")
        await asked()
        await pilot.press("escape")  # back to the live view (in a field, ctrl+c copies)
        await pilot.press("ctrl+c")  # Textual's reflex key: it says which key quits
        await pilot.pause()
        assert "Press ctrl+q to quit" in _notified(app).replace("[b]", "").replace("[/b]", "")
        assert app.is_running and run.running
