"""`lctui export` and `lctui import runs`: move runs between results files as Parquet.

The kinds of `lctui import` that suites declare (`helmet-results`, `ruler-results`,
`longbench-results`, `lifbench-scores`, ...) are in cli/import_results.py.
"""

from __future__ import annotations

import argparse
from typing import Any

from lctui.cli import import_results
from lctui.cli.db_options import common_options, resolve_db
from lctui.cli.terminal import SafeConsole, data


def add_parsers(sub: Any) -> None:
    export = sub.add_parser(
        "export",
        help="write runs to a folder of Parquet files (one per table)",
        description="Write the runs of a database (all, or those --run names) to FOLDER "
        "as Parquet files, one per table, which `lctui import runs` merges elsewhere.",
    )
    export.add_argument("folder", help="output folder")
    export.add_argument("--run", action="append", metavar="RUN_ID", help="only these runs")
    common_options(export)
    export.set_defaults(handler=cmd_export)

    importer = sub.add_parser(
        "import",
        help="merge results from elsewhere into a database",
        description="Merge results into a database: runs another lctui exported, or the "
        "result files of the original LIFBench, HELMET, RULER and LongBench v2 code.",
    )
    kinds = importer.add_subparsers(dest="kind", metavar="KIND", required=True)
    runs = kinds.add_parser(
        "runs",
        help="a folder written by `lctui export`",
        description="Merge the runs of a folder `lctui export` wrote; generations the "
        "database holds already are skipped.",
    )
    runs.add_argument("folder")
    common_options(runs)
    runs.set_defaults(handler=cmd_import_runs)
    import_results.add_parsers(kinds)


def cmd_export(args: argparse.Namespace) -> int:
    from lctui.store import open_store
    from lctui.store.transfer import export_parquet

    db = resolve_db(args).path
    with open_store(db, read_only=True) as store:
        count = export_parquet(store, args.folder, args.run)
    SafeConsole().print(f"Exported {count} generation(s) from {data(db)} to {data(args.folder)}")
    return 0


def cmd_import_runs(args: argparse.Namespace) -> int:
    from lctui.store import open_store
    from lctui.store.transfer import import_parquet

    db = resolve_db(args).path
    with open_store(db) as store:
        count = import_parquet(store, args.folder)
    where = f"from {data(args.folder)} into {data(db)}"
    SafeConsole().print(f"Imported {count} new generation(s) {where}")
    return 0
