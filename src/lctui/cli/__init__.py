"""Command-line entry points: `lctui run | runs | attach | tasks | data | models | query | show |
demo | report ...`, and `tui` and `serve` listed with them (main.py starts those).

Every subcommand takes `--db PATH`; errors a user can act on (LctuiError) print one
clear message and exit with status 2, never a traceback; any other exception is a
bug: one line, its traceback in a file of the data folder, exit status 1.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from lctui import __version__
from lctui.core.errors import LctuiError
from lctui.core.private import open_data_dir_warning
from lctui.core.runtime import prepare_environment
from lctui.core.text import escape_unprintable, shown_error

EXIT_USER_ERROR = 2
EXIT_INTERRUPTED = 130
EXIT_PIPE_CLOSED = 141  # as a process killed by SIGPIPE: the reader stopped reading


def build_parser() -> argparse.ArgumentParser:
    from lctui.cli import (
        attach,
        browse,
        cite,
        compare,
        correlate,
        data,
        export_report,
        judge,
        report,
        rescore,
        run,
        runs,
        stats,
        transfer,
        tui_options,
    )
    from lctui.cli.help_format import HelpFormatter, use_formatter

    parser = argparse.ArgumentParser(
        prog="lctui",
        description="Interactive long-context evaluation: run tasks at any context length, "
        "stream generations, score them and keep everything in DuckDB. Without a command, "
        "`lctui` opens the terminal UI (`lctui tui --help`); `lctui serve` serves it in a "
        "browser.",
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"lctui {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    tui_options.add_parsers(sub)
    run.add_parsers(sub)
    runs.add_parsers(sub)
    attach.add_parsers(sub)
    browse.add_parsers(sub)
    data.add_parsers(sub)
    transfer.add_parsers(sub)
    report.add_parsers(sub)
    judge.add_parsers(sub)
    cite.add_parsers(sub)
    rescore.add_parsers(sub)
    stats.add_parsers(sub)
    compare.add_parsers(sub)
    correlate.add_parsers(sub)
    export_report.add_parsers(sub)
    use_formatter(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    prepare_environment()
    parser = build_parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # as typed, for `run --detach`
    if args.command is None:
        parser.print_help()
        return EXIT_USER_ERROR
    exposed = open_data_dir_warning()
    if exposed is not None:
        print(f"lctui: warning: {escape_unprintable(exposed)}", file=sys.stderr)
    try:
        return int(args.handler(args))
    except LctuiError as exc:
        # Its lines as written (a server's log tail); any other control character that a
        # name, a path or a server's message brought in is shown, not obeyed.
        print(f"lctui: error: {shown_error(exc)}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("lctui: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # Piped into `head` or a pager that quit: no error, and nothing more to write
        # (stdout points at nothing, so the flush at exit does not fail again).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_PIPE_CLOSED
    except Exception as exc:  # a bug: one line here, the traceback in a file
        from lctui.cli.crash import report_crash

        return report_crash(exc, list(sys.argv[1:] if argv is None else argv))


def entry() -> None:
    sys.exit(main())
