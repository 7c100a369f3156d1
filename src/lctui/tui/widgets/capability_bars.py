"""LIFEval's capability profile of every model: a models x (ARS, IFP per capability)
table whose cells are a horizontal bar and the value, so the models compare down
each column. Bars and values take the theme's red-amber-green scale.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.text import Text
from textual.color import Color

from lctui.scoring.rubric import CAPABILITIES
from lctui.suites.lifbench.analysis.metrics import LifbenchReport
from lctui.tui.widgets.fitted_table import FittedTable

EIGHTHS = " ▏▎▍▌▋▊▉█"
MODEL_WIDTH = (16, 28)  # the model column's least and most width
MAX_BAR = 12


def bar(value: float, width: int) -> str:
    """`value` in [0, 1] as `width` cells of block characters, in eighths of a cell."""
    eighths = round(max(0.0, min(1.0, value)) * width * 8)
    full, part = divmod(eighths, 8)
    text = "█" * full + (EIGHTHS[part] if part else "")
    return text.ljust(width)


def scale_colour(value: float, colours: Mapping[str, str]) -> str:
    """The theme's error (0) through warning (0.5) to success (1) colour, as a hex."""
    low = Color.parse(colours.get("error", "red"))
    mid = Color.parse(colours.get("warning", "yellow"))
    high = Color.parse(colours.get("success", "green"))
    value = max(0.0, min(1.0, value))
    if value < 0.5:
        return low.blend(mid, value * 2).hex
    return mid.blend(high, (value - 0.5) * 2).hex


def bar_cell(value: float | None, width: int, colours: Mapping[str, str]) -> Text:
    """A bar of `width` cells (none when 0) and the value with three decimals."""
    if value is None:
        return Text("-".rjust(width + 6), style="dim")
    colour = scale_colour(value, colours)
    cell = Text(bar(value, width) + " " if width else " ", style=colour)
    cell.append(f"{value:.3f}", style=colour)
    return cell


class CapabilityTable(FittedTable):
    """One row per model (best ARS first): ARS then IFP of each capability.

    Enter on a row posts DataTable.RowSelected with the model's name as row key.
    """

    DEFAULT_CSS = """
    CapabilityTable { height: auto; max-height: 100%; }
    """
    COLUMNS = ("ARS", *CAPABILITIES)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.reports: list[LifbenchReport] = []

    def show_reports(self, reports: Sequence[LifbenchReport]) -> None:
        self.reports = sorted(reports, key=lambda r: (-(r.ars or 0.0), r.model))
        self._populate()

    def values(self, report: LifbenchReport) -> list[float | None]:
        """The row's numbers in column order: ARS, then IFP per capability."""
        return [report.ars, *(report.ifp.get(c.lower()) for c in CAPABILITIES)]

    def bar_width(self) -> int:
        """Bar cells per value column, from the width left after the model column."""
        model_width = self._model_width()
        # Padding 1 + 1 per column, a cell for the scrollbar, "0.000" and a space.
        left = (self._width or 80) - model_width - 2 * (len(self.COLUMNS) + 1) - 1
        return max(0, min(MAX_BAR, left // len(self.COLUMNS) - 6))

    def _model_width(self) -> int:
        longest = max([len("model"), *(len(r.model) for r in self.reports)])
        least, most = MODEL_WIDTH
        return max(least, min(most, longest, (self._width or 80) // 4))

    def _populate(self) -> None:
        self._width = self.size.width
        cursor_row = self.cursor_row
        self.clear(columns=True)
        width = self.bar_width()
        self.add_column("model", width=self._model_width(), key="model")
        for name in self.COLUMNS:
            self.add_column(Text(name, justify="right"), width=width + 6, key=name.lower())
        colours = self.app.theme_variables
        for report in self.reports:
            cells = [bar_cell(v, width, colours) for v in self.values(report)]
            self.add_row(Text(report.model, style="bold"), *cells, key=report.model)
        if self.row_count:
            self.move_cursor(row=min(cursor_row, self.row_count - 1))
