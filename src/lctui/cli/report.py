"""`lctui report`: per-model suite summaries from a results database: LIFEval's ARS,
IFP and IFS (`--suite lifeval`, the default), HELMET's seven category means and its
overall mean per length (`--suite helmet`), or LongBench v2's accuracy overall, by
difficulty, length bucket and domain (`--suite longbench`)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from rich.table import Table

from lctui.cli.db_options import common_options, resolve_db
from lctui.cli.terminal import SafeConsole, cell, data
from lctui.core.errors import UserInputError


def add_parsers(sub: Any) -> None:
    report = sub.add_parser(
        "report",
        help="suite summaries per model: LIFEval's ARS/IFP/IFS, HELMET's categories or "
        "LongBench v2's accuracy",
        description="--suite lifeval: compute LIFEval's ARS, IFP (per capability) and "
        "IFS (per perspective; lower is more stable) from the lifeval rubric points "
        "stored in the database, e.g. after `lctui import lifbench-scores`. "
        "--suite helmet: HELMET's seven category means (Recall, RAG, Cite, Re-rank, "
        "ICL, LongQA, Summ) and their overall mean per model and length, 0-100; a "
        "category missing a dataset is marked partial (*), never averaged as 0. "
        "--suite longbench: LongBench v2's accuracy per model, mode and length: overall "
        "(and compensated: an answer naming no option counts 0.25), easy/hard, "
        "short/medium/long and per domain, in percent as the original's result script.",
    )
    report.add_argument(
        "--suite",
        choices=["lifeval", "helmet", "longbench"],
        default="lifeval",
        help="which suite's summary (default: lifeval)",
    )
    report.add_argument(
        "--model", action="append", metavar="M", help="only this model (repeatable)"
    )
    report.add_argument("--format", choices=["table", "json"], default="table")
    common_options(report)
    report.set_defaults(handler=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    if args.suite == "helmet":
        from lctui.cli.report_helmet import report_helmet

        return report_helmet(args)
    if args.suite == "longbench":
        from lctui.cli.report_longbench import report_longbench

        return report_longbench(args)
    from lctui.analysis.lifbench import PERSPECTIVES, lifbench_reports
    from lctui.analysis.outdated import find_outdated
    from lctui.cli.output import warn_outdated
    from lctui.scoring.rubric import CAPABILITIES
    from lctui.store import open_store

    db = resolve_db(args).path
    with open_store(db, read_only=True) as store:
        reports = lifbench_reports(store, args.model)
        outdated = find_outdated(store, models=args.model, scorers=["lifeval"])
    if not reports:
        wanted = f" for {', '.join(args.model)}" if args.model else ""
        raise UserInputError(
            f"{db} holds no lifeval scores{wanted}; import some with "
            "`lctui import lifbench-scores DIR --db PATH`"
        )
    warn_outdated(outdated, db)  # on stderr: the JSON stays parseable
    if args.format == "json":
        print(json.dumps([r.as_dict() for r in reports], indent=2))
        return 0
    # Two tables, so that each fits an 80-column terminal.
    scores = Table(title="LIFEval ARS and IFP per capability (higher is better)")
    stability = Table(title="LIFEval IFS per perspective (lower is more stable)")
    for table, columns in (
        (scores, ["ARS", *CAPABILITIES]),
        (stability, [*PERSPECTIVES, "mean"]),
    ):
        table.add_column("model", overflow="fold")
        for column in columns:
            table.add_column(column, justify="right", no_wrap=True)
    for r in reports:
        cells = [r.ars, *(r.ifp[c.lower()] for c in CAPABILITIES)]
        scores.add_row(cell(r.model), *(_num(v) for v in cells))
        stability.add_row(cell(r.model), *(_num(r.ifs[p]) for p in (*PERSPECTIVES, "mean")))
    console = SafeConsole()
    console.print(scores)
    console.print(stability)
    for r in reports:
        if r.unscored:
            console.print(
                f"[magenta]{data(r.model)}: {r.unscored} response(s) have no score[/] (left "
                f"out of every metric, never counted as 0): `lctui rescore --db {data(db)}` "
                "scores them."
            )
    return 0


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
