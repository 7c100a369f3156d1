"""Engine events consumed by the headless progress display and the TUI.

The engine calls a sink synchronously and never waits on it; sinks must be cheap
(append to a buffer, bump a counter) and do their rendering elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lctui.core.text import plural
from lctui.core.types import Example, Generation, Score, ServerShare


@dataclass(frozen=True)
class CellKey:
    """A task x length cell of one model: the unit of progress displays."""

    model: str
    task: str
    length: int


@dataclass(frozen=True)
class RunPlanned:
    """The run's cells. Work items are planned as the run goes, so `cells` counts every
    item not yet known to be stored; `ItemsSkipped` later moves stored ones over."""

    run_id: str
    cells: dict[CellKey, int]  # cell -> number of examples to do in this run
    skipped: dict[CellKey, int]  # cell -> examples already stored (resume)


@dataclass(frozen=True)
class ItemsSkipped:
    """Items planned after RunPlanned that turned out to be stored: per cell, to move
    from the examples to do to those already stored."""

    skipped: dict[CellKey, int]


@dataclass(frozen=True)
class ExampleStarted:
    cell: CellKey
    example: Example
    generation_id: str


@dataclass(frozen=True)
class ChunkReceived:
    cell: CellKey
    generation_id: str
    text: str
    tokens: int
    restart: bool = False  # the text streamed so far was void (a retry); start over


@dataclass(frozen=True)
class GenerationFinished:
    cell: CellKey
    generation: Generation


@dataclass(frozen=True)
class ExampleScored:
    cell: CellKey
    generation: Generation
    score: Score


@dataclass(frozen=True)
class ExampleFailed:
    cell: CellKey
    generation: Generation
    message: str


@dataclass(frozen=True)
class StoreStalled:
    """Finished results cannot be written to the file (yet); the engine retries.

    Sent after every failed write, and when new work is held back because too much
    waits unwritten (engine/flushing.py says how much is too much).
    """

    error: str | None  # the store's own message; None while a write is still trying
    waiting: int  # finished generations not written yet
    rows: int  # rows of every table not written yet
    oldest_s: float  # age of the oldest unwritten row
    paused: bool  # no new request starts until a write succeeds

    def describe(self) -> str:
        """One line for a user: why, how much waits, and what the run does meanwhile."""
        why = (self.error or "a write has not finished for a while").rstrip(". ")
        line = (
            f"store stalled: {why}; {plural(self.waiting, 'finished generation')} "
            f"({plural(self.rows, 'row')}) waiting to be written, the oldest for "
            f"{self.oldest_s:.0f} s; retrying"
        )
        if self.paused:
            line += "; new work paused until a write succeeds (running requests finish)"
        return line + "."


@dataclass(frozen=True)
class StoreRecovered:
    """A write succeeded after StoreStalled; held work goes on."""

    stalled_s: float  # how long nothing could be written
    written: int  # rows the successful write stored


@dataclass(frozen=True)
class ServersReported:
    """A model served from several base URLs: each server's share of its requests,
    answers, errors and latency so far (sent about once a second while they change)."""

    model: str
    servers: tuple[ServerShare, ...]


@dataclass(frozen=True)
class RunPaused:
    """The run stopped starting new requests (`paused`), or starts them again."""

    paused: bool


@dataclass(frozen=True)
class CellTally:
    """What finished in one cell, counted: enough for a progress display to go on from."""

    done: int = 0  # scored (ok or unparsed)
    errors: int = 0
    score_sum: float = 0.0
    scored: int = 0  # scores with a value
    output_tokens: int = 0
    decode_s: float = 0.0  # sum of latency minus time to first token
    ttft_sum: float = 0.0
    ttft_n: int = 0


@dataclass(frozen=True)
class EarlierResults:
    """Sent only to a viewer that attaches to a running run (engine/publish.py): the
    generations that finished before the ones its replay repeats, counted per cell
    instead of repeated event by event. Each counts as started and finished."""

    cells: dict[CellKey, CellTally]
    last_error: str | None = None


@dataclass(frozen=True)
class RunFinished:
    run_id: str
    done: int
    errors: int
    cancelled: bool
    # Seconds from its plan to its end: the time it generated (the mean rates of
    # core/measures.py); a display's elapsed counts from the run's start, loading included.
    elapsed_s: float


Event = (
    RunPlanned
    | ItemsSkipped
    | ExampleStarted
    | ChunkReceived
    | GenerationFinished
    | ExampleScored
    | ExampleFailed
    | StoreStalled
    | StoreRecovered
    | ServersReported
    | RunPaused
    | EarlierResults
    | RunFinished
)
EventSink = Callable[[Event], None]


def fan_out(*sinks: EventSink) -> EventSink:
    """One sink that hands each event to `sinks` in order."""

    def sink(event: Event) -> None:
        for each in sinks:
            each(event)

    return sink
