"""Shortening text for a person to read: one cut at the end, marked with one ellipsis.

Every place that shortens text (a score's explanation, an error summary, a table cell
in the CLI, a heatmap label or a SQL console cell in the TUI) calls `shorten`, so a cut
looks the same everywhere: the text's start, then `…` where the rest was left out.

Widths count characters, or with `cells=True` terminal cells: a wide East Asian
character takes two cells and a combining mark none, as the terminal draws them.
`fit` is the TUI's form: exactly `width` cells, shortened or padded with spaces.

Identifiers that tell rows apart (task and model names) are never cut at the end, where
two of a family differ (`niah_multikey_1`, `niah_multikey_2`): `abbreviate` keeps a
name whole where it fits and otherwise cuts its middle, so that no two read the same;
`family_runs` finds the names that share a first word (`lifbench_*`), which a table
can show once as a group and fold out of each name; `fold_names` does both in a list
with no room for a heading: the folded prefix becomes a leading `…`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

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


def _head(text: str, cells: int) -> str:
    """The longest start of `text` within `cells` terminal cells."""
    kept = 0
    for end, char in enumerate(text):
        kept += char_cells(char)
        if kept > cells:
            return text[:end]
    return text


def _tail(text: str, cells: int) -> str:
    """The longest end of `text` within `cells` terminal cells."""
    return _head(text[::-1], cells)[::-1]


def abbreviate(names: Sequence[str], width: int) -> list[str]:
    """Each of `names` within `width` terminal cells, the list still telling them apart.

    A name that fits stays whole. A longer one keeps its start and its end with `…`
    between them (`lifbench_b…query_element`): names of one family differ at their
    end as often as at their start (`_1` and `_2`, `_id` and `_element`), which a cut
    at the end would lose. Where two would read the same, the cut moves along the name
    until they differ (as long as the width leaves a choice); equal names stay equal.
    Below 3 cells there is no room for both ends and `shorten` cuts the end.
    """
    if width < 3:
        return [shorten(name, width, cells=True) for name in names]
    chosen: dict[str, str] = {name: name for name in names if cell_width(name) <= width}
    taken = set(chosen.values())
    room = width - 1  # the ellipsis takes one cell
    middle = (room + 1) // 2
    # Heads from the middle outwards: the middle first, then a longer and a shorter one.
    heads = sorted(range(1, room), key=lambda head: (abs(head - middle), -head))
    for name in names:
        if name in chosen:
            continue
        forms = [_head(name, head) + ELLIPSIS + _tail(name, room - head) for head in heads]
        form = next((f for f in forms if f not in taken), forms[0])
        chosen[name] = form
        taken.add(form)
    return [chosen[name] for name in names]


def family_runs(names: Sequence[str], sep: str = "_", least: int = 2) -> list[tuple[int, int, str]]:
    """Runs of consecutive names that share their first word and its separator, at least
    `least` long: (start, end, family) with `family` such as `lifbench_`, `end` past the
    run. A name of one word (`vt`) or one whose rest would be empty is in no run."""
    runs: list[tuple[int, int, str]] = []
    start = 0
    while start < len(names):
        family = name_family(names[start], sep)
        end = start + 1
        while family and end < len(names) and name_family(names[end], sep) == family:
            end += 1
        if family and end - start >= least:
            runs.append((start, end, family))
        start = end
    return runs


def name_family(name: str, sep: str = "_") -> str:
    """The first word of an identifier with its separator (`lifbench_` of `lifbench_qa`),
    or "" when the name has no separator or nothing after it."""
    word, found, rest = name.partition(sep)
    return f"{word}{sep}" if found and word and rest else ""


def fold_names(names: Sequence[str], width: int, sep: str = "_") -> list[str]:
    """`names` within `width` cells, still telling them apart: whole where all fit;
    otherwise the names of a family (`family_runs`) that holds one too long lose the
    family's prefix, shown as a leading `…` (`…blur_offset_query_id`), and whatever is
    still too long is abbreviated among the names it sits with (`abbreviate`)."""
    if all(cell_width(name) <= width for name in names):
        return list(names)
    shown = list(names)
    folded: set[int] = set()
    for start, end, family in family_runs(names, sep):
        if any(cell_width(name) > width for name in names[start:end]):
            rests = abbreviate([name[len(family) :] for name in names[start:end]], width - 1)
            shown[start:end] = [ELLIPSIS + rest for rest in rests]
            folded.update(range(start, end))
    others = [i for i in range(len(names)) if i not in folded]
    for i, text in zip(others, abbreviate([names[i] for i in others], width), strict=True):
        shown[i] = text
    return shown


def escape_controls(text: str) -> str:
    """`text` with every character a terminal would act on or hide written as a Python
    escape (`\\x1b`, `\\n`, `\\u202e`): controls, format characters (bidirectional
    overrides among them), separators other than the space and lone surrogates. For a
    value from outside quoted in a message: it reads as it is and does nothing."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else _escaped(c) for c in text)


def _escaped(char: str) -> str:
    code = ord(char)
    if char in "\n\r\t":
        return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}[char]
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
