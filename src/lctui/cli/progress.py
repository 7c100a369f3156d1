"""Headless live progress: one rich progress row per model x task x length cell.

The engine calls `__call__` for every event; this sink only updates counters and
rich's task fields (cheap, thread-safe), and rich repaints on its own timer. When the
results file cannot be written, a line above the bars says why and how much waits
(StoreStalled), repeated when that changes, and another when writing works again.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)
from rich.table import Column

from lctui.core.events import (
    CellKey,
    EarlierResults,
    Event,
    ExampleFailed,
    ExampleScored,
    GenerationFinished,
    ItemsSkipped,
    RunFinished,
    RunPlanned,
    StoreRecovered,
    StoreStalled,
)
from lctui.core.lengths import format_length
from lctui.core.text import plural

STALL_REPEAT_S = 30.0  # a stall that goes on is said again this often, with new counts
_NUMBER = re.compile(r"\d+")


@dataclass
class _Cell:
    task_id: TaskID
    tokens: int = 0
    decode_s: float = 0.0
    ttft_sum: float = 0.0
    ttft_n: int = 0
    score_sum: float = 0.0
    scored: int = 0
    errors: int = 0


class RichProgressSink:
    """Renders engine events as rich progress bars with ETA, tok/s and running score."""

    def __init__(self, console: Console) -> None:
        self.console = console
        # The cell's name and its score keep their width: at a narrow terminal the speed
        # gives way (cut at its end) rather than `score 0.…` or the task that tells two
        # rows apart.
        self.progress = Progress(
            TextColumn("{task.description}", table_column=Column(no_wrap=True)),
            BarColumn(bar_width=12),
            MofNCompleteColumn(),
            TextColumn("{task.fields[score]}", table_column=Column(no_wrap=True, min_width=10)),
            TextColumn("{task.fields[speed]}", table_column=Column(no_wrap=True, ratio=1)),
            TextColumn("{task.fields[errors]}", style="red"),
            TimeRemainingColumn(),
            console=console,
            refresh_per_second=8,
        )
        self._cells: dict[CellKey, _Cell] = {}
        self.errors: list[str] = []
        self._stall_said: tuple[str, bool] | None = None  # (error, paused) last said
        self._stall_said_at = 0.0

    def __enter__(self) -> RichProgressSink:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def __call__(self, event: Event) -> None:
        if isinstance(event, RunPlanned):
            self._plan(event)
        elif isinstance(event, ItemsSkipped):
            self._skip(event)
        elif isinstance(event, GenerationFinished):
            self._timing(event)
        elif isinstance(event, ExampleScored | ExampleFailed):
            self._finish(event)
        elif isinstance(event, EarlierResults):
            self._earlier(event)
        elif isinstance(event, StoreStalled):
            self._stalled(event)
        elif isinstance(event, StoreRecovered):
            self._recovered(event)
        elif isinstance(event, RunFinished):
            self.progress.refresh()

    def _stalled(self, event: StoreStalled) -> None:
        # The same failure again (other row counts in its message) is not news.
        said = (_NUMBER.sub("N", event.error or ""), event.paused)
        now = time.monotonic()
        if said == self._stall_said and now - self._stall_said_at < STALL_REPEAT_S:
            return
        self._stall_said, self._stall_said_at = said, now
        self.console.print(f"[bold yellow]{escape(event.describe())}[/]")

    def _recovered(self, event: StoreRecovered) -> None:
        self._stall_said = None
        self.console.print(
            f"[green]store recovered: wrote {event.written} row(s) after {event.stalled_s:.0f} s; "
            "the run goes on.[/]"
        )

    def _plan(self, event: RunPlanned) -> None:
        width = max((len(k.task) for k in event.cells), default=10)
        for key in sorted(event.cells, key=lambda k: (k.model, k.task, k.length)):
            label = f"{key.model} {key.task:<{width}} {format_length(key.length):>5}"
            task_id = self.progress.add_task(
                label, total=event.cells[key], score="", speed="", errors=""
            )
            self._cells[key] = _Cell(task_id)

    def _skip(self, event: ItemsSkipped) -> None:
        """Items found stored after the plan: fewer to do in their cells."""
        for key, count in event.skipped.items():
            cell = self._cells.get(key)
            if cell is not None:
                task = self.progress.tasks[cell.task_id]
                self.progress.update(cell.task_id, total=max(0, (task.total or 0) - count))

    def _timing(self, event: GenerationFinished) -> None:
        cell = self._cells.get(event.cell)
        generation = event.generation
        if cell is None or generation.ttft_s is None:
            return
        cell.ttft_sum += generation.ttft_s
        cell.ttft_n += 1
        cell.tokens += generation.output_tokens
        cell.decode_s += max(0.0, generation.latency_s - generation.ttft_s)

    def _finish(self, event: ExampleScored | ExampleFailed) -> None:
        cell = self._cells.get(event.cell)
        if cell is None:
            return
        if isinstance(event, ExampleScored) and event.score.value is not None:
            cell.score_sum += event.score.value
            cell.scored += 1
        elif isinstance(event, ExampleFailed):
            cell.errors += 1
            self.errors.append(event.message)
        self._show(cell, advance=1)

    def _earlier(self, event: EarlierResults) -> None:
        """What finished before a viewer attached, counted per cell (lctui attach)."""
        for key, tally in event.cells.items():
            cell = self._cells.get(key)
            if cell is None:
                continue
            cell.tokens += tally.output_tokens
            cell.decode_s += tally.decode_s
            cell.ttft_sum += tally.ttft_sum
            cell.ttft_n += tally.ttft_n
            cell.score_sum += tally.score_sum
            cell.scored += tally.scored
            cell.errors += tally.errors
            self._show(cell, advance=tally.done + tally.errors)
        if event.last_error:
            self.errors.append(event.last_error)

    def _show(self, cell: _Cell, advance: int) -> None:
        score = f"score {cell.score_sum / cell.scored:.2f}" if cell.scored else ""
        speed = ""
        if cell.ttft_n:
            speed = f"ttft {cell.ttft_sum / cell.ttft_n:.1f}s"
        if cell.decode_s > 0:
            speed += f" {cell.tokens / cell.decode_s:.0f} tok/s"
        errors = plural(cell.errors, "error") if cell.errors else ""
        self.progress.update(cell.task_id, advance=advance, score=score, speed=speed, errors=errors)
