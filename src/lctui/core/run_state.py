"""A run's events folded into its progress: the one place that reads each kind of event.

Every display of a run keeps a `RunProgress` and hands it each event with `apply`: the
TUI's live view and Runs screen (tui/state/run_progress.py), what a run publishes to its
viewers (engine/publish.py), `lctui run`'s rows (cli/progress.py) and `lctui attach`
(cli/attach.py). They differ in what they show, never in how they count; time and speed
are measured as core/measures.py measures them. `apply` has one branch per event type of
core/events.py (mypy checks that none is missing), so a new event is one edit here.

`at` is when a display got the event, on its monotonic clock. A viewer's replay of a run
so far (`replay`) is stamped at one moment: it counts in the means but in no recent
window, says nothing of when first tokens came, and stops no clock. `replay_events` is
the other way round: the events that bring a new viewer to a state, with the finished
generations beyond `keep_finished` told as counts (EarlierResults).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NoReturn

from lctui.core.events import (
    CellKey,
    CellTally,
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
from lctui.core.statuses import RUNNING
from lctui.core.types import Example, Generation, ScoreStatus, ServerShare
from lctui.core.wire import slim_example

FAILED_STREAM = ScoreStatus.ERROR.value  # a stream's status once its request failed


@dataclass
class CellProgress:
    """One model x task x length cell. Errors are counted apart, never as zeros."""

    to_do: int = 0  # examples this run generates (those found stored later taken out)
    stored: int = 0  # already in the database before the run (resume)
    done: int = 0  # scored in this run (ok or unparsed)
    errors: int = 0
    running: int = 0
    score_sum: float = 0.0
    scored: int = 0  # scores with a value; errors have none
    output_tokens: int = 0  # of the generations that finished
    # Those of the finished generations that had a first token, and their latency after it.
    decode_tokens: int = 0
    decode_s: float = 0.0

    @property
    def total(self) -> int:
        """Examples of this run plus those already stored."""
        return self.to_do + self.stored

    @property
    def finished(self) -> int:
        return self.stored + self.done + self.errors

    @property
    def mean(self) -> float | None:
        return self.score_sum / self.scored if self.scored else None

    @property
    def decode_rate(self) -> float | None:
        """Output tokens per second of decoding (after the first token); None before."""
        return self.decode_tokens / self.decode_s if self.decode_s > 0 else None


@dataclass
class Stream:
    """One generation from its start: its text so far, and how it ended."""

    generation_id: str
    cell: CellKey
    index: int
    gold: tuple[str, ...]
    question: str  # on one line
    started_at: float
    example: Example | None = None  # slim (core.wire.slim_example): never the context
    parts: list[str] = field(default_factory=list)
    tokens: int = 0
    first_token_at: float | None = None
    ttft_s: float | None = None  # as seen at its first text, then the engine's measure
    status: str = RUNNING  # running | ok | unparsed | error
    score: float | None = None
    error: str | None = None
    told: GenerationFinished | None = None
    outcome: ExampleScored | ExampleFailed | None = None
    version: int = 0  # bumped on every change, so a view redraws only when needed

    @property
    def text(self) -> str:
        return "".join(self.parts)

    @property
    def finished(self) -> bool:
        return self.status != RUNNING


class RunProgress:
    """What a run's events say of it so far (see the module's docstring).

    `keep_finished`: how many finished generations are kept whole in `streams` (the
    oldest beyond go, counted in `earlier`); None keeps them all.
    """

    def __init__(self, keep_finished: int | None = None) -> None:
        self.keep_finished = keep_finished
        self.replaying = False  # set by `replay`
        self.run_id: str | None = None
        self.plan: RunPlanned | None = None
        self.planned_at: float | None = None
        self.found_stored: dict[CellKey, int] = {}  # moved to stored after the plan
        self.cells: dict[CellKey, CellProgress] = {}
        self.to_do = 0  # examples this run has to generate
        self.skipped = 0  # found stored
        self.started = 0
        self.done = 0
        self.errors = 0
        self.last_error: str | None = None
        self.streams: dict[str, Stream] = {}  # in start order
        self.ended: deque[str] = deque()  # the finished ones of `streams`, in finish order
        # Finished generations not kept whole, as counts (what an attached viewer was
        # told as counts, and what left `streams`), and the last error among them.
        self.earlier: dict[CellKey, CellTally] = {}
        self.earlier_error: str | None = None
        self.rates = Throughput()
        # Per cell: as seen at a generation's first text (so it shows while the stream
        # goes on), then the engine's own measure.
        self.first_tokens = FirstTokens[CellKey]()
        self.finished: RunFinished | None = None
        self.finished_at: float | None = None  # when RunFinished came (not in a replay)
        self.stalled: StoreStalled | None = None  # until a write succeeds again
        self.recovered: StoreRecovered | None = None  # the last recovery
        # Per model served from base URLs: each server's share, errors, latency so far.
        self.servers: dict[str, tuple[ServerShare, ...]] = {}
        self.paused = False
        self.version = 0  # bumped by every event that changes the counts or states
        self.changed: set[CellKey] = set()  # cells whose counts changed (`take_changed`)

    # -- reads --------------------------------------------------------------------------

    @property
    def planned(self) -> bool:
        return self.plan is not None

    def cell(self, key: CellKey) -> CellProgress:
        progress = self.cells.get(key)
        if progress is None:
            progress = self.cells[key] = CellProgress()
        return progress

    def take_changed(self) -> list[CellKey]:
        """The cells whose counts changed since the last call."""
        changed, self.changed = list(self.changed), set()
        return changed

    @property
    def finished_count(self) -> int:
        """Examples of this run that finished (scored or failed)."""
        return self.done + self.errors

    @property
    def queue(self) -> int:
        """Examples of this run not started yet."""
        return max(0, self.to_do - self.started)

    @property
    def in_flight(self) -> int:
        return self.started - self.done - self.errors

    @property
    def remaining(self) -> int:
        """Examples of this run not finished yet (running ones included)."""
        return max(0, self.to_do - self.done - self.errors)

    @property
    def output_tokens(self) -> int:
        return self.rates.output_tokens

    def eta_s(self, now: float) -> float | None:
        """Seconds until the run's last example finishes at the recent rate: 0 once
        none is left, None while nothing is planned or nothing has finished lately."""
        if not self.planned:
            return None
        return self.rates.eta_s(self.remaining, now)

    def ttft(self, model: str | None = None) -> float | None:
        """Mean time to first token of the generations (of `model`) that have had
        one, those still streaming included; None before."""
        if model is None:
            return self.first_tokens.mean()
        return self.first_tokens.mean_where(lambda key: key.model == model)

    @property
    def mean_score(self) -> float | None:
        scored = sum(c.scored for c in self.cells.values())
        total = sum(c.score_sum for c in self.cells.values())
        return total / scored if scored else None

    def kept_finished(self) -> list[Stream]:
        """The finished generations kept whole, in the order they finished."""
        return [self.streams[g] for g in self.ended]

    def in_flight_streams(self) -> list[Stream]:
        return [s for s in self.streams.values() if not s.finished]


def apply(state: RunProgress, at: float, event: Event) -> None:
    """Fold `event`, got at `at`, into `state`: the one dispatch on event types."""
    match event:
        case ChunkReceived():  # the common case first: thousands per second
            _chunk(state, at, event)
        case ExampleStarted():
            _started(state, at, event)
        case GenerationFinished():
            _told(state, event)
        case ExampleScored():
            _ended(state, at, event, event.score.status.value, event.score.value, None)
        case ExampleFailed():
            state.last_error = event.message
            _ended(state, at, event, FAILED_STREAM, None, event.message)
        case StoreStalled():
            state.stalled = event
            state.version += 1
        case StoreRecovered():
            state.stalled, state.recovered = None, event
            state.version += 1
        case ServersReported():
            state.servers[event.model] = event.servers
            state.version += 1
        case RunPlanned():
            _planned(state, at, event)
        case ItemsSkipped():
            _skipped(state, event)
        case RunFinished():
            state.finished = event
            planned = state.rates.planned_at
            # The engine's own measure of the time it generated, also in a replay.
            state.rates.end(planned + event.elapsed_s if planned is not None else at)
            if not state.replaying:
                state.finished_at = at
            state.version += 1
        case RunPaused():
            state.paused = event.paused
            state.version += 1
        case EarlierResults():
            _earlier(state, event)
        case _:
            _unhandled(event)


def _unhandled(event: NoReturn) -> NoReturn:
    """mypy sees an event type `apply` has no branch for; a test sees it raise."""
    raise TypeError(f"no branch for {type(event).__name__} in core/run_state.apply")


def replay(state: RunProgress, at: float, events: Iterable[Event]) -> None:
    """A viewer's replay of a run so far, all stamped `at` (the run's plan)."""
    state.replaying = True
    try:
        for event in events:
            apply(state, at, event)
    finally:
        state.replaying = False


def _chunk(state: RunProgress, at: float, event: ChunkReceived) -> None:
    stream = state.streams.get(event.generation_id)
    if stream is not None:
        if event.restart:  # the backend retried: the text so far is void
            stream.parts.clear()
            stream.tokens = 0
        stream.parts.append(event.text)
        stream.tokens += event.tokens
        if stream.first_token_at is None and event.text and not state.replaying:
            stream.first_token_at = at
            # Until the engine reports its own measure (GenerationFinished).
            stream.ttft_s = at - stream.started_at
            state.first_tokens.seen(event.cell, event.generation_id, stream.ttft_s)
        stream.version += 1
    state.rates.add_tokens(at, event.tokens)


def _started(state: RunProgress, at: float, event: ExampleStarted) -> None:
    example = event.example
    state.streams[event.generation_id] = Stream(
        event.generation_id,
        event.cell,
        example.index,
        example.gold,
        " ".join(example.question.split()),
        at,
        slim_example(example),
    )
    state.started += 1
    state.cell(event.cell).running += 1
    state.changed.add(event.cell)
    state.version += 1


def _told(state: RunProgress, event: GenerationFinished) -> None:
    generation = event.generation
    state.first_tokens.measured(event.cell, generation.generation_id, generation.ttft_s)
    stream = state.streams.get(generation.generation_id)
    if stream is not None:
        stream.ttft_s = generation.ttft_s
        stream.told = event


def _ended(
    state: RunProgress,
    at: float,
    event: ExampleScored | ExampleFailed,
    status: str,
    score: float | None,
    error: str | None,
) -> None:
    state.rates.add_finished(at)
    cell = state.cell(event.cell)
    cell.running = max(0, cell.running - 1)
    tokens, ttft, decode_s = _timing(event.generation)
    cell.output_tokens += tokens
    if ttft is not None:
        cell.decode_tokens += tokens
        cell.decode_s += decode_s
    if error is None:
        cell.done += 1
        state.done += 1
        if score is not None:
            cell.score_sum += score
            cell.scored += 1
    else:
        cell.errors += 1
        state.errors += 1
    state.changed.add(event.cell)
    state.version += 1
    stream = state.streams.get(event.generation.generation_id)
    if stream is None:
        return
    stream.status, stream.score, stream.error, stream.outcome = status, score, error, event
    stream.version += 1
    state.ended.append(stream.generation_id)
    keep = state.keep_finished
    while keep is not None and len(state.ended) > keep:
        _count_earlier(state, state.streams.pop(state.ended.popleft()))


def _timing(generation: Generation) -> tuple[int, float | None, float]:
    """A finished generation's output tokens, time to first token and decoding time."""
    ttft = generation.ttft_s
    decode_s = max(0.0, generation.latency_s - ttft) if ttft is not None else 0.0
    return generation.output_tokens, ttft, decode_s


