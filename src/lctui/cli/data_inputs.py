"""`lctui data inputs [KIND:PATH]`: the originals' input files `lctui run --inputs` reads.

Without a path: every kind, what files it reads, where they come from, and its options.
With one: the files found there, each with its task, length, rows and digest, and every
row or file that cannot be used, read as a run would read them (nothing runs).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from rich.markup import escape
from rich.table import Table

from lctui.cli.run_args import parse_options
from lctui.cli.tables import format_option, output_format, print_tsv
from lctui.cli.terminal import SafeConsole, cell, data, say
from lctui.core.lengths import format_length, parse_lengths
from lctui.tasks.inputs import INPUT_KINDS, InputKind, parse_inputs_arg, read_inputs
from lctui.tasks.inputs.reading import option_specs

EXIT_PROBLEMS = 1


def add_inputs_parser(actions: Any) -> None:
    inputs = actions.add_parser(
        "inputs",
        help="the originals' input files `lctui run --inputs` runs as they are",
        description="Without KIND:PATH, list the kinds of original input files lctui runs "
        "as they are (`lctui run --inputs KIND:PATH`): what files, where they come from, how "
        "to make them, their options. With KIND:PATH, read them as a run would and list the "
        "files found (task, length, rows, SHA-256) and what cannot be used; exit status 1 "
        "when something cannot.",
    )
    inputs.add_argument("source", nargs="?", metavar="KIND:PATH", help="inputs to read")
    inputs.add_argument("--lengths", help="the one length of inputs whose layout names none")
    inputs.add_argument(
        "--input-option", action="append", default=[], metavar="KEY=VALUE", help="kind option"
    )
    format_option(inputs, "json")
    inputs.set_defaults(handler=cmd_inputs)


def cmd_inputs(args: argparse.Namespace) -> int:
    if args.source is None:
        return _list_kinds(output_format(args))
    arg = parse_inputs_arg(args.source)
    found = read_inputs(
        arg,
        options=parse_options(args.input_option),
        lengths=parse_lengths(args.lengths) if args.lengths else None,
    )
    header = ["task", "length", "rows", "framing", "sha256", "file"]
    rows = [
        [f.task, format_length(f.length), str(f.rows), f.framing, f.digest[:12], f.path]
        for f in found.files
    ]
    fmt = output_format(args)
    if fmt == "json":
        files = [f.as_dict() for f in found.files]
        print(json.dumps({"files": files, "problems": list(found.problems)}, indent=2))
    elif fmt == "tsv":
        print_tsv(header, rows)
    else:
        table = Table(title=f"{len(found.examples)} example(s) in {data(arg.label)}")
        for column in header:
            table.add_column(column, overflow="fold")
        for row in rows:
            table.add_row(*map(cell, row))
        SafeConsole().print(table)
    if fmt != "json":
        for problem in found.problems:
            say(f"not used: {problem}")
    return EXIT_PROBLEMS if found.problems else 0


def _list_kinds(fmt: str) -> int:
    kinds = list(INPUT_KINDS.values())
    if fmt == "json":
        print(json.dumps([_kind_json(k) for k in kinds], indent=2))
        return 0
    header = ["kind", "suite", "what", "files", "how to make them", "options"]
    rows = [[k.name, k.suite, k.title, k.files, k.origin, "\n".join(_options(k))] for k in kinds]
    if fmt == "tsv":
        print_tsv(header, rows)
        return 0
    table = Table(title="Originals' inputs (lctui run --inputs KIND:PATH)", show_lines=True)
    for column in header:
        table.add_column(column, overflow="fold", no_wrap=column in ("kind", "suite"))
    for row in rows:
        table.add_row(*(escape(value) for value in row))
    SafeConsole().print(table)
    return 0


def _options(kind: InputKind) -> list[str]:
    return [
        f"{s.name}={s.allowed() or '...'} (default {s.default}): {s.help}"
        for s in option_specs(kind)
    ]


def _kind_json(kind: InputKind) -> dict[str, Any]:
    return {
        "kind": kind.name,
        "suite": kind.suite,
        "title": kind.title,
        "files": kind.files,
        "origin": kind.origin,
        "options": [
            {"name": s.name, "default": s.default, "allowed": s.allowed(), "help": s.help}
            for s in option_specs(kind)
        ],
    }
