"""A row-cursor table laid out for its width and the theme, redrawn when either changes."""

from __future__ import annotations

from rich.text import Text
from textual.events import Resize
from textual.theme import Theme

from lctui.tui.widgets.safe_table import SafeTable


class FittedTable(SafeTable[Text]):
    """Subclasses fill the table in `_populate`, which sets `_width` to the width it used."""

    def __init__(self, *, id: str | None = None, show_cursor: bool = True) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True, show_cursor=show_cursor)
        self._width = 0

    @property
    def fitted_to(self) -> int:
        """The width the columns were fitted to (the table's, once it has one)."""
        return self._width

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def _theme_changed(self, theme: Theme) -> None:
        self._populate()

    def on_resize(self, event: Resize) -> None:
        if event.size.width != self._width:
            self._populate()

    def _populate(self) -> None:
        raise NotImplementedError
