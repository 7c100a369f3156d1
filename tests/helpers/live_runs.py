"""What the tests of published runs share: a slowed gold stand-in, a viewer's tally of
the events it read, waiting for a run's record, and real `lctui` processes."""

from __future__ import annotations

import asyncio
import re
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path

from lctui.backends.gold import GoldBackend
from lctui.core.events import (
    CellKey,
    ChunkReceived,
    EarlierResults,
    Event,
    ExampleFailed,
    ExampleScored,
    ExampleStarted,
    RunFinished,
    RunPaused,
    RunPlanned,
)
from lctui.core.run_record import RunRecord
from lctui.core.types import Chunk, Request
from lctui.engine.attach import AttachedRun, live_runs
from lctui.store.db import connect_waiting


class SlowGoldFake(GoldBackend):
    """Gold answers a word every `delay` seconds, `concurrency` requests at a time: a
    stand-in slow enough for a test to act while the run goes. While `gate` is clear,
    every stream stops after its next word, so a test can look at a frozen run."""

    def __init__(self, delay: float = 0.02, concurrency: int = 2) -> None:
        super().__init__()
        self.max_concurrency = concurrency
        self.delay = delay
        self.gate = asyncio.Event()
        self.gate.set()

    async def stream(self, request: Request) -> AsyncIterator[Chunk]:
        async for chunk in super().stream(request):
            await asyncio.sleep(self.delay)
            yield chunk
            await self.gate.wait()


@dataclass
class Tally:
    """A viewer's account of a run, from its events (EarlierResults folded in)."""

    cells: dict[CellKey, list[float]] = field(default_factory=dict)  # done, errors, sum
    started: int = 0
    texts: dict[str, str] = field(default_factory=dict)
    ended: set[str] = field(default_factory=set)  # generations scored or failed
    planned: int = 0
    paused: bool = False
    finished: RunFinished | None = None
    events: int = 0
    log: list[Event] = field(default_factory=list)  # every event, in order

    def __call__(self, event: Event) -> None:
        self.events += 1
        self.log.append(event)
        if isinstance(event, ChunkReceived):
            before = "" if event.restart else self.texts.get(event.generation_id, "")
            self.texts[event.generation_id] = before + event.text
        elif isinstance(event, ExampleStarted):
            self.started += 1
            self.texts.setdefault(event.generation_id, "")
        elif isinstance(event, ExampleScored | ExampleFailed):
            self.ended.add(event.generation.generation_id)
            counts = self.cells.setdefault(event.cell, [0, 0, 0.0])
            if isinstance(event, ExampleFailed):
                counts[1] += 1
            else:
                counts[0] += 1
                counts[2] += event.score.value or 0.0
        elif isinstance(event, EarlierResults):
            for cell, tally in event.cells.items():
                counts = self.cells.setdefault(cell, [0, 0, 0.0])
                counts[0] += tally.done
                counts[1] += tally.errors
                counts[2] += tally.score_sum
                self.started += tally.done + tally.errors
        elif isinstance(event, RunPlanned):
            self.planned = sum(event.cells.values())
        elif isinstance(event, RunPaused):
            self.paused = event.paused
        elif isinstance(event, RunFinished):
            self.finished = event

    @property
    def done(self) -> int:
        return int(sum(c[0] + c[1] for c in self.cells.values()))

    def counts(self) -> dict[CellKey, tuple[int, int, float]]:
        return {k: (int(v[0]), int(v[1]), round(v[2], 6)) for k, v in self.cells.items()}


def wait_until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)


async def until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.01)


# -- real processes ----------------------------------------------------------------------


def lctui(*args: str) -> list[str]:
    """The command line of the real `lctui` in this Python."""
    return [sys.executable, "-m", "lctui", *args]


def records() -> dict[str, RunRecord]:
    """The runs folder's records by run id, statuses as `lctui runs` says them."""
    return {r.run_id: r for r in live_runs()}


def wait_for_record(
    run_id: str, condition: Callable[[RunRecord], bool], timeout: float, what: str
) -> RunRecord:
    found: list[RunRecord] = []

    def check() -> bool:
        record = records().get(run_id)
        if record is not None and condition(record):
            found.append(record)
            return True
        return False

    wait_until(check, timeout, what)
    return found[0]


def stored_generations(db: Path) -> tuple[int, int, int]:
    """Rows of `generations`, their distinct keys, and results scored 1.0 (waiting while
    a run holds the file for a write)."""
    con = connect_waiting(db, read_only=True)
    try:
        counts = con.execute("SELECT count(*), count(DISTINCT gen_key) FROM generations")
        rows, keys = counts.fetchone() or (0, 0)
        perfect = con.execute("SELECT count(*) FROM results WHERE score = 1.0").fetchone()
    finally:
        con.close()
    return rows, keys, perfect[0] if perfect else 0


def run_id_in(output: str) -> str:
    """The run id `lctui run --detach` printed."""
    plain = re.sub(r"\x1b\[[0-9;]*m", "", output)  # a terminal's styles
    match = re.search(r"Run (\d{8}-\d{6}-[0-9a-f]{6}) started", plain)
    assert match, f"no run id in: {output}"
    return match.group(1)


class Viewer:
    """An AttachedRun read in a thread of its own: what arrived, and when (wall clock)."""

    def __init__(self, socket: str) -> None:
        self.tally = Tally()
        self.scored_at: dict[str, float] = {}
        self.ended_by: str | None = None
        self._thread = threading.Thread(target=asyncio.run, args=(self._read(socket),))
        self._thread.start()

    async def _read(self, socket: str) -> None:
        attached = await AttachedRun.connect(socket)
        async with attached:
            async for event in attached:
                if isinstance(event, ExampleScored | ExampleFailed):
                    self.scored_at[event.generation.generation_id] = time.time()
                self.tally(event)
        self.ended_by = attached.ended_by

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)
        assert not self._thread.is_alive(), "the viewer did not end"
