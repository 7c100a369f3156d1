"""Text from data as the TUI's widgets draw it.

A str given to a Static, a border title or a tab label is read as markup, and Textual
draws any ESC in it (it drops only a few control characters): a model named
`m2\\x1b[31mX` or `[bold]x` would colour the screen or turn into markup. Screens hand
such text over as `shown(text)` (plain Content, its own line breaks kept, whatever else
a terminal would obey shown as escapes: core/text.py) or `shown_line(text)` (the same
on one line: titles, labels). Tables escape their cells themselves (widgets/safe_table.py).
"""

from __future__ import annotations

from textual.content import Content

from lctui.core.text import escape_unprintable


def shown(text: str) -> Content:
    """`text` as plain Content: never markup, its line breaks kept, its other control
    characters (and bidi overrides) shown as escapes."""
    return Content(escape_unprintable(text, keep="\n"))


def shown_line(text: str) -> Content:
    """`text` as plain Content on one line (a title, a label): line breaks escaped too."""
    return Content(escape_unprintable(text))
