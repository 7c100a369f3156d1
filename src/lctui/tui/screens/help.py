"""The help screen: every key binding of the screen below it and of the app, named as
people write keys (`?`, `]`, `ctrl+n`: tui/keys.py, the footer's formatter too)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from lctui.tui.keys import key_name, keys_name
from lctui.tui.widgets.safe_table import SafeTable


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > #help-box { width: 76; max-height: 22; border: round $primary;
                             background: $surface; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,f1,question_mark", "dismiss", "Close", id="close-help")
    ]

    def compose(self) -> ComposeResult:
        table = SafeTable[str](id="help-box", cursor_type="row", zebra_stripes=True)
        table.border_title = f"Keys ({key_name('ctrl+p')}: command palette)"
        yield table
        yield Static("")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("key", "action", "where")
        below = self.app.screen_stack[-2] if len(self.app.screen_stack) > 1 else None
        seen: set[tuple[str, str]] = set()
        sources = [("this screen", below), ("everywhere", self.app)]
        for where, node in sources:
            if node is None:
                continue
            for binding in _bindings(node):
                key = (binding.key, binding.description)
                if key in seen or not binding.description:
                    continue
                seen.add(key)
                table.add_row(keys_name(binding.key), binding.description, where)


def _bindings(node: object) -> list[Binding]:
    out: list[Binding] = []
    for item in getattr(node, "BINDINGS", []):
        if isinstance(item, Binding):
            out.append(item)
        elif isinstance(item, tuple) and len(item) >= 3:
            out.append(Binding(item[0], item[1], item[2]))
    return out
