"""A read-only table over a pyarrow Table that formats only the rows on screen.

Textual's DataTable builds every row up front (seconds at 100K rows); this one keeps
the Arrow table, renders lines on demand (`render_line`, as the heatmap does) and
converts rows to text a block at a time, keeping the last few blocks in a small cache.
"""

from __future__ import annotations

import datetime as dt
from collections import OrderedDict
from typing import Any, ClassVar

import pyarrow as pa
from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size, Spacing
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from lctui.core.text import cell_width, escape_unprintable, fit

BLOCK_ROWS = 256  # rows converted to text at once
CACHED_BLOCKS = 16
WIDTH_SAMPLE = 200  # rows read to size the columns
MAX_COLUMN_WIDTH = 40
NULL = "∅"


def cell_text(value: Any) -> str:
    """One value on one line: NULL as ∅, floats to 6 significant digits, a line break
    as ⏎ and any other control character as an escape (`\\x1b`)."""
    if value is None:
        return NULL
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ")
    return escape_unprintable(str(value).replace("\n", "⏎"))


class ArrowTable(ScrollView, can_focus=True):
    """Header fixed at the top, a row cursor, and rows formatted as they come into view."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(-1)", "Up", show=False, id="arrow-table.up"),
        Binding("down,j", "move(1)", "Down", show=False, id="arrow-table.down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="arrow-table.pageup"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="arrow-table.pagedown"),
        Binding("home", "jump('first')", "First row", show=False, id="arrow-table.home"),
        Binding("end", "jump('last')", "Last row", show=False, id="arrow-table.end"),
        Binding("left,h", "pan(-8)", "Left", show=False, id="arrow-table.left"),
        Binding("right,l", "pan(8)", "Right", show=False, id="arrow-table.right"),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "arrow-table--header",
        "arrow-table--cursor",
        "arrow-table--null",
        "arrow-table--odd",
    }
    DEFAULT_CSS = """
    ArrowTable { height: 1fr; scrollbar-size: 1 1; background: $surface; }
    ArrowTable > .arrow-table--header { text-style: bold; color: $text; background: $panel; }
    ArrowTable > .arrow-table--cursor { background: $accent 30%; }
    ArrowTable > .arrow-table--null { color: $text-muted; }
    ArrowTable > .arrow-table--odd { background: $boost; }
    """

    cursor_row: reactive[int] = reactive(0, init=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._table = pa.table({})
        self._widths: list[int] = []
        self._blocks: OrderedDict[int, list[list[str]]] = OrderedDict()
        self.rows_converted = 0  # rows turned into text so far (tests check it stays small)

    @property
    def table(self) -> pa.Table:
        return self._table

    @property
    def row_count(self) -> int:
        return int(self._table.num_rows)

    def show(self, table: pa.Table) -> None:
        self._table = table
        self._blocks.clear()
        self.rows_converted = 0
        self._widths = [cell_width(cell_text(name)) for name in table.column_names]
        if table.num_rows:
            # The first and last rows size the columns; a wider block met later widens them.
            self._rows(0)
            self._rows(table.num_rows - 1)
        self._resize()
        self.set_reactive(ArrowTable.cursor_row, 0)
        self.scroll_to(0, 0, animate=False)
        self.refresh(layout=True)

    def _resize(self) -> None:
        self.virtual_size = Size(sum(w + 2 for w in self._widths), self._table.num_rows + 1)

    def _rows(self, row: int) -> list[list[str]]:
        """The text of the block holding `row` (converted once, then cached)."""
        start = row - row % BLOCK_ROWS
        block = self._blocks.get(start)
        if block is not None:
            self._blocks.move_to_end(start)
            return block
        chunk = self._table.slice(start, BLOCK_ROWS)
        columns = [chunk.column(i).to_pylist() for i in range(chunk.num_columns)]
        block = [[cell_text(c[r]) for c in columns] for r in range(chunk.num_rows)]
        self.rows_converted += len(block)
        self._blocks[start] = block
        if len(self._blocks) > CACHED_BLOCKS:
            self._blocks.popitem(last=False)
        widths = [
            min(MAX_COLUMN_WIDTH, max([w, *(cell_width(r[i]) for r in block[:WIDTH_SAMPLE])]))
            for i, w in enumerate(self._widths)
        ]
        if widths != self._widths:
            self._widths = widths
            self._resize()
        return block

    def row_text(self, row: int) -> list[str]:
        return self._rows(row)[row % BLOCK_ROWS]

    # -- cursor ---------------------------------------------------------------------

    def validate_cursor_row(self, row: int) -> int:
        return max(0, min(row, self.row_count - 1))

    def watch_cursor_row(self) -> None:
        self.refresh()
        region = Region(int(self.scroll_x), self.cursor_row + 1, 1, 1)
        self.scroll_to_region(region, spacing=Spacing(1, 0, 0, 0), animate=False, force=True)

    def action_move(self, rows: int) -> None:
        self.cursor_row += rows

    def action_page(self, direction: int) -> None:
        self.cursor_row += direction * max(1, self.scrollable_content_region.height - 1)

    def action_jump(self, where: str) -> None:
        self.cursor_row = 0 if where == "first" else self.row_count - 1

    def action_pan(self, columns: int) -> None:
        self.scroll_to(x=self.scroll_x + columns, animate=False)

    # -- rendering --------------------------------------------------------------------

    def _line(self, cells: list[str], style: Style, null: Style) -> Strip:
        segments = []
        for text, width in zip(cells, self._widths, strict=True):
            segments.append(Segment(" " + fit(text, width) + " ", style))
            if text == NULL:
                segments[-1] = Segment(segments[-1].text, style + null)
        return Strip(segments)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        if not self._widths:
            return Strip.blank(width, base)
        if y == 0:
            style = base + self.get_component_rich_style("arrow-table--header")
            line = self._line([cell_text(n) for n in self._table.column_names], style, Style())
        else:
            row = int(self.scroll_y) + y - 1
            if row >= self.row_count:
                return Strip.blank(width, base)
            style = base
            if row % 2:
                style += self.get_component_rich_style("arrow-table--odd", partial=True)
            if row == self.cursor_row:
                style += self.get_component_rich_style("arrow-table--cursor", partial=True)
            null = self.get_component_rich_style("arrow-table--null", partial=True)
            line = self._line(self.row_text(row), style, null)
        scroll_x = int(self.scroll_x)
        return line.crop(scroll_x, scroll_x + width).adjust_cell_length(width, base)
