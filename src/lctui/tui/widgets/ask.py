"""A one-line question in a modal: a title, an input with a default, enter to answer,
escape to cancel (the screen is dismissed with None)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from lctui.tui.widgets.ordered_keys import OrderedInput


class AskScreen(ModalScreen[str | None]):
    DEFAULT_CSS = """
    AskScreen { align: center middle; }
    AskScreen > Vertical {
        width: 80%; max-width: 100; height: auto;
        border: round $primary; background: $surface; padding: 0 1;
    }
    AskScreen .ask-note { color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="ask.cancel"),
    ]

    def __init__(self, title: str, default: str = "", note: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.default = default
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, markup=False)
            yield OrderedInput(self.default, id="ask-input")
            if self.note:
                yield Static(self.note, classes="ask-note", markup=False)

    def on_mount(self) -> None:
        self.query_one(Vertical).border_title = "enter: ok · escape: cancel"
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
