"""What a CLI command does on an unexpected exception: one line, the traceback in a file.

A user sees which command failed and where its full traceback went (the data folder's
crashes/, else the temporary folder); exit status 1 says it is a bug, apart from the
errors a user can act on (exit 2).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
import traceback
from collections.abc import Sequence
from pathlib import Path

from lctui import __version__
from lctui.core.paths import data_dir, make_data_subdir
from lctui.core.text import escape_unprintable, shorten

EXIT_BUG = 1


CRASHES = "crashes"


def write_crash_log(exc: BaseException, argv: Sequence[str]) -> Path | None:
    """The traceback of `exc` with the command line, in a new file; None if none could
    be written anywhere."""
    text = (
        f"lctui {__version__}, Python {sys.version.split()[0]}\n"
        f"command: lctui {' '.join(argv)}\n\n"
        + "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    )
    # argv may hold bytes that are not UTF-8 (surrogate escapes): written escaped.
    data = text.encode("utf-8", "backslashreplace")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for folder in (data_dir() / CRASHES, Path(tempfile.gettempdir())):
        try:
            if folder.name == CRASHES:
                make_data_subdir(CRASHES)  # 0700, as every folder of the data folder
            else:
                folder.mkdir(parents=True, exist_ok=True)
            # A new file of our own (0600, never an existing one or a link someone
            # placed in a shared temporary folder).
            handle, name = tempfile.mkstemp(prefix=f"lctui-{stamp}-", suffix=".log", dir=folder)
            with os.fdopen(handle, "wb") as out:
                out.write(data)
        except OSError:
            continue
        return Path(name)
    return None


def report_crash(exc: BaseException, argv: Sequence[str]) -> int:
    """Print one line about `exc` (and where its traceback is) on stderr; the exit status."""
    path = write_crash_log(exc, argv)
    where = f"the full traceback is in {path}" if path else "no traceback file could be written"
    summary = escape_unprintable(shorten(str(exc), 200, one_line=True)) or "(no message)"
    summary = summary.encode("utf-8", "backslashreplace").decode("utf-8")
    print(
        f"lctui: internal error (a bug): {type(exc).__name__}: {summary}; {where}",
        file=sys.stderr,
    )
    return EXIT_BUG
