"""Output helpers shared by the CLI's analysis commands (compare, correlate, export-report)
and the warning about scores an older scorer version made, which every command that
shows scores prints."""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from lctui.cli.db_options import resolve_db
from lctui.cli.terminal import SafeConsole, plain
from lctui.core.errors import UserInputError
from lctui.core.private import write_output
from lctui.core.text import escape_unprintable


def open_results(args: argparse.Namespace) -> Any:
    """The results database of --db (or the default), read-only."""
    from lctui.store import open_store

    return open_store(resolve_db(args).path, read_only=True)


def emit(text: str, out: str | None) -> None:
    """Print `text` (a document: its lines and tabs kept, any other control character a
    name or an output brought into it shown as an escape), or write it to the file
    `out` as it is."""
    if out is None:
        sys.stdout.write(escape_unprintable(text, keep="\n\t"))
        return
    try:
        write_output(Path(out), text)  # 0600 in the data folder
    except OSError as err:
        raise UserInputError(f"cannot write {plain(out)}: {err.strerror}") from err
    print(f"wrote {plain(out)}", file=sys.stderr)


def table_width(console: Console) -> int | None:
    """The width tables must fit (cli/tables.py): the terminal's, or None (no limit,
    values whole) when the console writes to a file or a pipe."""
    return console.width if console.is_terminal else None


def print_whole(console: Console, renderables: list[Any]) -> None:
    """Print at the terminal's width; to a file or a pipe each as wide as it needs, so
    that nothing is cut or wrapped."""
    for renderable in renderables:
        if console.is_terminal or isinstance(renderable, str):
            console.print(renderable)
            continue
        wide = console.options.update_width(_UNLIMITED)
        needed = console.measure(renderable, options=wide).maximum
        # A console of that width (print's own width argument squeezes some columns).
        SafeConsole(file=console.file, width=max(console.width, needed), color_system=None).print(
            renderable
        )


_UNLIMITED = 100_000  # a width no table reaches: measuring one finds its natural width


def print_rich(renderables: list[Any], out: str | None) -> None:
    """Print rich renderables, or write them to `out` as plain text; either way values
    whole (`print_whole`)."""
    if out is None:
        print_whole(SafeConsole(), renderables)
        return
    buffer = io.StringIO()
    print_whole(SafeConsole(file=buffer, width=120, color_system=None), renderables)
    emit(buffer.getvalue(), out)


def warn(line: str | None) -> None:
    """Print a warning line on stderr, so it is seen beside a table, JSON or a file
    written with --out alike; nothing when `line` is None."""
    if line is None:
        return
    # soft_wrap: one line however wide the terminal; the line is plain text, its
    # control characters (a name's newline) shown as escapes.
    SafeConsole(stderr=True).print(
        Text.assemble(("Warning: ", "bold yellow"), plain(line)), soft_wrap=True
    )


def warn_outdated(found: Any, db: Path | str | None = None) -> None:
    """The warning about scores an older version of their scorer made (analysis/outdated.py),
    naming their runs and `lctui rescore --run ID` as the fix."""
    from lctui.analysis.outdated import outdated_line

    warn(outdated_line(found, str(db) if db is not None else None))
