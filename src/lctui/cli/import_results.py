"""`lctui import KIND`: the results an original harness wrote, as runs beside lctui's
own; one command per importer a suite declares (core/suites.py: `helmet-results`,
`ruler-results`, `longbench-results`, a plugin's), all through one path here.

Every such command prints the files or lines it could not use one per line (unwrapped,
so that they can be grepped, control characters of file names escaped), then what it
imported; a large folder reports progress on stderr every 20 files. An import lands
whole or not at all (store/importing.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lctui.cli.db_options import common_options, resolve_db
from lctui.cli.terminal import SafeConsole, plain
from lctui.core.suites import Importer, all_suites

if TYPE_CHECKING:  # the analysis is imported when a command runs, not at start
    from lctui.analysis.harness_import import ImportSummary

_PROGRESS_EVERY = 20


def add_parsers(kinds: Any) -> None:
    """Every suite's result importers (core/suites.py), as kinds of `lctui import`."""
    for suite in all_suites():
        for importer in suite.importers:
            parser = kinds.add_parser(
                importer.kind, help=importer.help, description=importer.description
            )
            parser.add_argument("source", metavar=importer.source)
            if importer.names_model:
                _model_option(parser, importer.model_key)
            for option in importer.options:
                parser.add_argument(
                    option.flag,
                    dest=option.dest,
                    type=_positive,
                    metavar=option.metavar,
                    help=option.help,
                )
            common_options(parser)
            parser.set_defaults(handler=cmd_import_results, importer=importer)


def _model_option(parser: argparse.ArgumentParser, key: str) -> None:
    parser.add_argument(
        "--model",
        metavar="NAME",
        help=f"record the results under this model name (default: {key}:<the model's name "
        "in the files>)",
    )


def _positive(text: str) -> int:
    from lctui.analysis.harness_import import MOST_TOKENS

    digits = text.strip()
    if not (digits.isascii() and digits.isdigit() and len(digits) <= 12):
        raise argparse.ArgumentTypeError(f"{plain(text[:40])!r} is not a whole number of tokens")
    value = int(digits)
    if not 0 < value <= MOST_TOKENS:
        raise argparse.ArgumentTypeError(
            f"{value} is not a positive number of tokens (at most {MOST_TOKENS:,})"
        )
    return value


def _progress(done: int, total: int, path: Path) -> None:
    if total >= _PROGRESS_EVERY and (done % _PROGRESS_EVERY == 0 or done == total):
        print(f"read {done}/{total} file(s)", file=sys.stderr, flush=True)  # no data in it


def _report(summary: ImportSummary, what: str, source: str, db: Path) -> int:
    console = SafeConsole()
    for problem in summary.problems:
        # One line per file or line, unwrapped, so that it can be grepped.
        console.print(
            f"skipped or doubtful: {plain(problem)}", markup=False, highlight=False, soft_wrap=True
        )
    console.print(
        f"Imported {summary.added} new response(s) of {len(summary.models)} model(s) "
        f"({plain(', '.join(summary.models)) or 'none'}) from {summary.imported} of "
        f"{summary.files} {what} in {plain(source)} into {plain(db)}",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    return 0


def cmd_import_results(args: argparse.Namespace) -> int:
    from lctui.store import open_store

    importer: Importer = args.importer
    options = {option.dest: getattr(args, option.dest) for option in importer.options}
    db = resolve_db(args).path
    with open_store(db) as store:
        model = args.model if importer.names_model else None
        summary = importer.run(store, args.source, model, options, _progress)
    return _report(summary, importer.what, args.source, db)