def _count_earlier(state: RunProgress, stream: Stream) -> None:
    """A finished generation leaves `streams`: it goes on as counts in `earlier`."""
    outcome = stream.outcome
    assert outcome is not None
    tokens, ttft, decode_s = _timing(outcome.generation)
    failed = stream.error is not None
    if failed:
        state.earlier_error = stream.error
    before = state.earlier.get(stream.cell, CellTally())
    state.earlier[stream.cell] = CellTally(
        done=before.done + (not failed),
        errors=before.errors + failed,
        score_sum=before.score_sum + (stream.score or 0.0),
        scored=before.scored + (stream.score is not None),
        output_tokens=before.output_tokens + tokens,
        decode_s=before.decode_s + decode_s,
        ttft_sum=before.ttft_sum + (ttft or 0.0),
        ttft_n=before.ttft_n + (ttft is not None),
    )


def _planned(state: RunProgress, at: float, event: RunPlanned) -> None:
    state.run_id = event.run_id
    state.plan = event
    state.planned_at = at
    state.rates.plan(at)
    for key, count in event.cells.items():
        state.cell(key).to_do += count
        state.to_do += count
        state.changed.add(key)
    for key, count in event.skipped.items():
        state.cell(key).stored += count
        state.skipped += count
        state.changed.add(key)
    state.version += 1


