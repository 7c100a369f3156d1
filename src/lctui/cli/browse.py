"""Read-only subcommands: `lctui tasks`, `models`, `query` and `show`."""

from __future__ import annotations

import argparse
import csv
import json
import sys
from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text

from lctui.cli.data_option import bind_data, data_option, data_problems, data_source
from lctui.cli.db_options import common_options, resolve_db
from lctui.cli.tables import Column, fit_table, format_option, output_format, print_tsv
from lctui.cli.terminal import SafeConsole, cell, data, document, plain
from lctui.core.config import load_config
from lctui.core.errors import UserInputError
from lctui.core.text import plural, shorten
from lctui.core.types import ParamSpec
from lctui.store.read.catalog import EXAMPLE_MEANS

if TYPE_CHECKING:
    from lctui.store.read.generations import GenerationRecord
    from lctui.tasks import Task


def add_parsers(sub: Any) -> None:
    tasks = sub.add_parser(
        "tasks",
        help="list tasks with categories, metrics and parameters",
        description="List every task: its suite and groups, category, metric, what it "
        "asks, its parameters with their defaults and ranges, and why it is unavailable "
        "when its data is missing.",
    )
    format_option(tasks, "json")
    tasks.add_argument("--config", metavar="PATH", help="lctui.toml to read data_dir from")
    data_option(tasks)
    tasks.set_defaults(handler=cmd_tasks)

    models = sub.add_parser(
        "models",
        help="list configured and built-in models",
        description="List the models lctui.toml configures and the built-in ones (the "
        "embedded SmolLM2, the gold reference) with their backend, source and path.",
    )
    models.add_argument("--config", metavar="PATH", help="lctui.toml to read models from")
    models.set_defaults(handler=cmd_models)

    query = sub.add_parser(
        "query",
        help="run SQL on a results database (read-only)",
        description="Run one statement that reads (SELECT, WITH, DESCRIBE, SHOW, "
        "SUMMARIZE, EXPLAIN) on a read-only connection that cannot reach files, URLs or "
        "extensions. Views: results (one row per latest generation), rubric (one row per "
        "rubric point).",
    )
    query.add_argument("sql", help=f'the query, e.g. "{EXAMPLE_MEANS}"')
    query.add_argument("--format", choices=["table", "csv", "json"], default="table")
    common_options(query)
    query.set_defaults(handler=cmd_query)

    show = sub.add_parser(
        "show",
        help="one generation: prompt, output, gold, rubric points",
        description="Print one stored generation: the prompt (a long one as its start "
        "and end, unless --full), the output, the gold answer and every score with its "
        "rubric points.",
    )
    show.add_argument("generation_id", help="a generation_id from the results view")
    show.add_argument("--full", action="store_true", help="print the whole prompt")
    common_options(show)
    show.set_defaults(handler=cmd_show)


