"""Tables whose values are never cut: names and numbers whole at any terminal width, and
tab-separated whole values when the output is not a terminal.

At a terminal a rich table squeezes its columns to the width and cuts what does not
fit (`niah_singl…`, `3,5…`), which loses exactly what tells rows apart. `fit_table`
keeps every column but prose on one line at its whole width; a table wider than the
terminal is split into parts, each repeating the key columns (the model, the task),
and only prose columns (descriptions) wrap. Piped, `output_format` answers "tsv" and
`print_tsv` writes one row a line, as `lctui data list` does.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from rich.table import Table
from rich.text import Text

from lctui.cli.terminal import safe_text
from lctui.core.text import cell_width, escape_tsv, escape_unprintable

Cell = str | Text  # a str is plain text, never markup
# A column of a rich table takes its width, one cell of padding each side and a rule.
_COLUMN_EXTRA = 3
_MIN_PROSE = 16  # a prose column is given at least this much, wrapping within it


@dataclass(frozen=True)
class Column:
    """A column: `key` columns repeat in every part of a split table; `prose` ones wrap
    (descriptions), every other keeps each value on one line, whole."""

    name: str
    justify: Literal["left", "right"] = "left"
    key: bool = False
    prose: bool = False


def format_option(parser: argparse.ArgumentParser, *extra: str) -> None:
    """`--format table|tsv|...`: by default a table at a terminal, TSV when piped."""
    parser.add_argument(
        "--format",
        choices=["table", "tsv", *extra],
        help="table at a terminal, tab-separated whole values when piped (the default)",
    )


def output_format(args: argparse.Namespace) -> str:
    """The --format asked, else "table" at a terminal and "tsv" when piped."""
    if args.format:
        return str(args.format)
    return "table" if sys.stdout.isatty() else "tsv"


def print_tsv(header: Sequence[str], rows: Sequence[Sequence[Cell]]) -> None:
    """Whole values, one row a line, each value escaped (`escape_tsv`: a tab, a line
    break or a control character in a value shows as `\\t`, `\\n`, `\\x1b`, a backslash
    as `\\\\`), so that a line is a row and a tab a column break, and nothing is lost."""
    for row in [header, *rows]:
        cells = (str(cell.plain if isinstance(cell, Text) else cell) for cell in row)
        print("\t".join(escape_tsv(c) for c in cells))


def _text(cell: Cell) -> Text:
    """A cell as drawn: a str is a value, drawn on one line whatever it holds; a Text
    was built by the command, its line breaks meant (see `safe_text`)."""
    return safe_text(cell) if isinstance(cell, Text) else Text(escape_unprintable(cell))


def _whole_width(column: Column, cells: Sequence[Text]) -> int:
    """The cells a column needs to show its header and every value on one line; a prose
    column wraps (a word longer than the column folds), so it needs only a little."""
    texts = [column.name, *(line for cell in cells for line in cell.plain.split("\n"))]
    if column.prose:
        return min(_MIN_PROSE, max(cell_width(text) for text in texts))
    return max(cell_width(text) for text in texts)


def fit_table(
    title: str,
    columns: Sequence[Column],
    rows: Sequence[Sequence[Cell]],
    width: int | None,
    *,
    sections: Sequence[int] = (),
) -> list[Table]:
    """`rows` as one table, or as parts that each fit `width` terminal cells (None: no
    limit), every part with the key columns first. The title and the cells are plain
    text (never markup), their control characters shown as escapes. `sections`: the
    row indices before which a section line is drawn."""
    cells = [[_text(cell) for cell in row] for row in rows]
    widths = [_whole_width(c, [row[i] for row in cells]) for i, c in enumerate(columns)]
    keys = [i for i, c in enumerate(columns) if c.key]
    rest = [i for i, c in enumerate(columns) if not c.key]
    parts = _parts(keys, rest, [w + _COLUMN_EXTRA for w in widths], width)
    tables = []
    for number, part in enumerate(parts, start=1):
        suffix = f" ({number} of {len(parts)})" if len(parts) > 1 else ""
        table = Table(title=Text(escape_unprintable(title) + suffix))  # plain, never markup
        for i in part:
            column = columns[i]
            if column.prose:
                table.add_column(column.name, overflow="fold", min_width=widths[i], ratio=1)
            else:
                table.add_column(
                    column.name,
                    justify=column.justify,
                    no_wrap=True,
                    min_width=widths[i],
                )
        for index, row in enumerate(cells):
            if index in sections and index > 0:
                table.add_section()
            table.add_row(*(row[i] for i in part))
        tables.append(table)
    return tables


def _parts(
    keys: list[int], rest: list[int], spans: list[int], width: int | None
) -> list[list[int]]:
    """Columns split into parts whose spans add up to at most `width` (with the key
    columns in each), in their order; a column wider than any part goes alone."""
    if width is None or sum(spans) + 1 <= width:
        return [keys + rest]
    base = 1 + sum(spans[i] for i in keys)
    parts: list[list[int]] = []
    current: list[int] = []
    used = base
    for i in rest:
        if current and used + spans[i] > width:
            parts.append(keys + current)
            current, used = [], base
        current.append(i)
        used += spans[i]
    parts.append(keys + current)
    return parts
