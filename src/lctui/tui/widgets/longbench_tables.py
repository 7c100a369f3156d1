"""The LongBench v2 screen's two tables: the original's columns (overall, compensated,
easy, hard, short, medium, long, n, unparsed) and the accuracy per domain, one row per
model, mode and length (`analysis.longbench.LongBenchScores`).

Both fit 80 columns: no cell padding, numbers right-aligned in columns one wider than
their longest value (the space between columns), the model column given what is left
and the model's name shortened to it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.text import Text

from lctui.analysis.longbench import (
    BUCKET_GROUPS,
    DIFFICULTY_GROUPS,
    DOMAIN_HEADINGS,
    HEADINGS,
    OVERALL,
    LongBenchScores,
    shown,
)
from lctui.core.lengths import format_length
from lctui.core.text import abbreviate
from lctui.tui.state.longbench import MODE_NAMES
from lctui.tui.widgets.fitted_table import FittedTable

MODE_WIDTH = max(map(len, MODE_NAMES.values()))
LENGTH_WIDTH = 5  # " 128k": right-aligned, the space before it ends the mode
SCROLLBAR = 1


@dataclass(frozen=True)
class Column:
    """A column of numbers: its heading, its width (with the space before it) and how a
    row's cell reads."""

    heading: str
    width: int
    cell: Callable[[LongBenchScores], str]
    key: str


def _accuracy(group: str) -> Callable[[LongBenchScores], str]:
    return lambda r: shown(r.groups[group].accuracy) if group in r.groups else "-"


def accuracy_columns() -> list[Column]:
    """The original's columns, the compensated overall after the overall."""
    groups = (OVERALL, *DIFFICULTY_GROUPS, *BUCKET_GROUPS)
    columns = [Column(HEADINGS[g], max(6, len(HEADINGS[g]) + 1), _accuracy(g), g) for g in groups]
    columns.insert(1, Column("Comp.", 6, lambda r: shown(r.overall.compensated), "compensated"))
    columns.append(Column("n", 4, lambda r: str(r.overall.n), "n"))
    columns.append(Column("unparsed", 9, lambda r: str(r.overall.unparsed), "unparsed"))
    return columns


def domain_columns() -> list[Column]:
    """One column per domain, under its short name."""
    return [Column(short, 7, _accuracy(full), full) for full, short in DOMAIN_HEADINGS.items()]


class ScoreTable(FittedTable):
    """Rows of LongBench v2 scores: model, mode and length, then `columns`."""

    DEFAULT_CSS = """
    ScoreTable { height: 1fr; }
    """

    def __init__(self, columns: Sequence[Column], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.cell_padding = 0  # the columns' widths hold the space between them
        self.columns_shown = list(columns)
        self.rows_shown: list[LongBenchScores] = []

    def show_rows(self, rows: Sequence[LongBenchScores]) -> None:
        self.rows_shown = list(rows)
        self._populate()

    def _populate(self) -> None:
        self._width = self.size.width
        cursor = self.cursor_coordinate
        self.clear(columns=True)
        numbers = sum(c.width for c in self.columns_shown)
        model_width = max(8, (self._width or 80) - numbers - MODE_WIDTH - LENGTH_WIDTH - SCROLLBAR)
        self.add_column("model", width=model_width, key="model")
        self.add_column("mode", width=MODE_WIDTH, key="mode")
        self.add_column(Text("len", justify="right"), width=LENGTH_WIDTH, key="length")
        for column in self.columns_shown:
            heading = Text(column.heading, justify="right")
            self.add_column(heading, width=column.width, key=column.key)
        # Models whole where they fit, else cut in the middle so that no two read alike.
        models = abbreviate([row.model for row in self.rows_shown], model_width - 1)
        for i, (row, model) in enumerate(zip(self.rows_shown, models, strict=True)):
            self.add_row(
                Text(model),
                Text(MODE_NAMES.get(row.task, row.task)),
                Text(format_length(row.length), justify="right"),
                *(Text(c.cell(row), justify="right") for c in self.columns_shown),
                key=str(i),
            )
        if self.row_count:
            self.move_cursor(row=min(cursor.row, self.row_count - 1), column=cursor.column)
