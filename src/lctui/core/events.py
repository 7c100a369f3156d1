"""Engine events consumed by the headless progress display and the TUI.

The engine calls a sink synchronously and never waits on it; sinks must be cheap
(append to a buffer, bump a counter) and do their rendering elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lctui.core.types import Example, Generation, Score


@dataclass(frozen=True)
class CellKey:
    """A task x length cell of one model: the unit of progress displays."""

    model: str
    task: str
    length: int


@dataclass(frozen=True)
class RunPlanned:
    run_id: str
    cells: dict[CellKey, int]  # cell -> number of examples to do in this run
    skipped: dict[CellKey, int]  # cell -> examples already stored (resume)


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
class RunFinished:
    run_id: str
    done: int
    errors: int
    cancelled: bool
    elapsed_s: float


Event = (
    RunPlanned
    | ExampleStarted
    | ChunkReceived
    | GenerationFinished
    | ExampleScored
    | ExampleFailed
    | RunFinished
)
EventSink = Callable[[Event], None]
