"""A keyboard-driven heatmap grid: labelled rows in groups, one column per key, cells
coloured on a red-to-green scale taken from the theme, and a cell cursor.

The widget knows nothing about models or tasks: a screen builds a `HeatGrid` (from SQL
aggregates) and reacts to `Heatmap.CellHighlighted` / `Heatmap.CellSelected`. Each
group gets a heading line (a model's whole name) and row labels use the width the
widget has (tui/state/heat_layout.py): names are never cut at their end, where the
rows of a family differ.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.color import Color
from textual.geometry import Region, Size, Spacing
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from lctui.core.text import cell_width, escape_unprintable, fit, shorten
from lctui.tui.state.heat_layout import HeatLayout, heat_layout

CELL_PADDING = 2
# The label column leaves room for this many cells (all of them when fewer); the
# others scroll into view. Labels get at least MIN_LABEL_WIDTH cells however narrow.
MIN_VISIBLE_COLUMNS = 3
MIN_LABEL_WIDTH = 12


@dataclass(frozen=True)
class HeatCell:
    """One cell: `value` in [0, 1] picks the colour; None leaves the cell uncoloured."""

    value: float | None
    text: str
    alert: bool = False  # drawn in the error colour (a cell with errors and no score)


@dataclass(frozen=True)
class HeatRow:
    """A row label; consecutive rows with the same `group` share one heading line (none
    for the group "")."""

    group: str
    label: str


@dataclass(frozen=True)
class HeatGrid:
    """What the heatmap shows; `cells` maps (row, column) to a cell, missing = not run."""

    corner: str
    columns: tuple[str, ...]
    rows: tuple[HeatRow, ...]
    cells: Mapping[tuple[int, int], HeatCell] = field(default_factory=dict)
    missing: str = "·"

    @property
    def is_empty(self) -> bool:
        return not self.rows or not self.columns


class Heatmap(ScrollView, can_focus=True):
    """A grid of coloured cells with a keyboard cursor; row labels and header stay put
    while the cells scroll, so any size fits in 80x24."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cell", "Examples", id="heatmap.select"),
        Binding("up,k", "move(-1, 0)", "Up", show=False, id="heatmap.up"),
        Binding("down,j", "move(1, 0)", "Down", show=False, id="heatmap.down"),
        Binding("left,h", "move(0, -1)", "Left", show=False, id="heatmap.left"),
        Binding("right,l", "move(0, 1)", "Right", show=False, id="heatmap.right"),
        Binding("home", "jump('first')", "First column", show=False, id="heatmap.home"),
        Binding("end", "jump('last')", "Last column", show=False, id="heatmap.end"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="heatmap.pageup"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="heatmap.pagedown"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "heatmap--header",
        "heatmap--group",
        "heatmap--family",
        "heatmap--label",
        "heatmap--cursor",
        "heatmap--cursor-label",
        "heatmap--missing",
        "heatmap--alert",
        "heatmap--low",
        "heatmap--mid",
        "heatmap--high",
    }

    # The scale's colours come from the theme through CSS, so every theme (dark, light,
    # 256-colour) gets its own readable red, amber and green.
    DEFAULT_CSS = """
    Heatmap {
        height: auto;
        scrollbar-size: 1 1;
        background: $surface;
    }
    Heatmap > .heatmap--header { text-style: bold; color: $text-muted; }
    Heatmap > .heatmap--group { text-style: bold; color: $primary; }
    Heatmap > .heatmap--family { color: $text-muted; }
    Heatmap > .heatmap--label { color: $foreground; }
    Heatmap > .heatmap--cursor { text-style: reverse bold; }
    Heatmap > .heatmap--cursor-label { text-style: bold underline; color: $accent; }
    Heatmap > .heatmap--missing { color: $text-muted; }
    Heatmap > .heatmap--alert { color: $error; text-style: bold; }
    Heatmap > .heatmap--low { color: $error; }
    Heatmap > .heatmap--mid { color: $warning; }
    Heatmap > .heatmap--high { color: $success; }
    """

    cursor_row: reactive[int] = reactive(0, init=False)
    cursor_column: reactive[int] = reactive(0, init=False)

    class _CellMessage(Message):
        def __init__(self, heatmap: Heatmap, row: int, column: int) -> None:
            super().__init__()
            self.heatmap = heatmap
            self.row = row
            self.column = column

        @property
        def control(self) -> Heatmap:
            return self.heatmap

    class CellHighlighted(_CellMessage):
        """The cursor moved to (row, column), or the grid under it changed."""

    class CellSelected(_CellMessage):
        """Enter was pressed on (row, column)."""

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._grid = HeatGrid("", (), ())
        self._layout = HeatLayout((), 0, ())
        self._cell_width = 0

    # -- data ----------------------------------------------------------------------------

    @property
    def grid(self) -> HeatGrid:
        return self._grid

    def set_grid(self, grid: HeatGrid, cursor: tuple[int, int] = (0, 0)) -> None:
        """Show `grid` with the cursor at `cursor` (clamped to the grid)."""
        self._grid = grid
        texts = [c.text for c in grid.cells.values()] + list(grid.columns) + [grid.missing]
        self._cell_width = max(cell_width(t) for t in texts) + CELL_PADDING
        self._lay_out()
        row = max(0, min(cursor[0], len(grid.rows) - 1))
        column = max(0, min(cursor[1], len(grid.columns) - 1))
        self.set_reactive(Heatmap.cursor_row, row)
        self.set_reactive(Heatmap.cursor_column, column)
        self.refresh(layout=True)
        self.call_after_refresh(self._scroll_cursor_into_view)
        self._announce()

    @property
    def cursor(self) -> tuple[int, int]:
        return self.cursor_row, self.cursor_column

    @property
    def row_layout(self) -> HeatLayout:
        """The lines drawn under the header: group headings, family headings, rows."""
        return self._layout

    @property
    def _fixed_width(self) -> int:
        # The label column, followed by one space.
        return self._layout.label_width + 1 if self._grid.rows else 0

    def _lay_out(self) -> None:
        """Place the rows for the width the widget has now (again after a resize)."""
        grid = self._grid
        width = self.scrollable_content_region.width or self.app.size.width
        shown = min(len(grid.columns), MIN_VISIBLE_COLUMNS) * self._cell_width
        room = max(MIN_LABEL_WIDTH, width - 1 - shown)
        # Names from data are drawn with what a terminal would obey shown as escapes.
        rows = [(escape_unprintable(r.group), escape_unprintable(r.label)) for r in grid.rows]
        self._layout = heat_layout(rows, grid.corner, room)
        self.virtual_size = Size(
            self._fixed_width + self._cell_width * len(grid.columns),
            len(self._layout.lines) + 1,
        )

    # -- cursor ---------------------------------------------------------------------------

    def validate_cursor_row(self, row: int) -> int:
        return max(0, min(row, len(self._grid.rows) - 1))

    def validate_cursor_column(self, column: int) -> int:
        return max(0, min(column, len(self._grid.columns) - 1))

    def watch_cursor_row(self) -> None:
        self._cursor_moved()

    def watch_cursor_column(self) -> None:
        self._cursor_moved()

    def _cursor_moved(self) -> None:
        self.refresh()
        self._scroll_cursor_into_view()
        self._announce()

    def _announce(self) -> None:
        if not self._grid.is_empty:
            self.post_message(self.CellHighlighted(self, self.cursor_row, self.cursor_column))

    def on_resize(self) -> None:
        # A new width may give the labels more or less room; the examples list halves
        # the heatmap's height: keep the cursor's cell in view.
        if not self._grid.is_empty:
            self._lay_out()
            self.refresh()
        self.call_after_refresh(self._scroll_cursor_into_view)

    def _scroll_cursor_into_view(self) -> None:
        if self._grid.is_empty:
            return
        x = self._fixed_width + self.cursor_column * self._cell_width
        line = self._layout.line_of_row[self.cursor_row]
        if line > 0 and self._layout.lines[line - 1].kind != "row":
            line -= 1  # the heading above the first row of a group or family comes too
            if line > 0 and self._layout.lines[line - 1].kind == "group":
                line -= 1
        bottom = self._layout.line_of_row[self.cursor_row]
        region = Region(x, line + 1, self._cell_width, bottom - line + 1)
        spacing = Spacing(1, 0, 0, self._fixed_width)
        self.scroll_to_region(region, spacing=spacing, animate=False, force=True)

    def action_move(self, rows: int, columns: int) -> None:
        self.cursor_row += rows
        self.cursor_column += columns

    def action_jump(self, where: str) -> None:
        self.cursor_column = 0 if where == "first" else len(self._grid.columns) - 1

    def action_page(self, direction: int) -> None:
        self.cursor_row += direction * max(1, self.scrollable_content_region.height - 1)

    def action_select_cell(self) -> None:
        if not self._grid.is_empty:
            self.post_message(self.CellSelected(self, self.cursor_row, self.cursor_column))

    def on_click(self, event: events.Click) -> None:
        # The mouse is optional; a click just moves the cursor (enter opens the cell).
        offset = event.get_content_offset(self)
        if offset is None or offset.y < 1 or offset.x < self._fixed_width:
            return
        row = self._layout.row_at(int(self.scroll_y) + offset.y - 1)
        if row is None:
            return  # a heading
        self.cursor_row = row
        cells_x = int(self.scroll_x) + offset.x - self._fixed_width
        self.cursor_column = cells_x // max(1, self._cell_width)

    # -- rendering ----------------------------------------------------------------------

    def _scale_color(self, value: float) -> Color:
        """Red (0) through amber (0.5) to green (1) in the theme's own colours."""
        low = self.get_component_styles("heatmap--low").color
        mid = self.get_component_styles("heatmap--mid").color
        high = self.get_component_styles("heatmap--high").color
        value = max(0.0, min(1.0, value))
        if value < 0.5:
            return low.blend(mid, value / 0.5)
        return mid.blend(high, (value - 0.5) / 0.5)

    def cell_style(self, cell: HeatCell | None) -> Style:
        """The style a cell is drawn with (before the cursor is applied)."""
        base = self.rich_style
        if cell is None:
            return base + self.get_component_rich_style("heatmap--missing")
        if cell.value is not None:
            background = self._scale_color(cell.value)
            # Plain black or white text: the most legible on any cell colour.
            text = background.get_contrast_text(1.0)
            return base + Style(color=text.rich_color, bgcolor=background.rich_color)
        if cell.alert:
            return base + self.get_component_rich_style("heatmap--alert")
        return base + self.get_component_rich_style("heatmap--missing")

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        if self._grid.is_empty:
            return Strip.blank(width, base)
        scroll_x, scroll_y = int(self.scroll_x), int(self.scroll_y)
        if y == 0:
            fixed, cells = self._header_line(scroll_y)
        else:
            index = scroll_y + y - 1
            if index >= len(self._layout.lines):
                return Strip.blank(width, base)
            line = self._layout.lines[index]
            if line.kind == "group":
                return self._heading(line.text, width)
            if line.row is None:  # a family heading: its name, no cells
                style = base + self.get_component_rich_style("heatmap--family")
                return self._fixed(line.text, style).adjust_cell_length(width, base)
            fixed, cells = self._row_line(line.row, line.text)
        visible = max(0, width - self._fixed_width)
        scrolled = cells.crop(scroll_x, scroll_x + visible)
        return Strip.join([fixed, scrolled]).adjust_cell_length(width, base).crop(0, width)

    def _heading(self, group: str, width: int) -> Strip:
        """A group's heading: its whole name across the line (cut only past the width)."""
        style = self.rich_style + self.get_component_rich_style("heatmap--group")
        return Strip([Segment(fit(group, width), style)])

    def _fixed(self, label: str, label_style: Style) -> Strip:
        """The label column: the label in its style (the cursor's underline under the
        name only, not its indent or the padding after it), then one space."""
        base = self.rich_style
        label_text = fit(label, self._layout.label_width)
        name = label_text.strip(" ")
        indent = len(label_text) - len(label_text.lstrip(" "))
        after = label_text[indent + len(name) :]
        return Strip(
            [
                Segment(label_text[:indent], base),
                Segment(name, label_style),
                Segment(after + " ", base),
            ]
        )

    def _header_line(self, scroll_y: int) -> tuple[Strip, Strip]:
        base = self.rich_style
        header = base + self.get_component_rich_style("heatmap--header")
        cursor_label = header + self.get_component_rich_style("heatmap--cursor-label", partial=True)
        grid = self._grid
        # Scrolled past a group's heading, the header names the group at the top.
        group = self._group_above(scroll_y)
        if group is None:
            fixed = self._fixed(grid.corner, header)
        else:
            fixed = self._fixed(group, base + self.get_component_rich_style("heatmap--group"))
        segments = [
            Segment(
                fit(" " + shorten(title, self._cell_width - 2, cells=True), self._cell_width),
                cursor_label if i == self.cursor_column else header,
            )
            for i, title in enumerate(grid.columns)
        ]
        return fixed, Strip(segments)

    def _group_above(self, scroll_y: int) -> str | None:
        """The group of the top visible line when its heading is scrolled out of view."""
        lines = self._layout.lines
        if scroll_y <= 0 or scroll_y >= len(lines) or lines[scroll_y].kind == "group":
            return None
        for line in reversed(lines[:scroll_y]):
            if line.kind == "group":
                return line.text
        return None

    def _row_line(self, row: int, label: str) -> tuple[Strip, Strip]:
        base = self.rich_style
        grid = self._grid
        label_style = base + self.get_component_rich_style("heatmap--label")
        if row == self.cursor_row:
            label_style += self.get_component_rich_style("heatmap--cursor-label", partial=True)
        fixed = self._fixed(label, label_style)
        # Partial: only the cursor's text style, so the cell keeps its score colour.
        cursor = self.get_component_rich_style("heatmap--cursor", partial=True)
        segments = []
        for column in range(len(grid.columns)):
            cell = grid.cells.get((row, column))
            style = self.cell_style(cell)
            if (row, column) == self.cursor:
                style += cursor
            text = grid.missing if cell is None else cell.text
            # Left-aligned after one space, so the means line up under the header.
            segments.append(Segment(f" {text}".ljust(self._cell_width), style))
        return fixed, Strip(segments)
