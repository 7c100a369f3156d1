"""What the live run screen shows, kept apart from Textual: cells, streams and rates.

The engine calls its sink synchronously on the event loop, so the sink (`EventBuffer`)
only appends `(time, event)` pairs; the screen drains the buffer on a timer and
applies the events here. Drawing never runs inside the engine's call, however slow
the terminal is.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from lctui.core.events import (
    CellKey,
    ChunkReceived,
    EarlierResults,
    Event,
    ExampleFailed,
    ExampleScored,
    ExampleStarted,
    GenerationFinished,
    ItemsSkipped,
    RunFinished,
    RunPaused,
    RunPlanned,
    ServersReported,
    StoreRecovered,
    StoreStalled,
)
from lctui.core.types import ServerShare

RATE_WINDOW_S = 5.0  # tok/s is measured over the last few seconds, not the whole run
# Examples finish seconds apart: their rate (and the ETA from it) is taken over a minute.
FINISH_WINDOW_S = 60.0


class EventBuffer:
    """The engine's sink: appends and returns; `drain` hands the batch to the screen."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._events: list[tuple[float, Event]] = []

    def __call__(self, event: Event) -> None:
        self._events.append((self._clock(), event))

    def __len__(self) -> int:
        return len(self._events)

    def drain(self) -> list[tuple[float, Event]]:
        events, self._events = self._events, []
        return events


@dataclass
class CellProgress:
    """One task x length cell of one model. Errors are counted apart, never as zeros."""

    total: int = 0  # examples of this run plus those already stored
    stored: int = 0  # already in the database before the run (resume)
    done: int = 0  # scored in this run (ok or unparsed)
    errors: int = 0
    running: int = 0
    score_sum: float = 0.0
    scored: int = 0  # scores with a value; errors have none

    @property
    def finished(self) -> int:
        return self.stored + self.done + self.errors

    @property
    def mean(self) -> float | None:
        return self.score_sum / self.scored if self.scored else None


@dataclass
class StreamView:
    """One generation as the stream panel shows it."""

    generation_id: str
    cell: CellKey
    index: int
    gold: tuple[str, ...]
    question: str
    started_at: float
    parts: list[str] = field(default_factory=list)
    tokens: int = 0
    first_token_at: float | None = None
    status: str = "running"  # running | ok | unparsed | error
    score: float | None = None
    error: str | None = None
    ttft_s: float | None = None
    version: int = 0  # bumped on every change, so the panel redraws only when needed

    @property
    def text(self) -> str:
        return "".join(self.parts)

    @property
    def finished(self) -> bool:
        return self.status != "running"


