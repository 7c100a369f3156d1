"""`lctui correlate`: Spearman rank correlation across models between tasks or categories."""

from __future__ import annotations

import argparse
import json
from typing import Any

from rich.table import Table

from lctui.cli.db_options import common_options
from lctui.cli.terminal import cell, data
from lctui.core.formatting import p_value
from lctui.core.lengths import format_length, parse_length
from lctui.core.text import plural


def add_parsers(sub: Any) -> None:
    correlate = sub.add_parser(
        "correlate",
        help="Spearman correlation across models between tasks or categories",
        description="Rank the models by their score on each task (or category) and "
        "correlate every pair of rankings (Spearman's rho, with p and n), as HELMET's "
        "figures 3-5 do. Without --length a model's score is its mean over the lengths "
        "it has. Reference pseudo-models (gold) are left out.",
    )
    correlate.add_argument("--length", metavar="L", help="one context length, e.g. 128k")
    correlate.add_argument("--by", choices=["task", "category"], default="task")
    correlate.add_argument(
        "--model", action="append", metavar="M", help="only these models (repeatable)"
    )
    correlate.add_argument(
        "--min-models",
        type=int,
        default=5,
        metavar="N",
        help="fewest models for a coefficient (default 5: fewer cannot reach p < 0.05)",
    )
    correlate.add_argument("--format", choices=["table", "json"], default="table")
    correlate.add_argument("--out", metavar="FILE", help="write the output to FILE")
    common_options(correlate)
    correlate.set_defaults(handler=cmd_correlate)


def correlation_from_args(args: argparse.Namespace, store: Any) -> Any:
    from lctui.analysis.correlation import correlate

    length = parse_length(args.length) if args.length else None
    return correlate(
        store, by=args.by, length=length, models=args.model, min_models=max(3, args.min_models)
    )


def outdated_of_correlation(args: argparse.Namespace, store: Any) -> Any:
    """The scores behind the correlation that an older scorer version made."""
    from lctui.analysis.outdated import find_outdated

    length = parse_length(args.length) if args.length else None
    return find_outdated(
        store,
        models=args.model,
        lengths=None if length is None else [length],
        with_reference=False,  # reference models are never correlated
    )


def cmd_correlate(args: argparse.Namespace) -> int:
    from lctui.cli.output import emit, open_results, print_rich, warn_outdated

    with open_results(args) as store:
        matrix = correlation_from_args(args, store)
        warn_outdated(outdated_of_correlation(args, store), store.where)
    if args.format == "json":
        emit(json.dumps(matrix.as_dict(), indent=2) + "\n", args.out)
        return 0
    print_rich(_tables(matrix), args.out)
    return 0


def _tables(matrix: Any) -> list[Any]:
    d = matrix.as_dict()
    at = format_length(d["length"]) if d["length"] is not None else "all lengths (mean)"
    labels = matrix.labels
    # Numbered columns keep a matrix of long task names inside 80 columns.
    across = plural(len(matrix.models), "model")
    rho = Table(title=f"Spearman rho across {across} @ {at}, by {data(d['by'])}")
    p = Table(title="p (two-sided)")
    for table in (rho, p):
        table.add_column("", overflow="fold")
        for j in range(len(labels)):
            table.add_column(str(j + 1), justify="right", no_wrap=True)
    for i, label in enumerate(labels):
        rho.add_row(cell(f"{i + 1} {label}"), *(_rho(c.rho) for c in matrix.cells[i]))
        p.add_row(cell(f"{i + 1} {label}"), *(p_value(c.p) for c in matrix.cells[i]))
    notes = {c.reason for row in matrix.cells for c in row if c.reason}
    tail = "n per pair: --format json" + "".join(f"\n- {data(why)}" for why in sorted(notes))
    return [rho, p, tail]


def _rho(value: float | None) -> str:
    if value is None:
        return "-"
    colour = "green" if value >= 0.8 else "yellow" if value >= 0.5 else "red"
    return f"[{colour}]{value:.2f}[/]"
