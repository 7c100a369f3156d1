"""`lctui report --suite longbench`: LongBench v2's accuracy per model, mode and length,
overall, by difficulty and length bucket (the original's columns) and by domain, each
also compensated (analysis/longbench.py), as tables that fit 80 columns or as JSON."""

from __future__ import annotations

import argparse
import json

from rich import box
from rich.table import Table

from lctui.cli.db_options import resolve_db
from lctui.cli.terminal import SafeConsole, cell, data
from lctui.core.errors import UserInputError
from lctui.core.lengths import format_length


def _table(title: str) -> Table:
    # No vertical rules and one space between columns: eleven columns in 80.
    table = Table(title=title, box=box.SIMPLE_HEAD, padding=(0, 0, 0, 1), show_edge=False)
    table.add_column("model", overflow="fold", ratio=1)
    table.add_column("len", justify="right", no_wrap=True)
    return table


def report_longbench(args: argparse.Namespace) -> int:
    from lctui.analysis.longbench import (
        BUCKET_GROUPS,
        DIFFICULTY_GROUPS,
        DOMAIN_HEADINGS,
        HEADINGS,
        MODES,
        OVERALL,
        longbench_table,
        shown,
    )
    from lctui.analysis.outdated import find_outdated
    from lctui.cli.output import warn_outdated
    from lctui.store import open_store

    db = resolve_db(args).path
    with open_store(db, read_only=True) as store:
        rows = longbench_table(store, args.model)
        outdated = find_outdated(store, models=args.model, scorers=["longbench"])
    if not rows:
        wanted = f" for {', '.join(args.model)}" if args.model else ""
        raise UserInputError(
            f"{db} holds no LongBench v2 scores{wanted}; run some with `lctui run --tasks "
            "longbench --data DIR --db PATH` or import the original's results with "
            "`lctui import longbench-results FILE`"
        )
    warn_outdated(outdated, db)  # on stderr: the JSON stays parseable
    if args.format == "json":
        print(json.dumps([r.as_dict() for r in rows], indent=2))
        return 0
    groups = (OVERALL, *DIFFICULTY_GROUPS, *BUCKET_GROUPS)
    console = SafeConsole()
    order = list(MODES)
    tasks = sorted({r.task for r in rows}, key=lambda t: (order.index(t) if t in MODES else 9, t))
    for task in tasks:
        mode = data(MODES.get(task, task))
        accuracy = _table(f"LongBench v2, {mode}: accuracy (%)")
        for group in groups:
            accuracy.add_column(HEADINGS[group], justify="right", no_wrap=True)
            if group == OVERALL:
                accuracy.add_column("Comp.", justify="right", no_wrap=True)
        accuracy.add_column("n", justify="right", no_wrap=True)
        accuracy.add_column("unparsed", justify="right", no_wrap=True)
        domains = _table(f"LongBench v2, {mode}: accuracy by domain (%)")
        for heading in DOMAIN_HEADINGS.values():
            domains.add_column(heading, justify="right", no_wrap=True)
        for r in (r for r in rows if r.task == task):
            cells = [shown(r.groups[g].accuracy) if g in r.groups else "-" for g in groups]
            cells.insert(1, shown(r.overall.compensated))
            left = f" +{r.left_out} err" if r.left_out else ""
            length = format_length(r.length)
            n = f"{r.overall.n}{left}"
            accuracy.add_row(cell(r.model), length, *cells, n, str(r.overall.unparsed))
            by_domain = [
                shown(r.groups[d].accuracy) if d in r.groups else "-" for d in DOMAIN_HEADINGS
            ]
            domains.add_row(cell(r.model), length, *by_domain)
        console.print(accuracy)
        console.print(domains)
    console.print(
        "[dim]Comp.: compensated, an answer naming no option counts 0.25. Domains: "
        + "; ".join(f"{short} = {full}" for full, short in DOMAIN_HEADINGS.items())
        + ".[/]"
    )
    return 0
