"""Start the terminal UI (`lctui`, `lctui tui`) or serve it in a browser (`lctui serve`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from lctui.core.runtime import prepare_environment
from lctui.core.text import shown_error


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="lctui",
        description="Interactive long-context evaluation. Without a command, opens the "
        "terminal UI; `lctui serve` serves it in a browser; `lctui COMMAND --help` for the "
        "headless commands (run, demo, tasks, models, query, show, export, import).",
    )
    p.add_argument("mode", nargs="?", choices=["tui", "serve"], default="tui")
    p.add_argument("--db", metavar="PATH", help="results database (default as `lctui run`)")
    p.add_argument("--config", metavar="PATH", help="lctui.toml to read models from")
    p.add_argument("--read-only", action="store_true", help="browse without writing")
    p.add_argument("--no-samples", action="store_true", help="do not import sample runs")
    p.add_argument("--host", default="127.0.0.1", help="serve: address to bind (loopback)")
    p.add_argument("--port", type=int, default=8000, help="serve: port")
    p.add_argument(
        "--allow-remote",
        action="store_true",
        help="serve: allow a --host other machines can reach (plain http: prefer ssh -L)",
    )
    p.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="serve: a browser origin besides loopback and the printed URL, e.g. "
        "http://gpu-box.lan:8000 (repeatable)",
    )
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
