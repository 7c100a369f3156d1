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
        description="Write a report of a run (default: the latest: its heatmap, per-task "
        "counts, score-vs-length curves and the suites' tables), of `--compare A B` (paired "
        "differences with intervals and the changed examples) or of `--correlate`. --html "
        "writes one standalone page (colours and pictures inline, nothing fetched). "
        "Without --out the file goes to the exports folder of the data folder.",
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
    export.add_argument(
        "--out",
        metavar="FILE",
        help="write the report to FILE (- prints it; default: a new file in the exports "
        "folder of the data folder, $LCTUI_DATA_DIR/exports)",
    )
    common_options(export)
    export.set_defaults(handler=cmd_export_report)


def cmd_export_report(args: argparse.Namespace) -> int:
    from lctui.analysis.compare import compare
    from lctui.analysis.correlation import synthetic_vs_downstream
    from lctui.analysis.outdated import outdated_line
    from lctui.analysis.report_blocks import Heading, warning_blocks, warnings_of
    from lctui.analysis.report_md import compare_blocks, correlation_blocks, render
    from lctui.analysis.report_run import run_blocks
    from lctui.cli.correlate import correlation_from_args, outdated_of_correlation
    from lctui.cli.output import emit, open_results, warn
    from lctui.core.paths import export_file

    # The report itself says when scores an older scorer version made are in it, and
    # so does a warning line on stderr (the report usually goes to a file).
    with open_results(args) as store:
        source = store.where
        if args.compare:
            blocks = compare_blocks(compare(store, *args.compare), store.where)
            name: tuple[str, ...] = ("compare", args.compare[0], "vs", args.compare[1])
        elif args.correlate:
            line = outdated_line(outdated_of_correlation(args, store), store.where)
            matrix = correlation_from_args(args, store)
            synthetic = synthetic_vs_downstream(store, length=matrix.scores.length)
            blocks = correlation_blocks(matrix, synthetic)
            blocks += warning_blocks([line] if line else [])
            name = ("correlation", args.by, args.length or "all")
        else:
            blocks = run_blocks(store, args.run)
            first = blocks[0]
            name = ("run", first.text.removeprefix("Run ") if isinstance(first, Heading) else "")
    for line in warnings_of(blocks):
        warn(line)
    fmt = "html" if args.html else "md"
    out = args.out
    if out is None:  # every export without a path goes to one folder (core/paths.py)
        out = str(export_file(name, fmt))
    emit(render(blocks, fmt, source=source), None if out == "-" else out)
    return 0