def _skipped(state: RunProgress, event: ItemsSkipped) -> None:
    """Planned as to do, found stored later (items are planned as the run goes)."""
    for key, count in event.skipped.items():
        cell = state.cell(key)
        cell.to_do -= count
        cell.stored += count
        state.to_do -= count
        state.skipped += count
        state.found_stored[key] = state.found_stored.get(key, 0) + count
        state.changed.add(key)
    state.version += 1


def _earlier(state: RunProgress, event: EarlierResults) -> None:
    """What finished before this viewer attached to a published run, as counts."""
    for key, tally in event.cells.items():
        cell = state.cell(key)
        cell.done += tally.done
        cell.errors += tally.errors
        cell.score_sum += tally.score_sum
        cell.scored += tally.scored
        cell.output_tokens += tally.output_tokens
        # A tally does not say which of its tokens came after a first token: all do here.
        cell.decode_tokens += tally.output_tokens
        cell.decode_s += tally.decode_s
        state.done += tally.done
        state.errors += tally.errors
        state.started += tally.done + tally.errors
        state.rates.add_earlier(tally.output_tokens, tally.done + tally.errors)
        state.first_tokens.add(key, tally.ttft_sum, tally.ttft_n)
        state.earlier[key] = _plus(state.earlier.get(key), tally)
        state.changed.add(key)
    state.last_error = state.last_error or event.last_error
    state.earlier_error = event.last_error or state.earlier_error
    state.version += 1


