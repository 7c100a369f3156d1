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

Text from data (names, outputs, file names, servers' messages) reaches a terminal only
through `escape_unprintable`: a control character (a newline, `ESC [31m`, a bell) or a
character that reorders or breaks lines shows as a visible escape (`\\n`, `\\x1b`,
`\\u202e`) instead of acting on the terminal; `escape_tsv` is its lossless form for
tab-separated output.

A count says its noun in the number it has: `plural(1, "row")` is "1 row", never
"1 rows" nor "1 row(s)". A word too long for a line (a path) is broken where a reader
sees a boundary (`break_long_words`), not at whatever character meets the edge.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

ELLIPSIS = "…"

# What a terminal acts on rather than draws, beyond the control characters (category
# Cc): line and paragraph separators, which some terminals break lines at, and the
# bidirectional formatting characters, which reorder what is drawn around them. Other
# format characters (the zero-width joiner of emoji, a soft hyphen) stay: ordinary text.
_ACTING = frozenset(
    "\u2028\u2029\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
_SHORT_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}

# Characters that take no cell although Unicode calls them neutral width.
_ZERO_WIDTH = frozenset("\u200b\u200c\u200d\u2060\ufeff")


def escape_unprintable(text: str, keep: str = "") -> str:
    """`text` with what a terminal would act on shown as an escape a person can read:
    `\\n`, `\\t`, `\\r`, `\\x1b` (control characters, C1 included), `\\u202e` (the
    characters of `_ACTING`), `\\ud800` (a lone surrogate, which no terminal encoding
    holds). Every other character stays, Unicode included; so do backslashes (`escape_tsv`
    doubles them). `keep`: control characters left as they are (a document's "\\n")."""
    if text.isprintable():
        return text  # the common case, without a look at each character
    return "".join(_escaped(char) if _acts(char) and char not in keep else char for char in text)


# One visible character for each control character: the Unicode control pictures
# (␛ for ESC, ␇ for a bell), → for a tab; other characters that act (C1 controls, bidi
# overrides, line separators, lone surrogates) as �.
_PICTURES = {i: chr(0x2400 + i) for i in range(32)} | {9: "→", 127: "\u2421"}


def control_pictures(text: str, keep: str = "\n") -> str:
    """`text` with every character `escape_unprintable` escapes replaced by one visible
    character of one cell (see `_PICTURES`), `keep` left as it is: the same length, so
    that offsets into the text (a marked needle, a highlighted answer) stay valid."""
    if text.isprintable():
        return text
    return "".join(
        _PICTURES.get(ord(c), "\ufffd") if _acts(c) and c not in keep else c for c in text
    )


def shown_error(exc: BaseException) -> str:
    """An error's message for a terminal: on one line, its control characters shown,
    unless the error keeps its lines (`LctuiError.lines_kept`)."""
    keep = "\n" if getattr(exc, "lines_kept", False) else ""
    return escape_unprintable(str(exc), keep=keep)


def escape_tsv(text: str) -> str:
    """`text` as one field of a tab-separated line, losslessly: backslashes doubled, then
    `escape_unprintable` (a tab or a newline cannot split the field). Python's
    `unicode_escape` codec reads it back."""
    return escape_unprintable(text.replace("\\", "\\\\"))


def _acts(char: str) -> bool:
    if char.isprintable():
        return False
    category = unicodedata.category(char)
    return category in ("Cc", "Cs") or char in _ACTING


def _escaped(char: str) -> str:
    short = _SHORT_ESCAPES.get(char)
    if short is not None:
        return short
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """'1 value', '3 values', '1,024 values'; `plural_form` for the irregular ('entries')."""
    word = singular if count == 1 else (plural_form or singular + "s")
    return f"{count:,} {word}"


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


# Where a word too long for a line (a path, a URL, a file name) may be broken: after a
# folder's slash, else after one of the others, so each line ends at a boundary the
# reader sees (`…/lctui/` + `lctui.duckdb`, never `lctui.duckd` + `b`).
_BREAKS = (frozenset("/\\"), frozenset("_-.:?&="))


def break_long_words(text: str, width: int) -> str:
    """`text` with each word wider than `width` cells (a path, a URL) broken into lines
    that fit: after a `/` where one falls within the line, else after a `_`, `-` or `.`,
    mid-word only where it has none. The rest of the text is left as it is, for the
    widget that shows it to wrap at its spaces."""
    width = max(1, width)
    return re.sub(r"\S+", lambda word: "\n".join(_pieces(word.group(), width)), text)


def _pieces(word: str, width: int) -> list[str]:
    """`word` in lines of at most `width` cells (see `break_long_words`)."""
    pieces: list[str] = []
    while cell_width(word) > width:
        cut = _break_point(word, width) or max(1, len(_head(word, width)))
        pieces.append(word[:cut])
        word = word[cut:]
    return [*pieces, word]


def _break_point(word: str, cells: int) -> int:
    """The furthest index after a slash within `cells` cells of `word`, else after
    another break character; 0 when there is none (a boundary at the word's end, or a
    separator alone, makes no line's end)."""
    best = [0] * len(_BREAKS)
    kept = 0
    for index, char in enumerate(word[:-1]):
        kept += char_cells(char)
        if kept > cells:
            break
        for rank, chars in enumerate(_BREAKS):
            if char in chars and index:
                best[rank] = index + 1
    return next((at for at in best if at), 0)
