"""LIFEval's stability of one model: for a perspective (expression, variable or
length), a task x level table of mean ARS with each task's coefficient of variation,
and a last row whose CV is their mean, the IFS. Also the ARS-per-length bars.
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text
from textual.content import Content

from lctui.suites.lifbench.analysis.levels import ModelStability
from lctui.tui.widgets.capability_bars import bar, scale_colour
from lctui.tui.widgets.fitted_table import FittedTable

TASK_WIDTH = (16, 26)
LEVEL_WIDTH = 5  # means with two decimals, CVs with three


def level_label(perspective: str, level: str) -> str:
    """A level's column header: lengths in K tokens (LIFBench's intervals), others as ids."""
    return f"{level}k" if perspective == "length" else level


class StabilityTable(FittedTable):
    """Task rows x (CV, then a column per level) of one model's per-level mean ARS."""

    DEFAULT_CSS = """
    StabilityTable { height: auto; max-height: 100%; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.stability: ModelStability | None = None
        self.perspective = "expression"

    def show(self, stability: ModelStability, perspective: str) -> None:
        self.stability = stability
        self.perspective = perspective
        self._populate()

    def _populate(self) -> None:
        self._width = self.size.width
        cursor_row = self.cursor_row
        self.clear(columns=True)
        if self.stability is None:
            return
        perspective = self.perspective
        tasks = self.stability.perspectives.get(perspective, [])
        levels = self.stability.levels(perspective)
        longest = max([len("task"), *(len(t.task) for t in tasks)])
        fixed = (len(levels) + 1) * (LEVEL_WIDTH + 2) + 3
        task_width = max(TASK_WIDTH[0], min(TASK_WIDTH[1], longest, (self._width or 80) - fixed))
        # The CV comes first so it stays in view when twelve levels scroll sideways.
        self.add_column("task", width=task_width, key="task")
        self.add_column(Text("CV", justify="right"), width=LEVEL_WIDTH, key="cv")
        for level in levels:
            header = Text(level_label(perspective, level), justify="right")
            self.add_column(header, width=LEVEL_WIDTH, key=f"level-{level}")
        colours = self.app.theme_variables
        for task in tasks:
            cv = Text("-" if task.cv is None else f"{task.cv:.3f}", justify="right")
            cells = [_mean_cell(task.means.get(level), colours) for level in levels]
            self.add_row(Text(task.task), cv, *cells, key=task.task)
        ifs = self.stability.ifs(perspective)
        label = Text("IFS = mean CV", style="bold")
        value = Text("-" if ifs is None else f"{ifs:.3f}", style="bold", justify="right")
        self.add_row(label, value, *[Text("")] * len(levels), key="ifs")
        if self.row_count:
            self.move_cursor(row=min(cursor_row, self.row_count - 1))


def _mean_cell(value: float | None, colours: Mapping[str, str]) -> Text:
    if value is None:
        return Text("", justify="right")
    return Text(f"{value:.2f}", style=scale_colour(value, colours), justify="right")


def length_bars(ars_by_length: Mapping[int, float], width: int) -> Content:
    """One line per length (in K tokens): a bar of the R_t-weighted ARS and its value."""
    if not ars_by_length:
        return Content.styled("no lengths", "italic $text-muted")
    label_width = max(len(f"{n}k") for n in ars_by_length)
    bar_width = max(4, min(50, width - label_width - 8))
    lines = [
        Content.assemble(
            (f"{n}k".rjust(label_width) + " ", "$text-muted"),
            (bar(ars, bar_width), "$primary"),
            f" {ars:.3f}",
        )
        for n, ars in sorted(ars_by_length.items())
    ]
    return Content("\n").join(lines)
