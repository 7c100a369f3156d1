"""`lctui export` and `lctui import runs`: move runs between results files as Parquet.

`lctui import lifbench-scores` loads LIFBench's published per-point score CSVs;
`lctui import helmet-results` the original HELMET's per-dataset result files.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

from lctui.cli.db_options import common_options, resolve_db


def add_parsers(sub: Any) -> None:
    export = sub.add_parser(
        "export", help="write runs to a folder of Parquet files (one per table)"
    )
    export.add_argument("folder", help="output folder")
    export.add_argument("--run", action="append", metavar="RUN_ID", help="only these runs")
    common_options(export)
    export.set_defaults(handler=cmd_export)

    importer = sub.add_parser("import", help="merge results from elsewhere into a database")
    kinds = importer.add_subparsers(dest="kind", metavar="KIND", required=True)
    runs = kinds.add_parser("runs", help="a folder written by `lctui export`")
    runs.add_argument("folder")
    common_options(runs)
    runs.set_defaults(handler=cmd_import_runs)
    lif = kinds.add_parser(
        "lifbench-scores", help="a folder of LIFBench `{scenario}-{task}.csv` score files"
    )
    lif.add_argument("folder")
    common_options(lif)
    lif.set_defaults(handler=cmd_import_lifbench)
    helmet = kinds.add_parser(
        "helmet-results",
        help="a folder of the original HELMET's result files (its eval.py --output_dir)",
        description="Load HELMET's per-dataset result JSONs (and its GPT-4 judge's "
        "-gpt4eval_o.json, ALCE's .json.score) as one run per model: HELMET's per-example "
        "scores under lctui's task names and metrics, its outputs and token counts. HELMET "
        "stored no prompt: imported examples say so. Files that cannot be read are listed "
        "and skipped; importing a folder again adds nothing.",
    )
    helmet.add_argument("folder")
    helmet.add_argument(
        "--model",
        metavar="NAME",
        help="record the results under this model name (default: helmet:<the model's "
        "name in the files>)",
    )
    common_options(helmet)
    helmet.set_defaults(handler=cmd_import_helmet)


def cmd_export(args: argparse.Namespace) -> int:
    from lctui.store import open_store
    from lctui.store.transfer import export_parquet

    db = resolve_db(args).path
    with open_store(db, read_only=True) as store:
        count = export_parquet(store, args.folder, args.run)
    Console().print(f"Exported {count} generation(s) from {db} to {args.folder}")
    return 0


def cmd_import_runs(args: argparse.Namespace) -> int:
    from lctui.store import open_store
    from lctui.store.transfer import import_parquet

    db = resolve_db(args).path
    with open_store(db) as store:
        count = import_parquet(store, args.folder)
    Console().print(f"Imported {count} new generation(s) from {args.folder} into {db}")
    return 0


def cmd_import_lifbench(args: argparse.Namespace) -> int:
    from lctui.analysis.lifbench_import import import_lifbench_scores
    from lctui.store import open_store

    db = resolve_db(args).path
    with open_store(db) as store:
        summary = import_lifbench_scores(store, args.folder)
    Console().print(
        f"Imported {summary.added} new response(s) of {len(summary.models)} model(s) "
        f"({summary.rows} row(s) in {summary.files} file(s)) from {args.folder} into {db}"
    )
    return 0


def cmd_import_helmet(args: argparse.Namespace) -> int:
    from lctui.analysis.helmet_import import import_helmet_results
    from lctui.store import open_store

    def progress(done: int, total: int, path: Path) -> None:
        if total >= 20 and (done % 20 == 0 or done == total):
            print(f"read {done}/{total} file(s)", file=sys.stderr, flush=True)

    db = resolve_db(args).path
    with open_store(db) as store:
        summary = import_helmet_results(store, args.folder, model=args.model, progress=progress)
    console = Console()
    for problem in summary.problems:
        # One line per file, unwrapped, so that it can be grepped.
        console.print(
            f"skipped or doubtful: {problem}", markup=False, highlight=False, soft_wrap=True
        )
    console.print(
        f"Imported {summary.added} new response(s) of {len(summary.models)} model(s) "
        f"({', '.join(summary.models) or 'none'}) from {summary.imported} of {summary.files} "
        f"HELMET result file(s) in {args.folder} into {db}",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    return 0
