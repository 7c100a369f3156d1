"""A modal list of models to re-run an inspected prompt on (configured, then built-in)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from lctui.core.text import escape_unprintable, shorten
from lctui.core.types import ModelSpec


class ModelPicker(ModalScreen[ModelSpec | None]):
    """Pick a model: enter chooses, escape cancels (dismissed with None)."""

    DEFAULT_CSS = """
    ModelPicker { align: center middle; }
    ModelPicker > OptionList { width: 76; max-height: 18; border: round $accent; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Cancel", id="inspector.pick-cancel")
    ]

    def __init__(self, models: Sequence[ModelSpec]) -> None:
        super().__init__()
        self.models = list(models)

    def compose(self) -> ComposeResult:
        options = [
            Option(
                Content.assemble(
                    (escape_unprintable(m.name), "bold"),
                    f"  {m.backend}  ",
                    escape_unprintable(shorten(m.description, 50)),
                )
            )
            for m in self.models
        ]
        picker = OptionList(*options)
        picker.border_title = "Re-run this example on"
        yield picker

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.models[event.option_index])
