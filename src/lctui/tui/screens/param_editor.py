"""Editing one task parameter from the launch screen's task tree.

The field takes what `--set TASK.PARAM=VALUE` takes (a JSON or TOML literal, or plain
text for a choice) and the value is checked as `--set` checks it, the task's other
changed parameters included; an empty field restores the default. A value the task
refuses keeps the editor open with the reason; escape leaves the parameter as it was.
Dismissed with `(value,)`, or None when cancelled.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from lctui.core.errors import UserInputError
from lctui.core.types import ParamSpec
from lctui.tui.widgets.ordered_keys import OrderedInput


class ParamEditor(ModalScreen[tuple[Any] | None]):
    """The value of `task.param`, checked by `check` (raises UserInputError)."""

    DEFAULT_CSS = """
    ParamEditor { align: center middle; }
    ParamEditor > #param-box { width: 74; max-width: 100%; height: auto;
                               border: round $accent; background: $surface; padding: 0 1; }
    ParamEditor #param-help { color: $text-muted; }
    ParamEditor #param-value { margin: 1 0 0 0; }
    ParamEditor #param-error { height: auto; }
    ParamEditor #param-keys { color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="param-cancel"),
    ]

    def __init__(
        self, task: str, spec: ParamSpec, current: str, check: Callable[[str], Any]
    ) -> None:
        super().__init__()
        self.task_name = task
        self.spec = spec
        self.current = current
        self.check = check

    def compose(self) -> ComposeResult:
        with Vertical(id="param-box") as box:
            box.border_title = f"{self.task_name}.{self.spec.name}"
            allowed = self.spec.allowed()
            accepts = f" Accepts {allowed}." if allowed else ""
            default = f" Default {self.spec.default!r}." if self.spec.default is not None else ""
            yield Static(f"{self.spec.help}.{accepts}{default}".lstrip("."), id="param-help")
            yield OrderedInput(self.current, id="param-value")
            yield Static("", id="param-error", classes="error-text")
            yield Static("enter: set · empty: the default · escape: cancel", id="param-keys")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted, "#param-value")
    def _submitted(self, event: Input.Submitted) -> None:
        try:
            value = self.check(event.value)
        except UserInputError as exc:
            self.query_one("#param-error", Static).update(f"✗ {exc}")
            return
        self.dismiss((value,))

    @on(Input.Changed, "#param-value")
    def _changed(self, event: Input.Changed) -> None:
        """A shown error goes as soon as it no longer holds (or says what holds now)."""
        error = self.query_one("#param-error", Static)
        if not str(error.render()).strip():
            return
        try:
            self.check(event.value)
        except UserInputError as exc:
            error.update(f"✗ {exc}")
        else:
            error.update("")

    def action_cancel(self) -> None:
        self.dismiss(None)
