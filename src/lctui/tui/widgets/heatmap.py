"""A keyboard-driven heatmap grid: labelled rows in groups, one column per key, cells
coloured on a red-to-green scale taken from the theme, and a cell cursor.

The widget knows nothing about models or tasks: a screen builds a `HeatGrid` (from SQL
aggregates) and reacts to `Heatmap.CellHighlighted` / `Heatmap.CellSelected`.
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

from lctui.core.text import cell_width, fit, shorten

# Labels longer than these are cut with an ellipsis so cells stay on screen at 80 columns.
MAX_GROUP_WIDTH = 22
MAX_LABEL_WIDTH = 24
CELL_PADDING = 2


@dataclass(frozen=True)
class HeatCell:
    """One cell: `value` in [0, 1] picks the colour; None leaves the cell uncoloured."""

    value: float | None
    text: str
    alert: bool = False  # drawn in the error colour (a cell with errors and no score)


@dataclass(frozen=True)
class HeatRow:
    """A row label; consecutive rows with the same `group` share one group label."""

    group: str
    label: str


@dataclass(frozen=True)
class HeatGrid:
    """What the heatmap shows; `cells` maps (row, column) to a cell, missing = not run."""

    group_title: str
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
        self._grid = HeatGrid("", "", (), ())
        self._group_width = 0
        self._label_width = 0
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
        groups = [r.group for r in grid.rows] + [grid.group_title]
        self._group_width = min(MAX_GROUP_WIDTH, max(cell_width(g) for g in groups))
        labels = [r.label for r in grid.rows] + [grid.corner]
        self._label_width = min(MAX_LABEL_WIDTH, max(cell_width(label) for label in labels))
        self.virtual_size = Size(
            self._fixed_width + self._cell_width * len(grid.columns), len(grid.rows) + 1
        )
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
    def _fixed_width(self) -> int:
        # Group and label columns, each followed by one space.
        return self._group_width + 1 + self._label_width + 1 if self._grid.rows else 0

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
        # The examples list halves the heatmap's height: keep the cursor's cell in view.
        self.call_after_refresh(self._scroll_cursor_into_view)

    def _scroll_cursor_into_view(self) -> None:
        if self._grid.is_empty:
            return
        x = self._fixed_width + self.cursor_column * self._cell_width
        region = Region(x, self.cursor_row + 1, self._cell_width, 1)
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
        self.cursor_row = int(self.scroll_y) + offset.y - 1
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
            fixed, cells = self._header_line()
        else:
            row = scroll_y + y - 1
            if row >= len(self._grid.rows):
                return Strip.blank(width, base)
            fixed, cells = self._row_line(row, first_visible=y == 1)
        visible = max(0, width - self._fixed_width)
        scrolled = cells.crop(scroll_x, scroll_x + visible)
        return Strip.join([fixed, scrolled]).adjust_cell_length(width, base).crop(0, width)

    def _fixed(self, group: str, label: str, group_style: Style, label_style: Style) -> Strip:
        base = self.rich_style
        group_text = fit(group, self._group_width)
        label_text = fit(label, self._label_width)
        return Strip(
            [
                Segment(group_text, group_style),
                Segment(" ", base),
                Segment(label_text, label_style),
                Segment(" ", base),
            ]
        )

    def _header_line(self) -> tuple[Strip, Strip]:
        base = self.rich_style
        header = base + self.get_component_rich_style("heatmap--header")
        cursor_label = header + self.get_component_rich_style("heatmap--cursor-label", partial=True)
        grid = self._grid
        fixed = self._fixed(grid.group_title, grid.corner, header, header)
        segments = [
            Segment(
                fit(" " + shorten(title, self._cell_width - 2, cells=True), self._cell_width),
                cursor_label if i == self.cursor_column else header,
            )
            for i, title in enumerate(grid.columns)
        ]
        return fixed, Strip(segments)

    def _row_line(self, row: int, first_visible: bool) -> tuple[Strip, Strip]:
        base = self.rich_style
        grid = self._grid
        this = grid.rows[row]
        # The group label shows on a group's first row, and on the top visible row so a
        # scrolled-down view still says which group it is in.
        starts_group = row == 0 or grid.rows[row - 1].group != this.group
        group = this.group if starts_group or first_visible else ""
        label_style = base + self.get_component_rich_style("heatmap--label")
        if row == self.cursor_row:
            label_style += self.get_component_rich_style("heatmap--cursor-label", partial=True)
        group_style = base + self.get_component_rich_style("heatmap--group")
        fixed = self._fixed(group, this.label, group_style, label_style)
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
