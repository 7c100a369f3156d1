"""`lctui rescore`: score stored outputs again where the score is missing or outdated.

A generation that succeeded but lost its score row (or never got one) is shown as not
scored, never as 0; one whose score an older version of its scorer made is flagged as
outdated (scoring/versions.py). This scores their stored outputs with the scorer a run
uses and writes the new scores, which become the latest (the old rows are kept,
superseded); `results` and every summary then show scores made by today's rules.
"""

from __future__ import annotations

import argparse
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from lctui.cli.db_options import common_options, resolve_db
from lctui.cli.terminal import SafeConsole, data
from lctui.core.errors import UserInputError
from lctui.core.lengths import parse_lengths

# Without a flag: `stale`, the missing and the outdated scores (store/rescoring.py).
_WHICH_HELP = {
    "missing": "only the generations without a score",
    "outdated": "only the generations scored by an older version of their scorer",
    "all": "every generation that succeeded (published scores imported from LIFBench "
    "excepted: they have no output to score)",
}


def add_parsers(sub: Any) -> None:
    rescore = sub.add_parser(
        "rescore",
        help="score stored outputs whose score is missing or outdated (--all: every one)",
        description="Score the stored outputs of generations that succeeded but have no "
        "rule-based score (shown as not scored, left out of the means), or whose latest "
        "score an older version of its scorer made (flagged as outdated), with the "
        "scorer their example names, and store the new scores: they become the latest "
        "and the old rows are kept, superseded. Without --missing, --outdated or --all "
        "it does both of the first two.",
    )
    which = rescore.add_mutually_exclusive_group()
    for flag in ("missing", "outdated", "all"):
        which.add_argument(
            f"--{flag}", dest="which", action="store_const", const=flag, help=_WHICH_HELP[flag]
        )
    rescore.set_defaults(which="stale")
    rescore.add_argument("--run", metavar="RUN_ID", help="only the generations of this run")
    rescore.add_argument(
        "--model", "-m", action="append", metavar="M", help="only this model (repeatable)"
    )
    rescore.add_argument("--tasks", "-t", metavar="T1,T2", help="only these tasks")
    rescore.add_argument("--lengths", "-l", metavar="L1,L2", help="only these lengths")
    common_options(rescore)
    rescore.set_defaults(handler=cmd_rescore)


def _what(which: str, targets: list[Any]) -> str:
    """'6 generation(s) that have no score', '2 ... scored by an older scorer version'."""
    outdated = sum(1 for t in targets if t.outdated)
    missing = len(targets) - outdated
    if which == "all":
        return f"{len(targets)} generation(s)"
    if not outdated:
        return f"{missing} generation(s) that have no score"
    if not missing:
        return f"{outdated} generation(s) scored by an older version of their scorer"
    return (
        f"{len(targets)} generation(s): {missing} that have no score and {outdated} scored "
        "by an older version of their scorer"
    )


_NOTHING = {
    "stale": "generation without a score or scored by an older scorer version",
    "missing": "generation without a score",
    "outdated": "generation scored by an older scorer version",
    "all": "generation that succeeded",
}


def cmd_rescore(args: argparse.Namespace) -> int:
    from lctui.analysis.outdated import find_outdated
    from lctui.cli.output import print_whole, table_width, warn_outdated
    from lctui.cli.run import print_missing_hint, score_table
    from lctui.engine.rescore import find_targets, rescore_targets
    from lctui.scoring.versions import current_versions
    from lctui.store import open_store

    db = resolve_db(args).path
    if not db.is_file():
        raise UserInputError(f"no results file at {db}; pass the file to score with --db")
    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()] if args.tasks else None
    lengths = parse_lengths(args.lengths) if args.lengths else None
    console = SafeConsole()
    # Shared, like `lctui run`: the TUI can browse the file while this writes it.
    with open_store(db, shared=True) as store:
        targets = find_targets(
            store, args.which, run_id=args.run, models=args.model, tasks=tasks, lengths=lengths
        )
        if not targets:
            console.print(f"Nothing to score: no {_NOTHING[args.which]} in {data(db)} matches.")
            return 0
        console.print(f"Scoring {data(_what(args.which, targets))} in {data(db)} ...")
        with Progress(
            TextColumn("scoring"), BarColumn(), MofNCompleteColumn(), console=console,
            transient=True,
        ) as progress:  # fmt: skip
            bar = progress.add_task("scoring", total=len(targets))
            summary = rescore_targets(
                store, targets, progress=lambda done, _total: progress.update(bar, completed=done)
            )
        console.print(data(summary.describe()))
        # The cells the scored generations belong to (and their neighbours in the grid).
        cells = [t for t in targets if t.task is not None and t.length is not None]
        in_models = sorted({t.model for t in cells})
        in_tasks = sorted({str(t.task) for t in cells})
        in_lengths = sorted({int(t.length or 0) for t in cells})
        rows = store.cell_summary(in_models, in_tasks, in_lengths, versions=current_versions())
        left = find_outdated(store, models=in_models, tasks=in_tasks, lengths=in_lengths)
    if rows:
        lengths = sorted({r.length for r in rows})
        print_whole(console, score_table(rows, lengths, table_width(console)))
        print_missing_hint(console, rows, db)
        warn_outdated(left, db)
    return 0 if summary.complete else 1
