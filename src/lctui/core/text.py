"""Shortening text for a person to read: one cut at the end, marked with one ellipsis.

Every place that shortens text (a score's explanation, an error summary, a table cell
in the CLI, a heatmap label or a SQL console cell in the TUI) calls `shorten`, so a cut
looks the same everywhere: the text's start, then `…` where the rest was left out.

Widths count characters, or with `cells=True` terminal cells: a wide East Asian
character takes two cells and a combining mark none, as the terminal draws them.
`fit` is the TUI's form: exactly `width` cells, shortened or padded with spaces.
"""

from __future__ import annotations

import unicodedata

ELLIPSIS = "…"

# Characters that take no cell although Unicode calls them neutral width.
_ZERO_WIDTH = frozenset("\u200b\u200c\u200d\u2060\ufeff")


def char_cells(char: str) -> int:
    """Terminal cells one character takes: 2 wide, 0 combining or zero-width, else 1."""
    if char.isascii():
        return 1 if char.isprintable() else 0
    if unicodedata.combining(char) or char in _ZERO_WIDTH:
        return 0
    if unicodedata.category(char) in ("Cc", "Mn", "Me"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def cell_width(text: str) -> int:
    """Terminal cells `text` takes on one line."""
    if text.isascii() and text.isprintable():
        return len(text)  # the common case, without a look at each character
    return sum(char_cells(c) for c in text)


def shorten(text: str, width: int, *, one_line: bool = False, cells: bool = False) -> str:
    """`text` cut to at most `width` characters (terminal cells with `cells`), its end
    replaced by `…` when it does not fit.

    `one_line`: runs of whitespace, newlines included, first become one space and the
    ends are stripped (for a line of a table or an explanation). A width below 1 gives
    the empty string: not even the ellipsis fits.
    """
    if one_line:
        text = " ".join(text.split())
    if width < 1:
        return ""
    if not cells or (text.isascii() and text.isprintable()):
        return text if len(text) <= width else text[: width - 1] + ELLIPSIS
    if cell_width(text) <= width:
        return text
    room, kept = width - 1, 0  # the ellipsis takes one cell
    for end, char in enumerate(text):
        kept += char_cells(char)
        if kept > room:
            return text[:end] + ELLIPSIS
    return text  # not reached: the text was wider than `width`


def fit(text: str, width: int) -> str:
    """`text` in exactly `width` terminal cells: shortened with `…`, or padded with spaces."""
    short = shorten(text, width, cells=True)
    return short + " " * (width - cell_width(short))
