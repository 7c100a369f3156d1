"""What the CLI writes to a terminal, made safe from the data it shows.

Names, outputs, file names and servers' messages are hostile text: a model named
`m2\\n\\x1b[31mX` must neither colour the terminal nor start a new line, and one named
`[bold]x` must not turn into rich markup. Commands build their messages with `data`
(the value on one line, its controls shown as escapes, its brackets inert) and print
through `SafeConsole`, which escapes any control character still in what it draws, so a
value a command forgot to pass through `data` is shown, never obeyed.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import IO

from rich.console import Console, ConsoleOptions, RenderableType
from rich.markup import escape as escape_markup
from rich.segment import Segment
from rich.text import Text

from lctui.core.text import escape_unprintable


class SafeConsole(Console):
    """A rich Console whose drawn text never holds a control character but its line
    breaks: Rich drops some (a bell, a carriage return) and keeps others (ESC, CSI)."""

    def render(
        self, renderable: RenderableType, options: ConsoleOptions | None = None
    ) -> Iterable[Segment]:
        for segment in super().render(renderable, options):
            if segment.control is None and not segment.text.isprintable():
                text = escape_unprintable(segment.text, keep="\n")
                yield Segment(text, segment.style) if text != segment.text else segment
            else:
                yield segment


def data(value: object) -> str:
    """A value from data, for a message in rich markup: on one line, its control
    characters shown as escapes, its square brackets never markup."""
    return escape_markup(escape_unprintable(str(value)))


def document(value: object) -> str:
    """A document from data (a prompt, an output), for rich markup: its lines and tabs
    kept, every other control character shown as an escape, its brackets never markup."""
    return escape_markup(escape_unprintable(str(value), keep="\n\t"))


def cell(value: object) -> Text:
    """A table cell holding a value from data: plain text (a str cell of a rich table
    would be read as markup), its control characters shown."""
    return Text(escape_unprintable(str(value)))


def plain(value: object) -> str:
    """A value from data for plain text (no markup): its control characters shown."""
    return escape_unprintable(str(value))


def safe_text(text: Text) -> Text:
    """A styled Text with its control characters but its line breaks shown as escapes,
    each piece keeping its style (the escapes are longer than what they stand for).
    Whoever builds a Text chooses its line breaks, so values from data go into it
    through `plain` first; Rich itself drops some controls (a bell, a carriage return)
    as it makes a Text, and keeps others (ESC)."""
    if text.plain.isprintable():
        return text
    cuts = sorted({offset for span in text.spans for offset in (span.start, span.end)})
    safe = Text(style=text.style, justify=text.justify, no_wrap=text.no_wrap, end=text.end)
    for piece in text.divide(cuts):
        escaped = Text(escape_unprintable(piece.plain, keep="\n"), style=piece.style)
        for span in piece.spans:
            escaped.stylize(span.style, 0, len(escaped.plain))
        safe.append_text(escaped)
    return safe


def say(line: str, *, file: IO[str] | None = None) -> None:
    """Print a plain line (no markup) whose data is already in it: controls shown."""
    print(escape_unprintable(line), file=file or sys.stdout)