def cmd_tasks(args: argparse.Namespace) -> int:
    from lctui.tasks import all_tasks
    from lctui.tasks.groups import task_groups

    tasks = bind_data(all_tasks(), data_source(args, load_config(args.config)))
    groups = task_groups(tasks)
    # Each task once, under its first group (RULER's needle tasks that HELMET's recall
    # also counts stay with RULER and say so); `groups` names every group of a task.
    group_names: dict[str, list[str]] = {}
    for group in groups:
        for task in group.tasks:
            group_names.setdefault(task.name, []).append(group.label)
    shown = {t.name: t for g in groups for t in g.tasks}
    fmt = output_format(args)
    if fmt == "json":
        found = [
            {**_info_dict(t.info()), "groups": group_names[n], "unavailable": t.unavailable()}
            for n, t in shown.items()
        ]
        print(json.dumps(found, indent=2))
        return 0
    if fmt == "tsv":
        header = ["task", "groups", "suite", "category", "metric", "description", "parameters"]
        cells = [_task_cells(t, group_names[n]) for n, t in shown.items()]
        print_tsv([*header, "unavailable"], cells)
        return 0
    # A heading row per group, each task once; its name whole (what --tasks takes) and
    # the rest, which wraps, in one column: at 80 columns the name keeps 36 of them.
    rows: list[list[str | Text]] = []
    sections: list[int] = []
    listed: set[str] = set()
    for group in groups:
        members = [t for t in group.tasks if t.name not in listed]
        if not members:
            continue
        sections.append(len(rows))
        rows.append([Text(group.label, "bold"), ""])
        for task in members:
            listed.add(task.name)
            name, groups_of, _, _, metric, description, params, why = _task_cells(
                task, group_names[task.name]
            )
            about = [description]
            if why:  # names a file of the data folder: one line, its controls shown
                about.append(f"unavailable: {plain(why)}")
            if len(group_names[task.name]) > 1:
                about.append(f"groups: {groups_of}")
            about.append(f"metric {metric}" + (f"; {params}" if params else ""))
            style = "dim" if why else ""
            rows.append([Text(name, style), Text("\n".join(about), style)])
    columns = [Column("task", key=True), Column("description, metric, parameters", prose=True)]
    console = SafeConsole()
    title = "Tasks (select by name, category, suite or glob with --tasks)"
    for table in fit_table(title, columns, rows, console.width, sections=sections):
        console.print(table)
    for problem in data_problems(tasks):
        console.print(data(problem), style="yellow", highlight=False)
    return 0


def _task_cells(task: Task, groups: list[str]) -> list[str]:
    """A task as whole values: name, groups, suite, category, metric, description, its
    parameters and why it cannot run ("" when it can)."""
    info = task.info()
    params = ", ".join(_param_text(p) for p in info.params)
    return [
        info.name,
        ", ".join(groups),
        info.suite,
        info.category,
        info.metric,
        info.description,
        params,
        task.unavailable() or "",
    ]


def _param_text(param: ParamSpec) -> str:
    """`num_keys=1 (1..10000)`: the default, then what `--set` accepts."""
    allowed = param.allowed()
    return f"{param.name}={json.dumps(param.default)}" + (f" ({allowed})" if allowed else "")


def _param_dict(param: ParamSpec) -> dict[str, Any]:
    out: dict[str, Any] = {"default": param.default, "help": param.help, "type": param.kind}
    if param.kind == "choice":
        out["choices"] = list(param.choices)
    if param.low is not None:
        out["min"] = param.low
    if param.high is not None:
        out["max"] = param.high
    return out


def _info_dict(info: Any) -> dict[str, Any]:
    return {
        "name": info.name,
        "category": info.category,
        "suite": info.suite,
        "metric": info.metric,
        "description": info.description,
        "max_new_tokens": info.max_new_tokens,
        "params": {p.name: _param_dict(p) for p in info.params},
    }


def cmd_models(args: argparse.Namespace) -> int:
    from lctui.backends import builtin_models

    config = load_config(args.config)
    table = Table(title="Models (use the name with --model)")
    for column in ("name", "backend", "source", "path", "description"):
        table.add_column(column)
    for spec in config.models.values():
        source = f"config {config.path}"
        table.add_row(*map(cell, (spec.name, spec.backend, source, spec.path, spec.description)))
    for spec in builtin_models():
        kind = "built-in (reference)" if spec.reference else "built-in"
        table.add_row(*map(cell, (spec.name, spec.backend, kind, spec.path, spec.description)))
    SafeConsole().print(table)
    return 0


