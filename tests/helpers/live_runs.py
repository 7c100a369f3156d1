"""What the tests of published runs share: a slowed gold stand-in, a viewer's tally of
the events it read, and waiting for a run's record or socket."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

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
from lctui.core.types import Chunk, Request


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

    def __call__(self, event: Event) -> None:
        self.events += 1
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
