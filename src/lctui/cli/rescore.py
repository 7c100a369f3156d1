"""`lctui rescore`: score stored generations that have no score (or all of them again).

A generation that succeeded but lost its score row (or never got one) is shown as not
scored, never as 0; this scores its stored output with the same scorer a run uses and
writes the score, after which `results` and every summary show the real score.
"""

from __future__ import annotations

import argparse
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from lctui.core.config import load_config
from lctui.core.errors import UserInputError
from lctui.core.lengths import parse_lengths


def add_parsers(sub: Any) -> None:
    from lctui.cli import common_options

    rescore = sub.add_parser(
        "rescore",
        help="score stored generations that have no score (--all: every one, again)",
        description="Score the stored outputs of generations that succeeded but have no "
        "rule-based score (shown as not scored, left out of the means), with the scorer "
        "their example names, and store the scores. --all scores every generation that "
        "succeeded again (after a scorer changed); the latest score is the one shown.",
    )
    which = rescore.add_mutually_exclusive_group()
    which.add_argument(
        "--missing",
        dest="all",
        action="store_false",
        default=False,
        help="only the generations without a score (the default)",
    )
    which.add_argument(
        "--all", dest="all", action="store_true", default=False,
        help="every generation that succeeded",
    )  # fmt: skip
    rescore.add_argument("--run", metavar="RUN_ID", help="only the generations of this run")
    rescore.add_argument(
        "--model", "-m", action="append", metavar="M", help="only this model (repeatable)"
    )
    rescore.add_argument("--tasks", "-t", metavar="T1,T2", help="only these tasks")
    rescore.add_argument("--lengths", "-l", metavar="L1,L2", help="only these lengths")
    common_options(rescore)
    rescore.set_defaults(handler=cmd_rescore)


def cmd_rescore(args: argparse.Namespace) -> int:
    from lctui.cli.run import print_missing_hint, resolve_db, score_table
    from lctui.engine.rescore import rescore_targets
    from lctui.store import open_store
    from lctui.store.rescoring import score_targets

    db = resolve_db(args, load_config(args.config))
    if not db.is_file():
        raise UserInputError(f"no results file at {db}; pass the file to score with --db")
    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()] if args.tasks else None
    lengths = parse_lengths(args.lengths) if args.lengths else None
    console = Console()
    # Shared, like `lctui run`: the TUI can browse the file while this writes it.
    with open_store(db, shared=True) as store:
        targets = score_targets(
            store,
            missing=not args.all,
            run_id=args.run,
            models=args.model,
            tasks=tasks,
            lengths=lengths,
        )
        if not targets:
            what = "generation that succeeded" if args.all else "generation without a score"
            console.print(f"Nothing to score: no {what} in {db} matches.")
            return 0
        what = "generation(s)" if args.all else "generation(s) that have no score"
        console.print(f"Scoring {len(targets)} {what} in {db} ...")
        with Progress(
            TextColumn("scoring"), BarColumn(), MofNCompleteColumn(), console=console,
            transient=True,
        ) as progress:  # fmt: skip
            bar = progress.add_task("scoring", total=len(targets))
            summary = rescore_targets(
                store, targets, progress=lambda done, _total: progress.update(bar, completed=done)
            )
        console.print(summary.describe())
        # The cells the scored generations belong to (and their neighbours in the grid).
        cells = [t for t in targets if t.task is not None and t.length is not None]
        rows = store.cell_summary(
            models=sorted({t.model for t in cells}),
            tasks=sorted({str(t.task) for t in cells}),
            lengths=sorted({int(t.length or 0) for t in cells}),
        )
    if rows:
        console.print(score_table(rows, sorted({int(r["length"]) for r in rows})))
        print_missing_hint(console, rows, db)
    return 0 if summary.complete else 1
