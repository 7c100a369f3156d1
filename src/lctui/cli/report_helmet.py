"""`lctui report --suite helmet`: HELMET's category means and overall mean per model
and length (analysis/helmet.py), as a table that fits 80 columns or as JSON."""

from __future__ import annotations

import argparse
import json

from rich import box
from rich.table import Table

from lctui.cli.db_options import resolve_db
from lctui.cli.terminal import SafeConsole, cell, data
from lctui.core.errors import UserInputError
from lctui.core.lengths import format_length


def report_helmet(args: argparse.Namespace) -> int:
    from lctui.analysis.helmet import CATEGORIES, ENTRIES, HEADINGS, helmet_table, shown
    from lctui.analysis.outdated import find_outdated
    from lctui.cli.output import warn_outdated
    from lctui.store import open_store

    db = resolve_db(args).path
    with open_store(db, read_only=True) as store:
        rows = helmet_table(store, args.model)
        # Only the table's own tasks: an outdated score elsewhere does not change it.
        tasks = sorted({e.task for e in ENTRIES})
        outdated = find_outdated(store, models=args.model, tasks=tasks)
    if not rows:
        wanted = f" for {', '.join(args.model)}" if args.model else ""
        raise UserInputError(
            f"{db} holds no scores of HELMET's tasks{wanted}; run some with "
            "`lctui run --tasks helmet --db PATH`"
        )
    warn_outdated(outdated, db)  # on stderr: the JSON stays parseable
    if args.format == "json":
        print(json.dumps([r.as_dict() for r in rows], indent=2))
        return 0
    # No vertical rules and one space between columns: ten columns in 80.
    table = Table(
        title="HELMET categories (0-100; * partial: a dataset has no score)",
        box=box.SIMPLE_HEAD,
        padding=(0, 0, 0, 1),
        show_edge=False,
    )
    table.add_column("model", overflow="fold", ratio=1)
    table.add_column("len", justify="right", no_wrap=True)
    for category in CATEGORIES:
        table.add_column(HEADINGS[category], justify="right", no_wrap=True)
    table.add_column("Overall", justify="right", no_wrap=True)
    for r in rows:
        cells = [shown(c.value, c.partial) for c in (r.categories[k] for k in CATEGORIES)]
        table.add_row(cell(r.model), format_length(r.length), *cells, shown(r.overall, r.partial))
    console = SafeConsole()
    console.print(table)
    missing = sorted(
        {m for r in rows for c in r.categories.values() if c.partial for m in c.missing}
    )
    if missing:
        console.print(
            f"[magenta]* means of what is there; without a score (never counted as 0):[/] "
            f"{data(', '.join(missing))}. Run those tasks (`lctui judge` scores judge_* "
            "metrics, `lctui cite-score` citation_*) to complete the table; '-': no "
            "dataset of the category scored."
        )
    return 0
