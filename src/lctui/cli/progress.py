"""Headless live progress: one rich progress row per model x task x length cell.

The engine calls `__call__` for every event; this sink only updates counters and
rich's task fields (cheap, thread-safe), and rich repaints on its own timer. When the
results file cannot be written, a line above the bars says why and how much waits
(StoreStalled), repeated when that changes, and another when writing works again.

The rows are laid out for the width they are drawn at (`CellRows`): the cell's name,
its count, its score, its errors and its time keep their width; the bar, then the
speed give way; only a name too long for the terminal is shortened, in its middle, so
that no two rows read alike (core.text.abbreviate).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    Task,
    TaskID,
    TimeRemainingColumn,
)
from rich.table import Column, Table
from rich.text import Text

from lctui.cli.terminal import data, plain
from lctui.core import run_state
from lctui.core.events import CellKey, Event, RunPlanned, StoreRecovered, StoreStalled
from lctui.core.formatting import per_second
from lctui.core.lengths import format_length
from lctui.core.run_state import RunProgress
from lctui.core.text import abbreviate, cell_width, plural

STALL_REPEAT_S = 30.0  # a stall that goes on is said again this often, with new counts
_NUMBER = re.compile(r"\d+")


class RichProgressSink:
    """Renders engine events as rich progress bars with ETA, tok/s and running score.

    The events are counted by the one reducer (core/run_state.py); each event's changed
    cells are then drawn from its counts, so no event type is read here."""

    def __init__(self, console: Console, keep_finished: int = 0) -> None:
        self.console = console
        self.progress = CellRows(console=console, refresh_per_second=8)
        # Finished generations kept whole (RunProgress); a row shows only their counts.
        self.state = RunProgress(keep_finished=keep_finished)
        self._planned: RunPlanned | None = None
        self._rows: dict[CellKey, TaskID] = {}
        self._stall_said: tuple[str, bool] | None = None  # (error, paused) last said
        self._stall_said_at = 0.0
        self._stalled: StoreStalled | None = None  # the last stall and recovery said
        self._recovered: StoreRecovered | None = None
        self._refreshed = False

    def __enter__(self) -> RichProgressSink:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    @property
    def errors(self) -> int:
        """Examples of the run that failed (those an attached viewer got as counts too)."""
        return self.state.errors

    def __call__(self, event: Event) -> None:
        self.apply(time.monotonic(), event)

    def apply(self, at: float, event: Event) -> None:
        """`event`, got at `at` (monotonic), counted and drawn."""
        state = self.state
        run_state.apply(state, at, event)
        if state.plan is not None and self._planned is None:
            self._planned = state.plan
            self._plan(state.plan)
        if state.changed:  # not on a chunk: thousands a second
            for key in state.take_changed():
                self._show(key)
        if state.stalled is not None and state.stalled is not self._stalled:
            self._stalled = state.stalled
            self._say_stalled(state.stalled)
        if state.recovered is not None and state.recovered is not self._recovered:
            self._recovered = state.recovered
            self._say_recovered(state.recovered)
        if state.finished is not None and not self._refreshed:
            self._refreshed = True
            self.progress.refresh()

    def _say_stalled(self, event: StoreStalled) -> None:
        # The same failure again (other row counts in its message) is not news.
        said = (_NUMBER.sub("N", event.error or ""), event.paused)
        now = time.monotonic()
        if said == self._stall_said and now - self._stall_said_at < STALL_REPEAT_S:
            return
        self._stall_said, self._stall_said_at = said, now
        self.console.print(f"[bold yellow]{data(event.describe())}[/]")

    def _say_recovered(self, event: StoreRecovered) -> None:
        self._stall_said = None
        self.console.print(
            f"[green]store recovered: wrote {event.written} row(s) after {event.stalled_s:.0f} s; "
            "the run goes on.[/]"
        )

    def _plan(self, plan: RunPlanned) -> None:
        """One row per cell the run generates examples of (those all stored have none)."""
        for key in sorted(plan.cells, key=lambda k: (k.model, k.task, k.length)):
            self._rows[key] = self.progress.add_task(
                key.task, total=plan.cells[key], cell=key, score="", speed="", errors=""
            )

    def _show(self, key: CellKey) -> None:
        task_id = self._rows.get(key)
        if task_id is None:
            return
        cell = self.state.cell(key)
        score = f"score {cell.mean:.2f}" if cell.mean is not None else ""
        speed = ""
        ttft = self.state.first_tokens.mean(key)
        if ttft is not None:
            speed = f"ttft {ttft:.1f}s"
        if cell.decode_rate is not None:
            speed += f" {per_second(cell.decode_rate)} tok/s"
        errors = plural(cell.errors, "error") if cell.errors else ""
        self.progress.update(
            task_id,
            total=max(0, cell.to_do),
            completed=cell.done + cell.errors,
            score=score,
            speed=speed,
            errors=errors,
        )


BAR_WIDTH = 12
SCORE_WIDTH = len("score 1.00")
TIME_WIDTH = len("0:00:00")


class CellRows(Progress):
    """rich's Progress whose rows are laid out for the width they are drawn at: the
    speed gives way before the name, count, score, errors and time, the bar first."""

    def __init__(self, console: Console, refresh_per_second: float) -> None:
        self._bar = BarColumn(bar_width=BAR_WIDTH)
        self._count = MofNCompleteColumn()
        self._time = TimeRemainingColumn()
        super().__init__(
            self._bar,
            self._count,
            self._time,
            console=console,
            refresh_per_second=refresh_per_second,
        )

    def get_renderables(self) -> Iterable[RenderableType]:
        yield _Fitted(self)

    def rows(self, width: int) -> Table:
        """The rows within `width` cells (see the module's docstring)."""
        tasks = [t for t in self.tasks if t.visible]
        keys = [_key(t) for t in tasks]
        count = max((len(f"{int(t.total or 0)}") * 2 + 1 for t in tasks), default=3)
        errors = max((cell_width(str(t.fields.get("errors", ""))) for t in tasks), default=0)
        # The name, count, score, errors and time, with a space between each.
        fixed = count + SCORE_WIDTH + TIME_WIDTH + (errors + 1 if errors else 0) + 3
        names = _names(keys, max(8, width - fixed - 1))
        # What the name leaves: the speed first, then the bar; each with its space.
        room = width - fixed - max((cell_width(n) for n in names), default=0)
        wanted = max((cell_width(str(t.fields.get("speed", ""))) for t in tasks), default=0)
        speed = max(0, min(wanted, room - 1))
        room -= speed + 1 if speed else 0
        bar = min(BAR_WIDTH, room - 1) if room - 1 >= 4 else 0
        columns = [Column(no_wrap=True)]
        if bar:
            self._bar.bar_width = bar
            columns.append(Column(no_wrap=True, width=bar))
        columns += [Column(no_wrap=True, width=count), Column(no_wrap=True, width=SCORE_WIDTH)]
        if speed > 0:
            columns.append(Column(no_wrap=True, width=speed, overflow="ellipsis"))
        if errors:
            columns.append(Column(no_wrap=True, width=errors, style="red"))
        columns.append(Column(no_wrap=True, width=TIME_WIDTH))
        table = Table.grid(*columns, padding=(0, 1))
        for task, name in zip(tasks, names, strict=True):
            row: list[RenderableType] = [Text(name)]
            if bar:
                row.append(self._bar(task))
            row += [self._count(task), Text(str(task.fields.get("score", "")))]
            if speed > 0:
                row.append(Text(str(task.fields.get("speed", ""))))
            if errors:
                row.append(Text(str(task.fields.get("errors", ""))))
            row.append(self._time(task))
            table.add_row(*row)
        return table


class _Fitted:
    """The rows of a CellRows, laid out when rich knows the width to draw them in."""

    def __init__(self, progress: CellRows) -> None:
        self.progress = progress

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.progress.rows(options.max_width)


def _key(task: Task) -> CellKey:
    key = task.fields.get("cell")
    return key if isinstance(key, CellKey) else CellKey("", task.description, 0)


def _names(keys: list[CellKey], width: int) -> list[str]:
    """`model task length` per row in columns, within `width` cells: whole where they
    fit, else the models, then the tasks, shortened in their middle (`abbreviate`)."""
    # Names from data are drawn as plain text, their control characters shown.
    models = list(dict.fromkeys(plain(k.model) for k in keys))
    tasks = list(dict.fromkeys(plain(k.task) for k in keys))
    lengths = {k.length: format_length(k.length) if k.length else "" for k in keys}
    length_w = max((len(text) for text in lengths.values()), default=0)
    model_w = max((cell_width(m) for m in models), default=0)
    task_w = max((cell_width(t) for t in tasks), default=0)
    over = model_w + 1 + task_w + 1 + length_w - width
    if over > 0:
        shrink = min(over, max(0, model_w - 8))
        model_w, over = model_w - shrink, over - shrink
        task_w = max(3, task_w - over)
    shown_models = dict(zip(models, abbreviate(models, model_w), strict=True))
    shown_tasks = dict(zip(tasks, abbreviate(tasks, task_w), strict=True))

    def pad(text: str, w: int) -> str:
        return text + " " * max(0, w - cell_width(text))

    return [
        f"{pad(shown_models[plain(k.model)], model_w)} {pad(shown_tasks[plain(k.task)], task_w)} "
        f"{lengths[k.length]:>{length_w}}".rstrip()
        for k in keys
    ]
