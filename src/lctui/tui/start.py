"""Start the terminal UI (`lctui`, `lctui tui`) or serve it in a browser (`lctui serve`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from lctui.cli.help_format import HelpFormatter
from lctui.cli.tui_options import SERVE_HELP, TUI_HELP, add_serve_options, add_tui_options
from lctui.core.runtime import prepare_environment
from lctui.core.text import shown_error


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="lctui",
        description="Interactive long-context evaluation. Without a command, opens the "
        "terminal UI; `lctui serve` serves it in a browser; `lctui COMMAND --help` for the "
        "headless commands (run, demo, tasks, models, query, show, export, import).",
        formatter_class=HelpFormatter,
    )
    p.add_argument(
        "mode",
        nargs="?",
        choices=["tui", "serve"],
        default="tui",
        help=f"tui: {TUI_HELP}; serve: {SERVE_HELP}",
    )
    add_tui_options(p)
    add_serve_options(p)
    return p


def main(argv: Sequence[str]) -> int:
    prepare_environment()
    args = parser().parse_args(list(argv))
    if args.mode == "serve":
        from lctui.tui.serve import serve

        return serve(args)
    from lctui.cli.db_options import resolve_db
    from lctui.core.errors import LctuiError
    from lctui.tui.app import LctuiApp

    try:
        resolved = resolve_db(args)
        config, db = resolved.config, resolved.path
    except LctuiError as exc:
        print(f"lctui: error: {shown_error(exc)}", file=sys.stderr)
        return 2
    app = LctuiApp(db, config, read_only=args.read_only, import_samples=not args.no_samples)
    app.run()
    return int(app.return_code or 0)
