"""`lctui data list | check | fetch`: the datasets of every suite, where they are, what they
fill, and getting them.

`list` and `check` print a rich table at a terminal and tab-separated whole values when
piped (`--format table|tsv|json`); what they say comes from the catalog
(tasks/catalog.py) and from the tasks themselves (tasks/data_status.py). `check` exits
with status 1 when a present file holds malformed lines.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from typing import Any

from rich.markup import escape
from rich.table import Table

from lctui.cli.data_option import data_option, data_source, tasks_by_name
from lctui.cli.tables import format_option, output_format, print_tsv
from lctui.cli.terminal import SafeConsole, cell, data, plain, say
from lctui.core.config import load_config
from lctui.core.formatting import file_size
from lctui.core.lengths import format_length, parse_lengths
from lctui.core.text import plural
from lctui.tasks.catalog import Archive, Dataset, Download, HubFiles, catalog
from lctui.tasks.data_status import (
    BUILT_IN,
    DatasetStatus,
    TaskCheck,
    check_task,
    dataset_status,
    unique_problems,
)
from lctui.tasks.datasets import DataSource, parse_source
from lctui.tasks.reach import Reach

EXIT_MALFORMED = 1
DEFAULT_LENGTHS = "ruler"  # 4k ... 128k: RULER's lengths, HELMET's with 4k


def add_parsers(sub: Any) -> None:
    from lctui.cli.data_fetch import add_fetch_parser
    from lctui.cli.data_inputs import add_inputs_parser

    data = sub.add_parser(
        "data",
        help="the datasets tasks read: where they are, what they fill, getting them",
        description="Every suite's datasets: `list` says which are present (in --data DIR "
        "or the hub cache), their size, licence and how to get them; `check DIR` reads them "
        "and says which lengths they fill and which lines are malformed; `fetch NAME` "
        "downloads one where the network allows; `inputs` lists the originals' own input files "
        "`lctui run --inputs` runs as they are.",
    )
    actions = data.add_subparsers(dest="action", metavar="ACTION", required=True)
    listed = actions.add_parser(
        "list",
        help="every dataset: present?, size, licence, source",
        description="List every dataset the tasks read: whether it is present (in --data "
        "DIR or the hub cache), its size, licence and source, and how to get it.",
    )
    _format_option(listed)
    listed.add_argument("--config", metavar="PATH", help="lctui.toml to read data_dir from")
    data_option(listed)
    listed.set_defaults(handler=cmd_list)

    check = actions.add_parser(
        "check",
        help="read a data folder: lengths each task fills, what is missing or malformed",
        description="Read the datasets in DIR (a folder, or hf://ORG/NAME; hub-origin files "
        "are also looked for in the hub cache) and say, per task, which lengths its data "
        "fills and how that was decided (story lengths are estimated from characters, "
        "never tokenised whole), what is missing, and every malformed line as FILE:LINE. "
        "Exit status 1 when something present is malformed.",
    )
    check.add_argument("folder", metavar="DIR", help="the data folder (or hf://ORG/NAME)")
    check.add_argument(
        "--lengths",
        default=DEFAULT_LENGTHS,
        help="lengths to check, e.g. 8k,128k or a preset (default: ruler = 4k..128k)",
    )
    _format_option(check)
    check.set_defaults(handler=cmd_check)
    add_fetch_parser(actions)
    add_inputs_parser(actions)


def _format_option(parser: argparse.ArgumentParser) -> None:
    format_option(parser, "json")


# list -----------------------------------------------------------------------------------


def cmd_list(args: argparse.Namespace) -> int:
    source = data_source(args, load_config(args.config))
    tasks = tasks_by_name(source)
    statuses = [dataset_status(d, tasks, source) for d in catalog()]
    folder = str(source.folder) if source is not None and source.folder is not None else None
    fmt = output_format(args)
    if fmt == "json":
        print(json.dumps([_status_json(s, folder) for s in statuses], indent=2))
        return 0
    header = ["dataset", "suite", "tasks", "data", "where", "size", "licence", "how to get it"]
    if fmt == "tsv":
        print_tsv(header, [_status_row(s, get_lines(s.dataset, folder)) for s in statuses])
        return 0
    # At a terminal each download's own command is printed once, under the table, and
    # the rows point at it (HELMET's release serves seven datasets).
    notes: dict[Download, int] = {}
    where = source.label if source is not None else "the hub cache (no --data)"
    table = Table(title=f"Datasets ({data(where)})", show_lines=True, expand=True)
    for column in header:
        _add_column(table, column)
    for status in statuses:
        marks = [notes.setdefault(d, len(notes) + 1) for d in status.dataset.downloads]
        lines = get_lines(status.dataset, folder, commands=False)
        if marks:
            lines.insert(1, "or " + ", ".join(f"[{m}]" for m in marks))
        row = _status_row(status, lines, plain)
        # The title names the data folder; a cell says which of the places it is.
        row[2] = task_summary(status.dataset.tasks)
        row[4] = "\n".join(plain(_short_place(p, folder)) for p in status.places) or "-"
        table.add_row(*(escape(value) for value in row), style=_STYLE.get(status.state))
    console = SafeConsole()
    console.print(table)
    for download, mark in notes.items():
        console.print(
            f"\\[{mark}] {data(download.describe())}:\n    {data(download.command(folder))}",
            soft_wrap=True,
            highlight=False,
        )
    return 0


# Short columns stay on one line; the long ones share the rest (commands get the most).
_SHORT = {"dataset", "suite", "data", "where", "size", "task"}
_SHARE = {"how to get it": 4, "how decided / what is missing": 4, "lengths filled": 3}


def _add_column(table: Table, name: str) -> None:
    if name in _SHORT:
        table.add_column(name, no_wrap=True)
    else:
        table.add_column(name, overflow="fold", ratio=_SHARE.get(name, 2))


_STYLE = {
    "missing": "dim",
    "partial": "yellow",
    "malformed lines": "yellow",
    "unusable": "red",
}


def get_lines(dataset: Dataset, folder: str | None, *, commands: bool = True) -> list[str]:
    """How to get `dataset`: the fetch command, each download's own command (unless not
    `commands`), its homepage and note."""
    if dataset.builtin:
        return [f"nothing to get: {dataset.builtin}"]
    # Plain files and archives need a folder; an archive is fetched only with --yes.
    needs_folder = any(not isinstance(d, HubFiles) for d in dataset.downloads)
    given = f" --data {folder}" if folder else (" --data DIR" if needs_folder else "")
    huge = " --yes" if any(isinstance(d, Archive) for d in dataset.downloads) else ""
    lines = [f"lctui data fetch {dataset.name}{given}{huge}"]
    if commands:
        lines += [download.command(folder) for download in dataset.downloads]
    lines.append(dataset.homepage)
    if dataset.note:
        lines.append(dataset.note)
    return lines


def _short_place(place: str, folder: str | None) -> str:
    if place == folder:
        return "--data"
    return "hub cache" if place.startswith("hub cache") else place


def task_summary(tasks: Sequence[str]) -> str:
    """A long task list shortened for a table cell: names sharing the part before their
    first `_` three times or more become `prefix_*` (`lctui tasks` lists them all)."""
    if len(tasks) <= 4:
        return ", ".join(tasks)
    heads = [name.split("_", 1)[0] for name in tasks]
    shown = [f"{h}_*" if heads.count(h) >= 3 else n for h, n in zip(heads, tasks, strict=True)]
    return f"{plural(len(tasks), 'task')}: " + ", ".join(dict.fromkeys(shown))


def _status_row(
    status: DatasetStatus, get: list[str], line: Callable[[str], str] = str
) -> list[str]:
    """A dataset's cells; `line` makes each line of a cell that lists several (its
    places, how to get it) what the output shows."""
    dataset = status.dataset
    return [
        dataset.name,
        dataset.suite,
        ", ".join(dataset.tasks),
        status.state,
        "\n".join(line(place) for place in status.places) or "-",
        file_size(status.size) if status.files else "-",
        dataset.licence,
        "\n".join(line(text) for text in get),
    ]


def _status_json(status: DatasetStatus, folder: str | None) -> dict[str, Any]:
    dataset = status.dataset
    return {
        "name": dataset.name,
        "suite": dataset.suite,
        "title": dataset.title,
        "tasks": list(dataset.tasks),
        "state": status.state,
        "places": list(status.places),
        "files": [str(f) for f in status.files],
        "size_bytes": status.size,
        "licence": dataset.licence,
        "homepage": dataset.homepage,
        "built_in": dataset.builtin or None,
        "downloads": [
            {"kind": type(d).__name__, "what": d.describe(), "command": d.command(folder)}
            for d in dataset.downloads
        ],
        "note": dataset.note or None,
        "missing": dict(status.missing),
    }


# check ----------------------------------------------------------------------------------


def cmd_check(args: argparse.Namespace) -> int:
    source = parse_source(args.folder, "data check")
    lengths = parse_lengths(args.lengths)
    tasks = tasks_by_name(source)
    report: list[tuple[DatasetStatus, list[TaskCheck]]] = []
    for dataset in catalog():
        status = dataset_status(dataset, tasks, source)
        readers = [tasks[name] for name in dataset.tasks if name in tasks]
        # A built-in dataset's tasks generate their text: one row says it for all.
        checks = [] if status.state == BUILT_IN else [check_task(t, lengths) for t in readers]
        report.append((status, checks))
    problems = unique_problems([c for _, checks in report for c in checks])
    errors = [(c.task, c.error) for _, checks in report for c in checks if c.error]
    fmt = output_format(args)
    if fmt == "json":
        print(json.dumps(_check_json(source, lengths, report, len(problems)), indent=2))
    else:
        _print_check(source, lengths, report, fmt)
        # File names and what the tasks say of a file's values: escaped, never acted on.
        for task, error in errors:
            say(f"unusable: {task}: {error}")  # one line each: the data's controls shown
        for problem in problems:
            say(f"malformed: {problem.path}:{problem.line}: {problem.reason}")
        if problems or errors:
            print(f"{len(problems)} malformed line(s), {len(errors)} unusable task(s)")
    return EXIT_MALFORMED if problems or errors else 0


def reach_text(reach: Reach) -> str:
    """`4k, 8k: all 100 questions; 16k: 80 of 100 questions; not 32k, 64k` (lengths in
    the order asked)."""
    if reach.total is None:
        return "any length"
    if reach.total == 0:
        return "none: every document is under the task's bound (see how)"
    parts = []
    filled = reach.filled()
    if filled:
        every = f"all {reach.total} questions" if reach.total > 1 else "its question"
        parts.append(f"{', '.join(map(format_length, filled))}: {every}")
    parts += [
        f"{format_length(n)}: {rows} of {reach.total} questions" for n, rows in reach.partly()
    ]
    unfilled = reach.unfilled()
    if unfilled:
        parts.append("not " + ", ".join(map(format_length, unfilled)))
    return "; ".join(parts) + (" (estimated)" if reach.estimated else "")


def _check_rows(report: list[tuple[DatasetStatus, list[TaskCheck]]]) -> list[list[str]]:
    rows = []
    for status, checks in report:
        dataset = status.dataset
        if status.state == BUILT_IN:
            tasks = f"{len(dataset.tasks)} task" + ("s" if len(dataset.tasks) > 1 else "")
            rows.append([dataset.name, tasks, BUILT_IN, "any length", dataset.builtin])
            continue
        for check in checks:
            if check.missing is not None:
                rows.append([dataset.name, check.task, "missing", "-", check.missing])
            elif check.reach is None:
                rows.append([dataset.name, check.task, "unusable", "-", check.error or ""])
            else:
                state = "malformed lines" if check.problems else "present"
                text = reach_text(check.reach)
                rows.append([dataset.name, check.task, state, text, check.reach.how])
    return rows


def _print_check(
    source: DataSource,
    lengths: Sequence[int],
    report: list[tuple[DatasetStatus, list[TaskCheck]]],
    fmt: str,
) -> None:
    header = ["dataset", "task", "data", "lengths filled", "how decided / what is missing"]
    rows = _check_rows(report)
    if fmt == "tsv":
        print_tsv(header, rows)
        return
    asked = ", ".join(map(format_length, lengths))
    table = Table(title=f"Data in {data(source.label)} at {asked}", show_lines=True, expand=True)
    for column in header:
        _add_column(table, column)
    for row in rows:
        table.add_row(*map(cell, row), style=_STYLE.get(row[2]))
    SafeConsole().print(table)


def _check_json(
    source: DataSource,
    lengths: Sequence[int],
    report: list[tuple[DatasetStatus, list[TaskCheck]]],
    malformed: int,
) -> dict[str, Any]:
    datasets = []
    for status, checks in report:
        datasets.append(
            {
                "name": status.dataset.name,
                "state": status.state,
                "tasks": [_task_json(c) for c in checks],
            }
        )
    return {
        "source": source.label,
        "lengths": list(lengths),
        "datasets": datasets,
        "malformed_lines": malformed,
    }


def _task_json(check: TaskCheck) -> dict[str, Any]:
    reach = check.reach
    return {
        "task": check.task,
        "missing": check.missing,
        "error": check.error,
        "questions": None if reach is None else reach.total,
        "filled": None
        if reach is None
        else {str(n): rows for n, rows in zip(reach.lengths, reach.rows, strict=True)},
        "how": None if reach is None else reach.how,
        "estimated": None if reach is None else reach.estimated,
        "problems": [{"path": p.path, "line": p.line, "reason": p.reason} for p in check.problems],
    }
