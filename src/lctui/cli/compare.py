"""`lctui compare A B`: paired A/B of two models, checkpoints or runs, cell by cell."""

from __future__ import annotations

import argparse
import json
from typing import Any

from rich.text import Text

from lctui.cli.db_options import common_options
from lctui.cli.tables import Column, fit_table
from lctui.cli.terminal import SafeConsole, data
from lctui.core.errors import UserInputError
from lctui.core.formatting import fixed, p_value
from lctui.core.lengths import format_length

SIDE_HELP = "a model name (or fingerprint), run:RUN_ID, or run:RUN_ID@MODEL"


def add_parsers(sub: Any) -> None:
    compare = sub.add_parser(
        "compare",
        help="paired A/B of two models, checkpoints or runs: deltas, CIs, tests",
        description="Pair the latest generations of A and B by example and compare them per "
        "task x length: means, A - B with a 95%% confidence interval within [-1, 1], and a "
        "paired test (exact McNemar with Newcombe's paired interval for pass/fail scores, "
        "Wilcoxon signed-rank with a paired bootstrap percentile interval for graded ones; "
        "below 5 pairs the interval reads 'too few pairs'). Examples only one side has, "
        "and pairs where a side failed, are left out and counted.",
    )
    compare.add_argument("a", metavar="A", help=SIDE_HELP)
    compare.add_argument("b", metavar="B", help=SIDE_HELP)
    compare.add_argument("--format", choices=["table", "json", "md"], default="table")
    compare.add_argument("--out", metavar="FILE", help="write the output to FILE")
    compare.add_argument(
        "--threshold",
        type=float,
        default=0.5,
        help="|A - B| at or above which an example counts as changed (default 0.5)",
    )
    compare.add_argument(
        "--changed", type=int, default=10, metavar="N", help="changed examples listed (table)"
    )
    compare.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples")
    compare.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    common_options(compare)
    compare.set_defaults(handler=cmd_compare)


def cmd_compare(args: argparse.Namespace) -> int:
    from lctui.analysis.compare import compare
    from lctui.analysis.report_md import compare_blocks, outdated_sides, render
    from lctui.cli.output import emit, open_results, print_rich, table_width, warn

    if args.resamples < 100:
        raise UserInputError(f"--resamples {args.resamples}: give at least 100")
    with open_results(args) as store:
        result = compare(
            store,
            args.a,
            args.b,
            threshold=args.threshold,
            resamples=args.resamples,
            seed=args.seed,
        )
        where = store.where
    # Compared all the same; each side scored in part by an older scorer version is named.
    for line in outdated_sides(result, where):
        warn(line)
    if args.format == "json":
        emit(json.dumps(result.as_dict(), indent=2) + "\n", args.out)
    elif args.format == "md":
        emit(render(compare_blocks(result, where), "md"), args.out)
    else:
        width = table_width(SafeConsole()) if args.out is None else None
        print_rich(_tables(result, args.changed, width), args.out)
    return 0


def _tables(result: Any, shown: int, width: int | None) -> list[Any]:
    from lctui.analysis.compare import interval_notes, side_notes

    columns = [
        Column("task", key=True),
        Column("length", "right", key=True),
        *(Column(name, "right") for name in ("n", "A", "B", "A - B", "95% CI")),
        Column("test"),
        Column("p", "right"),
    ]
    rows: list[list[str | Text]] = []
    for c in result.cells:
        colour = "green" if c.p is not None and c.p < 0.05 and c.diff > 0 else (
            "red" if c.p is not None and c.p < 0.05 and c.diff < 0 else ""
        )  # fmt: skip
        rows.append([
            c.label, format_length(c.length), str(c.n), fixed(c.mean_a), fixed(c.mean_b),
            Text(fixed(c.diff, signed=True), colour), c.ci.shown(), c.test,
            p_value(c.p),
        ])  # fmt: skip
    title = f"A = {result.a.label}  vs  B = {result.b.label}"
    tables: list[Any] = fit_table(title, columns, rows, width)
    notes = [
        *side_notes(result),
        f"left out: {result.only_a} example(s) only in A, {result.only_b} only in B, "
        f"{result.errors_a} failed in A, {result.errors_b} failed in B"
        + (
            f", {result.unscored_a} not scored in A, {result.unscored_b} not scored in B "
            "(missing scores are never paired as 0; lctui rescore scores them)"
            if result.unscored_a or result.unscored_b
            else ""
        ),
        f"changed (|A - B| >= {result.threshold:g}): {result.a_better} A better, "
        f"{result.b_better} B better",
    ]
    notes += [
        f"p missing for {c.label} @ {format_length(c.length)}: {c.reason}"
        for c in result.cells
        if c.reason
    ]
    notes += interval_notes(result)
    out: list[Any] = [*tables, "\n".join(data(note) for note in notes)]  # markup: inert
    if result.changed and shown > 0:
        changed = [
            [ch.task, format_length(ch.length), ch.example_id, fixed(ch.score_a),
             fixed(ch.score_b), ch.generation_a, ch.generation_b]
            for ch in result.changed[:shown]
        ]  # fmt: skip
        columns = [
            Column("task", key=True),
            Column("length", "right"),
            Column("example", key=True),
            Column("A", "right"),
            Column("B", "right"),
            Column("generation A"),
            Column("generation B"),
        ]
        title = "changed examples (largest |A - B| first)"
        out += fit_table(title, columns, changed, width)
    return out