class RunState:
    """Applies engine events; read by the grid, the stream panel and the stats line."""

    def __init__(self, models: Sequence[str], tasks: Sequence[str], lengths: Sequence[int]):
        self.models = list(models)
        self.tasks = list(tasks)
        self.lengths = list(lengths)
        self.cells: dict[CellKey, CellProgress] = {}
        self.streams: dict[str, StreamView] = {}
        self.order: list[str] = []  # generation ids in start order
        self.run_id: str | None = None
        self.planned = False
        self.planned_at: float | None = None
        self.to_do = 0  # examples this run has to generate
        self.skipped = 0
        self.started = 0
        self.done = 0
        self.errors = 0
        self.last_error: str | None = None
        self.output_tokens = 0
        # Time to first token per generation: as seen here when its first text arrives
        # (so it shows while the stream goes on), then the engine's own measure.
        self.ttfts: dict[str, float] = {}
        self.finished: RunFinished | None = None
        self.store_stalled: StoreStalled | None = None  # until a write succeeds again
        self.store_recovered: StoreRecovered | None = None  # the last recovery
        # Per model served from base URLs: each server's share, errors, latency so far.
        self.servers: dict[str, tuple[ServerShare, ...]] = {}
        self.paused = False  # as the engine last said (RunPaused)
        # TTFTs of generations an attached viewer got as counts (EarlierResults): sum, n.
        self._earlier_ttft = (0.0, 0)
        self.version = 0  # bumped by every event that changes the grid or the counts
        self._recent: deque[tuple[float, int]] = deque()  # (time, tokens) of recent chunks
        self._first_chunk_at: float | None = None
        self._last_chunk_at: float | None = None
        self._finishes: deque[float] = deque()  # when each recent example finished

    # -- events -------------------------------------------------------------------------

    def apply(self, at: float, event: Event) -> None:
        if isinstance(event, ChunkReceived):
            self._chunk(at, event)  # the common case first: thousands per second
        elif isinstance(event, ExampleStarted):
            self._started(at, event)
        elif isinstance(event, GenerationFinished):
            generation = event.generation
            view = self.streams.get(generation.generation_id)
            if view is not None and generation.ttft_s is not None:
                view.ttft_s = generation.ttft_s
                self.ttfts[generation.generation_id] = generation.ttft_s
        elif isinstance(event, ExampleScored):
            self._scored(at, event)
        elif isinstance(event, ExampleFailed):
            self._failed(at, event)
        elif isinstance(event, StoreStalled):
            self.store_stalled = event
            self.version += 1
        elif isinstance(event, StoreRecovered):
            self.store_stalled, self.store_recovered = None, event
            self.version += 1
        elif isinstance(event, ServersReported):
            self.servers[event.model] = event.servers
            self.version += 1
        elif isinstance(event, RunPlanned):
            self._planned(at, event)
        elif isinstance(event, ItemsSkipped):
            self._skipped(event)
        elif isinstance(event, RunFinished):
            self.finished = event
            self.version += 1
        elif isinstance(event, RunPaused):
            self.paused = event.paused
            self.version += 1
        elif isinstance(event, EarlierResults):
            self._earlier(event)

    def _earlier(self, event: EarlierResults) -> None:
        """What finished before this viewer attached to a published run, as counts."""
        ttft_sum, ttft_n = self._earlier_ttft
        for key, tally in event.cells.items():
            cell = self.cell(key)
            cell.done += tally.done
            cell.errors += tally.errors
            cell.score_sum += tally.score_sum
            cell.scored += tally.scored
            self.done += tally.done
            self.errors += tally.errors
            self.started += tally.done + tally.errors
            self.output_tokens += tally.output_tokens
            ttft_sum, ttft_n = ttft_sum + tally.ttft_sum, ttft_n + tally.ttft_n
        self._earlier_ttft = (ttft_sum, ttft_n)
        self.last_error = self.last_error or event.last_error
        self.version += 1

    def _planned(self, at: float, event: RunPlanned) -> None:
        self.run_id = event.run_id
        self.planned = True
        self.planned_at = at
        for key, count in event.cells.items():
            self.cell(key).total += count
            self.to_do += count
        for key, count in event.skipped.items():
            cell = self.cell(key)
            cell.total += count
            cell.stored += count
            self.skipped += count
        if not self.models:  # a run of another process: its plan names what it runs
            keys = [*event.cells, *event.skipped]
            self.models = list(dict.fromkeys(key.model for key in keys))
            self.tasks = list(dict.fromkeys(key.task for key in keys))
            self.lengths = sorted({key.length for key in keys})
        self.version += 1

    def _skipped(self, event: ItemsSkipped) -> None:
        """Planned as to do, found stored later (items are planned as the run goes)."""
        for key, count in event.skipped.items():
            cell = self.cell(key)
            cell.stored += count
            self.to_do -= count
            self.skipped += count
        self.version += 1

    def _started(self, at: float, event: ExampleStarted) -> None:
        example = event.example
        question = " ".join(example.question.split())
        view = StreamView(
            event.generation_id, event.cell, example.index, example.gold, question, at
        )
        self.streams[event.generation_id] = view
        self.order.append(event.generation_id)
        self.started += 1
        self.cell(event.cell).running += 1
        self.version += 1

    def _chunk(self, at: float, event: ChunkReceived) -> None:
        view = self.streams.get(event.generation_id)
        if view is not None:
            if event.restart:  # the backend retried: the text so far is void
                view.parts.clear()
                view.tokens = 0
            view.parts.append(event.text)
            view.tokens += event.tokens
            if view.first_token_at is None and event.text:
                view.first_token_at = at
                # Until the engine reports its own measure (when the example ends).
                view.ttft_s = at - view.started_at
                self.ttfts[event.generation_id] = view.ttft_s
            view.version += 1
        self.output_tokens += event.tokens
        if self._first_chunk_at is None:
            self._first_chunk_at = at
        self._last_chunk_at = at
        self._recent.append((at, event.tokens))

    def _finished_at(self, at: float) -> None:
        self._finishes.append(at)
        while self._finishes[0] < at - FINISH_WINDOW_S:  # only the window is kept
            self._finishes.popleft()

    def _scored(self, at: float, event: ExampleScored) -> None:
        self._finished_at(at)
        cell = self.cell(event.cell)
        cell.running = max(0, cell.running - 1)
        cell.done += 1
        self.done += 1
        if event.score.value is not None:
            cell.score_sum += event.score.value
            cell.scored += 1
        view = self.streams.get(event.generation.generation_id)
        if view is not None:
            view.status = event.score.status.value
            view.score = event.score.value
            view.version += 1
        self.version += 1

    def _failed(self, at: float, event: ExampleFailed) -> None:
        self._finished_at(at)
        cell = self.cell(event.cell)
        cell.running = max(0, cell.running - 1)
        cell.errors += 1
        self.errors += 1
        self.last_error = event.message
        view = self.streams.get(event.generation.generation_id)
        if view is not None:
            view.status = "error"
            view.error = event.message
            view.version += 1
        self.version += 1

    # -- reads --------------------------------------------------------------------------

    def cell(self, key: CellKey) -> CellProgress:
        progress = self.cells.get(key)
        if progress is None:
            progress = self.cells[key] = CellProgress()
        return progress

    @property
    def queue(self) -> int:
        """Examples of this run not started yet."""
        return max(0, self.to_do - self.started)

    @property
    def in_flight(self) -> int:
        return self.started - self.done - self.errors

    def tokens_per_s(self, now: float) -> float | None:
        """Output tokens per second over the last RATE_WINDOW_S seconds."""
        while self._recent and self._recent[0][0] < now - RATE_WINDOW_S:
            self._recent.popleft()
        if self._first_chunk_at is None:
            return None
        span = min(RATE_WINDOW_S, now - self._first_chunk_at)
        if span <= 0:
            return None
        return sum(tokens for _, tokens in self._recent) / span

    @property
    def average_tokens_per_s(self) -> float | None:
        """Output tokens per second between the first and the last chunk of the run."""
        if self._first_chunk_at is None or self._last_chunk_at is None:
            return None
        span = self._last_chunk_at - self._first_chunk_at
        return self.output_tokens / span if span > 0 else None

    @property
    def remaining(self) -> int:
        """Examples of this run not finished yet (running ones included)."""
        return max(0, self.to_do - self.done - self.errors)

    def examples_per_s(self, now: float) -> float | None:
        """Examples finished per second over the last FINISH_WINDOW_S seconds (since
        the run was planned, when that is shorter); None before the first finishes."""
        while self._finishes and self._finishes[0] < now - FINISH_WINDOW_S:
            self._finishes.popleft()
        if not self._finishes or self.planned_at is None:
            return None
        span = min(FINISH_WINDOW_S, now - self.planned_at)
        return len(self._finishes) / span if span > 0 else None

    def eta_s(self, now: float) -> float | None:
        """Seconds until the run's last example finishes at the recent rate: 0 once
        none is left, None while nothing is planned or nothing has finished lately."""
        if not self.planned:
            return None
        if not self.remaining:
            return 0.0
        rate = self.examples_per_s(now)
        return self.remaining / rate if rate else None

    @property
    def mean_ttft(self) -> float | None:
        """Mean time to first token of the generations that have had one, those still
        streaming included (and those an attached viewer got as counts)."""
        total, n = self._earlier_ttft
        n += len(self.ttfts)
        return (total + sum(self.ttfts.values())) / n if n else None

    @property
    def mean_score(self) -> float | None:
        scored = sum(c.scored for c in self.cells.values())
        total = sum(c.score_sum for c in self.cells.values())
        return total / scored if scored else None


def cycle(order: Sequence[str], current: str | None, step: int = 1) -> str | None:
    """The id `step` places after `current` in `order`, wrapping around."""
    if not order:
        return None
    if current not in order:
        return order[-1] if step < 0 else order[0]
    return order[(order.index(current) + step) % len(order)]
