"""The `lctui` command: the terminal UI without arguments, headless subcommands otherwise."""

from __future__ import annotations

import sys
from collections.abc import Sequence

TUI_COMMANDS = ("tui", "serve")


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in TUI_COMMANDS or (args[0].startswith("--db") or args[0] == "--config"):
        from lctui.tui.start import main as tui_main

        return tui_main(args)
    from lctui.cli import main as cli_main

    return cli_main(args)


def entry() -> None:
    sys.exit(main())
