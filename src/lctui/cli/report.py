"""`lctui report --suite NAME`: a suite's own summary of the stored results per model,
as the suite defines it (core/suites.py: titled tables, notes, JSON records), in
tables that fit 80 columns or as JSON. One path for every suite: this module never
names one (the default, LIFEval, is a name in the registry)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from rich import box
from rich.table import Table

from lctui.cli.db_options import common_options, resolve_db
from lctui.cli.terminal import SafeConsole, cell, data
from lctui.core.errors import UserInputError
from lctui.core.suites import ReportTable, get_suite, report_names

DEFAULT_SUITE = "lifeval"  # LIFBench's LIFEval, the first suite `lctui report` had


def add_parsers(sub: Any) -> None:
    names = ", ".join(report_names())
    report = sub.add_parser(
        "report",
        help="a suite's summary per model (LIFEval's ARS/IFP/IFS, HELMET's categories, "
        "LongBench v2's accuracy, ...)",
        description="Print a suite's own summary of the stored results per model, as the "
        f"suite's paper reports it: its tables, then what is partial or unscored. Suites: "
        f"{names} ({DEFAULT_SUITE}, the default, is LIFBench's); docs/suites.md "
        "describes each one's table.",
    )
    report.add_argument(
        "--suite",
        default=DEFAULT_SUITE,
        metavar="NAME",
        help=f"which suite's summary: {names} (default: {DEFAULT_SUITE})",
    )
    report.add_argument(
        "--model", action="append", metavar="M", help="only this model (repeatable)"
    )
    report.add_argument("--format", choices=["table", "json"], default="table")
    common_options(report)
    report.set_defaults(handler=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    from lctui.analysis.outdated import find_outdated
    from lctui.cli.output import warn_outdated
    from lctui.store import open_store

    suite = get_suite(args.suite)
    if suite.report is None:
        raise UserInputError(
            f"the suite {suite.name} has no report of its own; suites with one: "
            f"{', '.join(report_names())}"
        )
    db = resolve_db(args).path
    with open_store(db, read_only=True) as store:
        report = suite.report(store, args.model, None)
        outdated = []
        if report is not None:
            outdated = find_outdated(
                store,
                models=args.model,
                scorers=list(report.scorers) or None,
                tasks=list(report.tasks) or None,
            )
    if report is None or not report.tables:
        wanted = f" for {', '.join(args.model)}" if args.model else ""
        raise UserInputError(suite.empty.format(db=db, wanted=wanted))
    warn_outdated(outdated, db)  # on stderr: the JSON stays parseable
    if args.format == "json":
        print(json.dumps(list(report.records), indent=2))
        return 0
    console = SafeConsole()
    for table in report.tables:
        console.print(rich_table(table))
    for note in report.notes:
        console.print(f"[magenta]{data(note)}[/]")
    return 0


def rich_table(table: ReportTable) -> Table:
    """A suite's table for the terminal: no vertical rules and one space between
    columns, the first (a model's name) folding when the width runs out."""
    shown = Table(title=table.title, box=box.SIMPLE_HEAD, padding=(0, 0, 0, 1), show_edge=False)
    first, *rest = table.narrow_columns()
    shown.add_column(first, overflow="fold", ratio=1)
    for heading in rest:
        shown.add_column(heading, justify="right", no_wrap=True)
    for row in table.rows:
        shown.add_row(*(cell(value) for value in row))
    return shown
