"""Driving the Textual app through its Pilot: wait for workers, poll for a condition,
read a widget's painted lines or what the screen shows where it sits, open the
inspector, type keys as one terminal read."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from textual._xterm_parser import XTermParser
from textual.app import App
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget
from textual.worker import WorkerCancelled

from lctui.tui.app import LctuiApp
from lctui.tui.screens.inspector import InspectorScreen
from lctui.tui.screens.launch import LaunchScreen


async def open_launch(pilot: Pilot[Any]) -> LaunchScreen:
    """The launch screen, opened with ctrl+n."""
    await pilot.press("ctrl+n")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, LaunchScreen)
    return screen


def type_in_one_read(pilot: Pilot[Any], keys: str) -> None:
    """Send `keys` (terminal bytes as text: "\x7f" is backspace) as the terminal driver
    does after one read: parsed, every event posted to the app before it handles any.
    `pilot.press` waits for the app to go idle after each key, which hides reordering;
    a paste or fast typing over SSH arrives like this."""
    driver = pilot.app._driver
    assert driver is not None
    for event in XTermParser().feed(keys):
        driver.process_message(event)


async def settle(pilot: Pilot[Any]) -> None:
    """Wait until workers and the messages they post are all handled. A worker cancelled
    meanwhile counts as done: on a loaded machine the results screen's next poll (every
    2 s) replaces one still running, which is the app working as meant."""
    for _ in range(10):
        with contextlib.suppress(WorkerCancelled):
            await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        if not any(worker.is_running for worker in pilot.app.workers):
            return


async def settle_each_worker(pilot: Pilot[Any]) -> None:
    """Wait until every worker (queries, the re-scoring) and its messages are done,
    waiting on each running worker in turn (a cancelled one counts as done)."""
    for _ in range(50):
        running = [worker for worker in pilot.app.workers if worker.is_running]
        for worker in running:
            with contextlib.suppress(WorkerCancelled):
                await worker.wait()
        await pilot.pause()
        if not running and not any(worker.is_running for worker in pilot.app.workers):
            return


async def until(pilot: Pilot[Any], check: Callable[[], bool], timeout: float = 30.0) -> None:
    """Poll the app until `check` holds (bounded, so a hang fails instead of blocking)."""
    for _ in range(int(timeout / 0.05)):
        if check():
            return
        await pilot.pause(0.05)
    raise AssertionError("timed out waiting for the app")


async def open_inspector(pilot: Pilot[Any], gid: str) -> InspectorScreen:
    await settle(pilot)
    app = pilot.app
    assert isinstance(app, LctuiApp)
    app.open_generation(gid)
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, InspectorScreen)
    assert screen.record is not None
    return screen


def rendered(widget: Any) -> list[str]:
    """The widget's visible lines as plain text (with its border, if it has one)."""
    strips = widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))
    return ["".join(segment.text for segment in strip) for strip in strips]


def on_screen(app: App[Any], widget: Widget) -> list[str]:
    """What the terminal shows where `widget` is laid out: the screen's lines within
    its region, whatever covers or clips it (a widget cut short by its container shows
    the container's neighbours there)."""
    strips = app.screen._compositor.render_strips()
    region = widget.region
    return [
        "".join(segment.text for segment in strip.crop(region.x, region.right))
        for strip in strips[region.y : region.bottom]
    ]
