"""One table of a suite's report (`lctui.core.suites.ReportTable`) fitted to its width:
no cell padding, every column after the first right-aligned in a width one wider than
its longest cell or heading (the space between columns), the first (the model) given
what is left and its names shortened to it, cut in the middle so no two read alike."""

from __future__ import annotations

from rich.text import Text

from lctui.core.suites import ReportTable
from lctui.core.text import abbreviate
from lctui.tui.widgets.fitted_table import FittedTable

SCROLLBAR = 1
NARROWEST = 8  # the first column's least width


class ReportTableView(FittedTable):
    """The rows of `table` under its narrow headings; a cell cursor when the suite
    details its cells (`ReportTable.cell_details`)."""

    def __init__(self, table: ReportTable, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.table = table
        self.cell_padding = 0  # the columns' widths hold the space between them
        self.cursor_type = "cell" if table.cell_details else "row"
        self.border_title = table.title

    def _populate(self) -> None:
        self._width = self.size.width
        cursor = self.cursor_coordinate
        self.clear(columns=True)
        headings = self.table.narrow_columns()
        if not headings:
            return
        rows = self.table.rows
        widths = [
            1 + max(len(h), *(len(r[j]) for r in rows if j < len(r)))
            for j, h in enumerate(headings)
        ]
        first = max(NARROWEST, (self._width or 80) - sum(widths[1:]) - SCROLLBAR)
        self.add_column(headings[0], width=first, key="0")
        for j, heading in enumerate(headings[1:], 1):
            self.add_column(Text(heading, justify="right"), width=widths[j], key=str(j))
        names = abbreviate([r[0] if r else "" for r in rows], first - 1)
        for i, (row, name) in enumerate(zip(rows, names, strict=True)):
            cells = (Text(c, justify="right") for c in row[1 : len(headings)])
            self.add_row(Text(name), *cells, key=str(i))
        if self.row_count:
            self.move_cursor(row=min(cursor.row, self.row_count - 1), column=cursor.column)
