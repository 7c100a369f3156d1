"""What the live run screen shows, kept apart from Textual: cells, streams and rates.

The engine calls its sink synchronously on the event loop, so the sink (`EventBuffer`)
only appends `(time, event)` pairs; the screen drains the buffer on a timer and
applies the events here. Drawing never runs inside the engine's call, however slow
the terminal is. Rates and times to first token are measured as every display measures
them (core/measures.py); a viewer's replay of a run of another process (`replay`)
counts in the means but in no window, and says nothing of when first tokens came.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
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
from lctui.core.measures import FirstTokens, Throughput
from lctui.core.types import ServerShare


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
        self.rates = Throughput()
        # Time to first token per model: as seen here when a generation's first text
        # arrives (so it shows while the stream goes on), then the engine's own measure.
        self.first_tokens = FirstTokens[str]()
        self.finished: RunFinished | None = None
        self.finished_at: float | None = None  # when RunFinished came (not in a replay)
        self.store_stalled: StoreStalled | None = None  # until a write succeeds again
        self.store_recovered: StoreRecovered | None = None  # the last recovery
        # Per model served from base URLs: each server's share, errors, latency so far.
        self.servers: dict[str, tuple[ServerShare, ...]] = {}
        self.paused = False  # as the engine last said (RunPaused)
        self.version = 0  # bumped by every event that changes the grid or the counts
        self._replaying = False

    # -- events -------------------------------------------------------------------------

    def replay(self, at: float, events: Iterable[Event]) -> None:
        """A viewer's replay of a run so far, all stamped `at` (the run's plan): its
        tokens and examples count in the means but in no recent window, its streams'
        first tokens are unknown until the engine's measure comes, and its end stops
        no clock (the viewer learns of it now, not then)."""
        self._replaying = True
        try:
            for event in events:
                self.apply(at, event)
        finally:
            self._replaying = False

    def end(self, at: float) -> None:
        """The run is over (however it ended, RunFinished or not): its means from now."""
        self.rates.end(at)

    def apply(self, at: float, event: Event) -> None:
        if isinstance(event, ChunkReceived):
            self._chunk(at, event)  # the common case first: thousands per second
        elif isinstance(event, ExampleStarted):
            self._started(at, event)
        elif isinstance(event, GenerationFinished):
            generation = event.generation
            gid = generation.generation_id
            self.first_tokens.measured(event.cell.model, gid, generation.ttft_s)
            view = self.streams.get(gid)
            if view is not None:
                view.ttft_s = generation.ttft_s
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
            planned = self.rates.planned_at
            # The engine's own measure of the time it generated, also in a replay.
            self.rates.end(planned + event.elapsed_s if planned is not None else at)
            if not self._replaying:
                self.finished_at = at
            self.version += 1
        elif isinstance(event, RunPaused):
            self.paused = event.paused
            self.version += 1
        elif isinstance(event, EarlierResults):
            self._earlier(event)

    def _earlier(self, event: EarlierResults) -> None:
        """What finished before this viewer attached to a published run, as counts."""
        for key, tally in event.cells.items():
            cell = self.cell(key)
            cell.done += tally.done
            cell.errors += tally.errors
            cell.score_sum += tally.score_sum
            cell.scored += tally.scored
            self.done += tally.done
            self.errors += tally.errors
            self.started += tally.done + tally.errors
            self.rates.add_earlier(tally.output_tokens, tally.done + tally.errors)
            self.first_tokens.add(key.model, tally.ttft_sum, tally.ttft_n)
        self.last_error = self.last_error or event.last_error
        self.version += 1

    def _planned(self, at: float, event: RunPlanned) -> None:
        self.run_id = event.run_id
        self.planned = True
        self.planned_at = at
        self.rates.plan(at)
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
            if view.first_token_at is None and event.text and not self._replaying:
                view.first_token_at = at
                # Until the engine reports its own measure (when the example ends).
                view.ttft_s = at - view.started_at
                self.first_tokens.seen(event.cell.model, event.generation_id, view.ttft_s)
            view.version += 1
        self.rates.add_tokens(at, event.tokens)

    def _scored(self, at: float, event: ExampleScored) -> None:
        self.rates.add_finished(at)
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
        self.rates.add_finished(at)
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

    @property
    def output_tokens(self) -> int:
        return self.rates.output_tokens

    def tokens_per_s(self, now: float) -> float | None:
        """Output tokens per second over the last few seconds; the run's mean once it
        has ended (core/measures.py)."""
        return self.rates.tokens_per_s(now)

    @property
    def remaining(self) -> int:
        """Examples of this run not finished yet (running ones included)."""
        return max(0, self.to_do - self.done - self.errors)

    def examples_per_s(self, now: float) -> float | None:
        """Examples finished per second over the last minute; the run's mean once over."""
        return self.rates.examples_per_s(now)

    def eta_s(self, now: float) -> float | None:
        """Seconds until the run's last example finishes at the recent rate: 0 once
        none is left, None while nothing is planned or nothing has finished lately."""
        if not self.planned:
            return None
        return self.rates.eta_s(self.remaining, now)

    @property
    def mean_ttft(self) -> float | None:
        """Mean time to first token of the generations that have had one, those still
        streaming included (and those an attached viewer got as counts); None before."""
        return self.first_tokens.mean()

    def model_ttft(self, model: str) -> float | None:
        """The same, of one model's generations only."""
        return self.first_tokens.mean(model)

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
