"""The live run's task x length grid, one block per model: progress and running score.

A cell reads `███ 7/10 0.86 1 err`: a bar of finished examples, finished over total,
the mean score of this run's scored examples (errors excluded, as in every view of
the store) and the errors in red, so a failing endpoint never looks like a bad model.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from lctui.core.events import CellKey
from lctui.core.lengths import format_length
from lctui.core.text import escape_unprintable
from lctui.tui.state.run_progress import CellProgress, RunState

BAR_WIDTH = 3


def cell_text(cell: CellProgress | None) -> Text:
    """One grid cell; empty cells (nothing planned) show a dot."""
    if cell is None or cell.total == 0:
        return Text("·", style="dim")
    filled = round(BAR_WIDTH * cell.finished / cell.total)
    text = Text()
    text.append("█" * filled, style="green" if cell.finished == cell.total else "cyan")
    text.append("░" * (BAR_WIDTH - filled), style="dim")
    text.append(f" {cell.finished}/{cell.total}")
    mean = cell.mean
    if mean is not None:
        text.append(f" {mean:.2f}", style="bold")
    elif cell.stored and cell.stored == cell.finished:
        text.append(STORED, style="dim")
    if cell.errors:
        text.append(f" {cell.errors} err", style="bold red")
    return text


STORED = " stored"  # what a cell says while all it has finished was stored before


def cell_width(state: RunState) -> int:
    """The widest a cell can get, so the grid keeps its size as counts grow."""
    digits = len(str(max((c.total for c in state.cells.values()), default=1)))
    # " 1.00", or " stored" in a run that found stored examples
    verdict = len(STORED) if state.skipped else len(" 1.00")
    # bar, " d/d", the verdict, and " d err" once the run has an error
    return BAR_WIDTH + (2 + 2 * digits) + verdict + ((5 + digits) if state.errors else 0)


def grid_width(state: RunState) -> int:
    """The grid's natural width: wider than the panel, it scrolls instead of squeezing."""
    task_width = max([len("task"), *(len(t) for t in state.tasks)])
    return task_width + 1 + len(state.lengths) * (cell_width(state) + 1)


def grid_renderable(state: RunState) -> RenderableType:
    """A table per model, tasks down and lengths across."""
    blocks: list[RenderableType] = []
    width = cell_width(state)
    for model in state.models:
        table = Table(
            title=Text(escape_unprintable(model), style="bold"),
            title_justify="left",
            box=None,
            pad_edge=False,
            padding=(0, 1, 0, 0),
            expand=False,
        )
        table.add_column("task", no_wrap=True, style="")
        for length in state.lengths:
            table.add_column(format_length(length), no_wrap=True, min_width=width)
        for task in state.tasks:
            row = [cell_text(state.cells.get(CellKey(model, task, n))) for n in state.lengths]
            table.add_row(Text(escape_unprintable(task)), *row)  # plain: never markup
        blocks.append(table)
    if not state.planned and state.finished is None:
        blocks.append(Text("loading models and planning…", style="dim italic"))
    return Group(*blocks)


class RunGrid(Static):
    """Redrawn by the screen's timer when the state's version moved.

    Cells have a fixed width, so only a change of shape (the plan arriving, the end)
    asks for a layout pass; progress repaints the grid alone, which keeps frames
    cheap while many streams run.
    """

    DEFAULT_CSS = """
    RunGrid { height: auto; }
    """

    def __init__(self, state: RunState, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._state = state
        self._drawn = -1
        self._shape: tuple[bool, bool, bool, bool] | None = None

    def on_mount(self) -> None:
        self.redraw()

    def redraw(self, state: RunState | None = None) -> None:
        """Draw what changed; `state`: the run's state when it was made anew (a viewer
        of another process's run attaching again)."""
        if state is not None and state is not self._state:
            self._state, self._drawn, self._shape = state, -1, None
        if self._drawn == self._state.version:
            return
        self._drawn = self._state.version
        state = self._state
        shape = (state.planned, state.finished is not None, state.errors > 0, state.skipped > 0)
        if shape != self._shape:
            self.styles.width = max([grid_width(state), *(len(m) for m in state.models)])
        self.update(grid_renderable(state), layout=shape != self._shape)
        self._shape = shape
