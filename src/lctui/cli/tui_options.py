"""The arguments of `lctui tui` and `lctui serve`, declared once: the TUI's starter
(tui/start.py) parses them, and `lctui --help` lists both commands with the rest.

The `lctui` command (main.py) hands `tui`, `serve` and a bare `lctui` to the TUI's
starter before the CLI's parser sees them; this module imports nothing of the TUI.
"""

from __future__ import annotations

import argparse
from typing import Any

from lctui.core.errors import UserInputError

TUI_HELP = "open the terminal UI (the default without a command)"
TUI_DESCRIPTION = (
    "Open the terminal UI on a results database: the heatmap of scores, the examples "
    "behind each cell, the inspector, new runs (ctrl+n), comparisons and the SQL console."
)
SERVE_HELP = "serve the terminal UI in a browser (textual-serve, loopback by default)"
SERVE_DESCRIPTION = (
    "Serve the terminal UI in a browser: each page opens its own lctui on the same "
    "database. It binds 127.0.0.1 unless --allow-remote (plain http: prefer ssh -L)."
)


def add_tui_options(parser: argparse.ArgumentParser) -> None:
    """The database and how to open it (both commands)."""
    parser.add_argument("--db", metavar="PATH", help="results database (default as `lctui run`)")
    parser.add_argument("--config", metavar="PATH", help="lctui.toml to read models from")
    parser.add_argument("--read-only", action="store_true", help="browse without writing")
    parser.add_argument("--no-samples", action="store_true", help="do not import sample runs")


def add_serve_options(parser: argparse.ArgumentParser) -> None:
    """Where `lctui serve` listens and which browser pages it answers."""
    parser.add_argument("--host", default="127.0.0.1", help="serve: address to bind (loopback)")
    parser.add_argument("--port", type=int, default=8000, help="serve: port")
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="serve: allow a --host other machines can reach (plain http: prefer ssh -L)",
    )
    parser.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="serve: a browser origin besides loopback and the printed URL, e.g. "
        "http://gpu-box.lan:8000 (repeatable)",
    )


def add_parsers(sub: Any) -> None:
    """`tui` and `serve` in the CLI's list of commands (main.py starts them)."""
    tui = sub.add_parser("tui", help=TUI_HELP, description=TUI_DESCRIPTION)
    add_tui_options(tui)
    tui.set_defaults(handler=_started_by_lctui)
    serve = sub.add_parser("serve", help=SERVE_HELP, description=SERVE_DESCRIPTION)
    add_tui_options(serve)
    add_serve_options(serve)
    serve.set_defaults(handler=_started_by_lctui)


def _started_by_lctui(args: argparse.Namespace) -> int:
    raise UserInputError(
        f"`lctui {args.command}` starts from the lctui command (lctui.main), not the CLI's "
        f"entry point: run `lctui {args.command}`."
    )
