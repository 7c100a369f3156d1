"""`lctui export-report`: a markdown or HTML report of a run, a comparison or a
correlation matrix, for a paper draft or an issue."""

from __future__ import annotations

import argparse
from typing import Any

from lctui.cli.db_options import common_options


def add_parsers(sub: Any) -> None:
    export = sub.add_parser(
        "export-report",
        help="markdown or HTML report of a run, an A/B comparison or a correlation",
        description="Write a report with tables and the heatmap (HTML colours each cell) of "
        "a run (default: the latest), of `--compare A B`, or of `--correlate`.",
    )
    what = export.add_mutually_exclusive_group()
    what.add_argument("--run", metavar="RUN_ID", help="this run (default: the latest)")
    what.add_argument("--compare", nargs=2, metavar=("A", "B"), help="an A/B comparison")
    what.add_argument("--correlate", action="store_true", help="the correlation matrix")
    export.add_argument("--by", choices=["task", "category"], default="task", help="(--correlate)")
    export.add_argument("--length", metavar="L", help="one context length (--correlate)")
    export.add_argument("--model", action="append", metavar="M", help=argparse.SUPPRESS)
    export.add_argument("--min-models", type=int, default=5, help=argparse.SUPPRESS)
    export.add_argument("--html", action="store_true", help="HTML instead of markdown")
    export.add_argument("--out", metavar="FILE", help="write the report to FILE")
    common_options(export)
    export.set_defaults(handler=cmd_export_report)


def cmd_export_report(args: argparse.Namespace) -> int:
    from lctui.analysis.compare import compare
    from lctui.analysis.outdated import outdated_line
    from lctui.analysis.report_md import (
        compare_blocks,
        correlation_blocks,
        render,
        run_blocks,
        warning_blocks,
        warnings_of,
    )
    from lctui.cli.correlate import correlation_from_args, outdated_of_correlation
    from lctui.cli.output import emit, open_results, warn

    # The report itself says when scores an older scorer version made are in it, and
    # so does a warning line on stderr (the report usually goes to a file).
    with open_results(args) as store:
        if args.compare:
            blocks = compare_blocks(compare(store, *args.compare), store.where)
        elif args.correlate:
            line = outdated_line(outdated_of_correlation(args, store), store.where)
            blocks = correlation_blocks(correlation_from_args(args, store))
            blocks += warning_blocks([line] if line else [])
        else:
            blocks = run_blocks(store, args.run)
    for line in warnings_of(blocks):
        warn(line)
    emit(render(blocks, "html" if args.html else "md"), args.out)
    return 0
