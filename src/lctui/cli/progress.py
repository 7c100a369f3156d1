"""Headless live progress: one rich progress row per model x task x length cell.

The engine calls `__call__` for every event; this sink only updates counters and
rich's task fields (cheap, thread-safe), and rich repaints on its own timer.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from lctui.core.events import (
    CellKey,
    ChunkReceived,
    Event,
    ExampleFailed,
    ExampleScored,
    ExampleStarted,
    RunFinished,
    RunPlanned,
)
from lctui.core.lengths import format_length


@dataclass
class _Cell:
    task_id: TaskID
    tokens: int = 0
    busy_s: float = 0.0
    scores: list[float] = field(default_factory=list)
    errors: int = 0


class RichProgressSink:
    """Renders engine events as rich progress bars with ETA, tok/s and running score."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(bar_width=20),
            MofNCompleteColumn(),
            TextColumn("{task.fields[score]}"),
            TextColumn("{task.fields[speed]}"),
            TextColumn("{task.fields[errors]}", style="red"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
            refresh_per_second=8,
        )
        self._cells: dict[CellKey, _Cell] = {}
        self._started: dict[str, tuple[CellKey, float]] = {}
        self.errors: list[str] = []

    def __enter__(self) -> RichProgressSink:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def __call__(self, event: Event) -> None:
        if isinstance(event, RunPlanned):
            self._plan(event)
        elif isinstance(event, ExampleStarted):
            self._started[event.generation_id] = (event.cell, time.monotonic())
        elif isinstance(event, ChunkReceived):
            cell = self._cells.get(event.cell)
            if cell:
                cell.tokens += event.tokens
        elif isinstance(event, ExampleScored | ExampleFailed):
            self._finish(event)
        elif isinstance(event, RunFinished):
            self.progress.refresh()

    def _plan(self, event: RunPlanned) -> None:
        width = max((len(k.task) for k in event.cells), default=10)
        for key in sorted(event.cells, key=lambda k: (k.model, k.task, k.length)):
            label = f"{key.model} {key.task:<{width}} {format_length(key.length):>5}"
            task_id = self.progress.add_task(
                label, total=event.cells[key], score="", speed="", errors=""
            )
            self._cells[key] = _Cell(task_id)

    def _finish(self, event: ExampleScored | ExampleFailed) -> None:
        cell = self._cells.get(event.cell)
        if cell is None:
            return
        started = self._started.pop(event.generation.generation_id, None)
        if started:
            cell.busy_s += time.monotonic() - started[1]
        if isinstance(event, ExampleScored) and event.score.value is not None:
            cell.scores.append(event.score.value)
        elif isinstance(event, ExampleFailed):
            cell.errors += 1
            self.errors.append(event.message)
        score = f"score {sum(cell.scores) / len(cell.scores):.2f}" if cell.scores else ""
        speed = f"{cell.tokens / cell.busy_s:.1f} tok/s" if cell.busy_s > 0 else ""
        errors = f"{cell.errors} errors" if cell.errors else ""
        self.progress.update(cell.task_id, advance=1, score=score, speed=speed, errors=errors)