def _plus(before: CellTally | None, tally: CellTally) -> CellTally:
    if before is None:
        return tally
    return CellTally(
        done=before.done + tally.done,
        errors=before.errors + tally.errors,
        score_sum=before.score_sum + tally.score_sum,
        scored=before.scored + tally.scored,
        output_tokens=before.output_tokens + tally.output_tokens,
        decode_s=before.decode_s + tally.decode_s,
        ttft_sum=before.ttft_sum + tally.ttft_sum,
        ttft_n=before.ttft_n + tally.ttft_n,
    )


def replay_events(state: RunProgress) -> list[Event]:
    """Events that bring a new viewer to `state`: the plan, what was found stored since,
    the finished generations not kept whole as counts, the kept ones (in the order they
    finished) and those in flight, each with its text so far; the servers, pause, stall
    and end."""
    events: list[Event] = []
    if state.plan is not None:
        events.append(state.plan)
    if state.found_stored:
        events.append(ItemsSkipped(dict(state.found_stored)))
    if state.earlier:
        events.append(EarlierResults(dict(state.earlier), state.earlier_error))
    for stream in [*state.kept_finished(), *state.in_flight_streams()]:
        if stream.example is None:  # made by hand, not by an ExampleStarted
            continue
        events.append(ExampleStarted(stream.cell, stream.example, stream.generation_id))
        if stream.parts:
            text = "".join(stream.parts)
            events.append(ChunkReceived(stream.cell, stream.generation_id, text, stream.tokens))
        if stream.told is not None:
            events.append(stream.told)
        if stream.outcome is not None:
            events.append(stream.outcome)
    events.extend(ServersReported(model, shares) for model, shares in state.servers.items())
    if state.paused:
        events.append(RunPaused(True))
    if state.stalled is not None:
        events.append(state.stalled)
    if state.finished is not None:
        events.append(state.finished)
    return events