def cmd_query(args: argparse.Namespace) -> int:
    from lctui.store import open_store
    from lctui.store.sandbox import SqlSandbox

    db = resolve_db(args).path
    # Shared: the file is held only while the query runs, by the sandbox's connection.
    with open_store(db, read_only=True, shared=True) as store, SqlSandbox(store) as sandbox:
        result = sandbox.query(args.sql)
    columns = list(result.column_names)
    rows = result.to_pylist()
    if args.format == "json":
        print(json.dumps(rows, indent=2, default=str))
    elif args.format == "csv":
        writer = csv.DictWriter(sys.stdout, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        if sys.stdout.isatty():  # for a person: nothing in a value acts on the terminal
            rows = [{k: _shown(v) for k, v in row.items()} for row in rows]
        writer.writerows(rows)
    else:
        table = Table(caption=plural(len(rows), "row"))
        for column in columns:
            table.add_column(cell(column))
        for row in rows:
            table.add_row(*(cell(_short(row[c])) for c in columns))
        SafeConsole().print(table)
    return 0


def _shown(value: Any) -> Any:
    return plain(value) if isinstance(value, str) else value


def _short(value: Any, limit: int = 80) -> str:
    return "" if value is None else shorten(str(value), limit, one_line=True)


def cmd_show(args: argparse.Namespace) -> int:
    from lctui.store import open_store

    db = resolve_db(args).path
    store = open_store(db, read_only=True)
    try:
        record = store.get_generation(args.generation_id)
    finally:
        store.close()
    if record is None:
        raise UserInputError(f"no generation {args.generation_id!r} in {db}")
    _print_generation(record, full=args.full)
    return 0


def _print_generation(r: GenerationRecord, full: bool) -> None:
    from lctui.scoring.relation import score_relation

    console = SafeConsole()
    where = f"{data(r.task)} @ {r.length} tokens · example {data(r.example_id)}"
    console.rule(f"[bold]{data(r.model)}[/] · {where}")
    prompt = r.prompt or ""
    console.print(f"[bold]Prompt[/] ({r.prompt_tokens} tokens; depth {r.depth})")
    if r.prompt is None:
        console.print(f"[dim]({data(r.prompt_missing or 'not stored')})[/]")
    elif full or len(prompt) <= 4000:
        console.print(document(prompt), highlight=False)
    else:
        console.print(document(prompt[:1500]), highlight=False)
        console.print(f"[dim]… {len(prompt) - 3000} characters omitted (use --full) …[/]")
        console.print(document(prompt[-1500:]), highlight=False)
    for number, call in enumerate(r.calls[:-1], start=1):
        # A two-call answer (LongBench v2's chain of thought): the calls before the scored
        # one, with their own prompts where they are not the generation's.
        console.print(f"[bold]Call {number}: {data(call.role)}[/] ({call.output_tokens} tokens)")
        console.print(document(call.output) if call.output else "[dim](empty)[/]")
    if r.calls:
        last = r.calls[-1]
        console.print(f"[bold]Call {len(r.calls)}: {data(last.role)}[/], its prompt:")
        console.print(document(last.prompt) if last.prompt else "[dim](not stored)[/]")
    console.print(f"[bold]Output[/] ({data(r.status)}):")
    console.print(document(r.output) if r.output else "[dim](empty)[/]")
    if r.error:
        console.print(f"[red]Error:[/] {data(r.error)}")
    console.print(f"[bold]Gold:[/] {data(', '.join(r.gold))}")
    if r.result_status == "unscored":
        console.print(
            "[bold]Score[/] [magenta]not scored[/]: no score is stored for this output (it is "
            "left out of the means, never counted as 0); `lctui rescore` scores it."
        )
    for score in r.scores:
        value = "—" if score.value is None else f"{score.value:.3f}"
        console.print(
            f"[bold]Score[/] {data(score.metric)} = {value} ({data(score.status)}): "
            f"{data(score.explanation or '')}"
        )
        if score.value is not None:
            relation = score_relation(score.scorer or "", score.metric or "", len(r.gold))
            console.print(f"[dim]{data(relation)}[/]")
        table = Table("point", "capabilities", "weight", "earned", "explanation")
        for p in score.points:
            table.add_row(
                cell(p.name),
                cell(", ".join(p.capabilities)),
                f"{p.weight:g}",
                f"{p.earned:.2f}",
                cell(p.explanation),
            )
        console.print(table)
