"""Keys typed fast are applied in the order typed (issue 24, item 14): a bound key
(backspace, an arrow) sent in the same terminal read as the characters after it acts
before them, in every input and editor of the app. Textual applied it after them
(Textualize/textual#6605); `tui/widgets/ordered_keys.py` works around it. Keys go in as
one read of the terminal (`type_in_one_read`), the way a paste or fast typing over SSH
reaches the app."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

import lctui.tui
from helpers.pilot import open_launch, settle, type_in_one_read
from helpers.sql_console import open_console
from lctui.tui.app import LctuiApp
from lctui.tui.screens.sql_console import SqlEditor
from lctui.tui.widgets.ordered_keys import OrderedInput, OrderedTextArea

MakeApp = Callable[..., LctuiApp]
BACKSPACE = "\x7f"
LEFT = "\x1b[D"
WORKAROUND = Path(lctui.tui.__file__).parent / "widgets" / "ordered_keys.py"


def text_of(widget: Input | TextArea) -> str:
    return widget.value if isinstance(widget, Input) else widget.text


async def typed(pilot: Pilot[Any], widget: Input | TextArea, keys: str, want: str) -> str:
    """What `widget` holds once `keys`, sent in one read, are all handled. The buggy
    order never passes through `want` ("b a ⌫ c" goes b, ba, bac, ba), so waiting for it
    is bounded only against a hang; the final settle catches a late key."""
    widget.focus()
    await pilot.pause()
    type_in_one_read(pilot, keys)
    for _ in range(100):
        if text_of(widget) == want:
            break
        await pilot.pause(0.05)
    await settle(pilot)
    return text_of(widget)


class TwoFields(App[None]):
    def compose(self) -> ComposeResult:
        yield OrderedInput(id="line")
        yield OrderedTextArea(id="editor")


@pytest.mark.parametrize("field", ["#line", "#editor"], ids=["input", "text_area"])
@pytest.mark.parametrize(
    ("keys", "want"),
    [(f"ba{BACKSPACE}c", "bc"), (f"ab{LEFT}c", "acb")],
    ids=["backspace", "left"],
)
async def test_a_bound_key_acts_before_the_characters_typed_after_it(
    field: str, keys: str, want: str
) -> None:
    app = TwoFields()
    async with app.run_test() as pilot:
        widget = app.query_one(field)
        assert isinstance(widget, Input | TextArea)
        assert await typed(pilot, widget, keys, want) == want


@pytest.mark.usefixtures("blank_home")
async def test_the_n_field_holding_2_takes_backspace_then_5_as_5(make_app: MakeApp) -> None:
    async with make_app().run_test(size=(120, 40)) as pilot:
        screen = await open_launch(pilot)
        field = screen.query_one("#n", Input)
        field.value = "2"
        field.cursor_position = len(field.value)
        assert await typed(pilot, field, f"{BACKSPACE}5", "5") == "5"


async def test_the_sql_editor_keeps_the_typed_order(
    make_app: MakeApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LCTUI_DATA_DIR", str(tmp_path / "data"))
    async with make_app().run_test(size=(120, 40)) as pilot:
        screen = await open_console(pilot)
        editor = screen.query_one(SqlEditor)
        editor.text = ""
        keys = f"ss{BACKSPACE}elect 1 grop{BACKSPACE}up by mode"
        assert await typed(pilot, editor, keys, "select 1 group by mode") == (
            "select 1 group by mode"
        )


def _textual_field_names(tree: ast.Module) -> set[str]:
    """Local names of textual's Input and TextArea in a module."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("textual"):
            names |= {a.asname or a.name for a in node.names if a.name in {"Input", "TextArea"}}
    return names


def test_every_input_and_editor_of_the_app_keeps_the_typed_order() -> None:
    """No module of the TUI makes or subclasses Textual's own Input or TextArea: every
    field is an OrderedInput or OrderedTextArea (or a subclass), until Textual's fix."""
    offenders: list[str] = []
    for path in sorted(WORKAROUND.parents[1].rglob("*.py")):
        if path == WORKAROUND:
            continue
        tree = ast.parse(path.read_text(), str(path))
        names = _textual_field_names(tree)
        for node in ast.walk(tree):
            used: list[ast.expr] = []
            if isinstance(node, ast.Call):
                used = [node.func]
            elif isinstance(node, ast.ClassDef):
                used = node.bases
            offenders += [
                f"{path.name}:{expr.lineno}"
                for expr in used
                if isinstance(expr, ast.Name) and expr.id in names
            ]
    assert offenders == []
