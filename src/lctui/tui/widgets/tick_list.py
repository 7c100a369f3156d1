"""Ticked or not, readable without colour: one look for every pick list of the app.

Textual's SelectionList draws the same `X` on a ticked and an unticked line and tells
them apart by colour alone; `TickList` draws `[x]` and `[ ]` instead, as the launch
screen's task tree does, and `[-]` for a choice that cannot be ticked; `TickBox` is a
Checkbox drawn the same way. `tick_mark` is the one place these marks are written.
"""

from __future__ import annotations

from typing import TypeVar

from rich.segment import Segment
from rich.style import Style
from textual.content import Content
from textual.strip import Strip
from textual.widgets import Checkbox, OptionList, SelectionList
from textual.widgets.option_list import OptionDoesNotExist

TICKED = "[x] "
UNTICKED = "[ ] "
UNAVAILABLE = "[-] "

ValueT = TypeVar("ValueT")


def tick_mark(ticked: bool, available: bool = True) -> str:
    """The mark before a choice: `[x] `, `[ ] `, or `[-] ` when it cannot be ticked."""
    if not available:
        return UNAVAILABLE
    return TICKED if ticked else UNTICKED


class TickList(SelectionList[ValueT]):
    """A SelectionList whose lines start with `[x]`, `[ ]` or `[-]` (disabled)."""

    def _get_left_gutter_width(self) -> int:
        return len(TICKED)

    def render_line(self, y: int) -> Strip:
        # The option's own line (prompt, highlight), without SelectionList's button.
        line = OptionList.render_line(self, y)
        index = self.scroll_offset.y + y
        try:
            option = self.get_option_at_index(index)
        except OptionDoesNotExist:
            return line
        ticked = option.value in self._selected
        underlying = next(iter(line)).style or self.rich_style
        # An unticked mark in the line's own colour; a ticked one bold in the list's
        # "selected" colour too: the x says it, the colour only repeats it.
        style = underlying + Style(meta={"option": index})
        if ticked:
            style += self.get_component_rich_style("selection-list--button-selected")
            style += Style(bold=True, bgcolor=underlying.bgcolor)
        mark = tick_mark(ticked, not option.disabled)
        return Strip([Segment(mark, style), *line])


class TickBox(Checkbox):
    """A Checkbox whose box reads `[x]` or `[ ]` (Textual's draws `X` either way)."""

    @property
    def _button(self) -> Content:
        mark = tick_mark(self.value).rstrip()
        return Content.styled(mark, "bold") if self.value else Content(mark)
