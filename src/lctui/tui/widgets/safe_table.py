"""The TUI's tables: a DataTable whose values never act on the terminal.

Model, task and run names, outputs and messages come from data. A str cell of a
DataTable is read as rich markup and drawn with any ESC in it (Textual drops only a
few control characters), so every value passes through `shown_cell` on its way in: a
str is drawn on one line, its control characters as escapes (`\\n`, `\\x1b`) and its
brackets as they are; a Text, built by the screen, keeps its own line breaks and shows
the rest (cli/terminal.py `safe_text`). Every table of the TUI is a `SafeTable`.
"""

from __future__ import annotations

from typing import TypeVar, cast

from rich.markup import escape as escape_markup
from rich.text import Text, TextType
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey, RowKey

from lctui.cli.terminal import safe_text
from lctui.core.text import escape_unprintable

T = TypeVar("T")


def shown_cell(value: T) -> T:
    """`value` as a table draws it safely (see the module's docstring)."""
    if isinstance(value, str):
        if value.isprintable() and "[" not in value:
            return value  # the common case, unchanged (and equal to what was given)
        return cast(T, escape_markup(escape_unprintable(value)))
    if isinstance(value, Text):
        return cast(T, safe_text(value))
    return value


class SafeTable(DataTable[T]):
    """A DataTable that shows every value it is given through `shown_cell` (cells
    updated by coordinate go through `update_cell` too)."""

    def add_column(
        self,
        label: TextType,
        *,
        width: int | None = None,
        key: str | None = None,
        default: T | None = None,
    ) -> ColumnKey:
        return super().add_column(shown_cell(label), width=width, key=key, default=default)

    def add_row(
        self,
        *cells: T,
        height: int | None = 1,
        key: str | None = None,
        label: TextType | None = None,
    ) -> RowKey:
        shown = [shown_cell(cell) for cell in cells]
        return super().add_row(
            *shown, height=height, key=key, label=None if label is None else shown_cell(label)
        )

    def update_cell(
        self,
        row_key: RowKey | str,
        column_key: ColumnKey | str,
        value: T,
        *,
        update_width: bool = False,
    ) -> None:
        super().update_cell(row_key, column_key, shown_cell(value), update_width=update_width)
