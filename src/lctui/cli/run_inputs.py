"""`lctui run --inputs KIND:PATH`: a run of an original's own input files, as they are.

The files are read by their kind (tasks/inputs/); their examples become the run's work
(`RunRequest.examples`, run exactly as they are), their tasks and lengths its cells,
and every file read (kind, path, SHA-256, task, length, framing, rows) goes on the
run's command under core.types.RUN_INPUTS. What would change the prompts is refused:
task parameters, a seed, a tokenizer to count with (the original counted), a prompt
format other than the inputs' framing, truncation.
"""

from __future__ import annotations

import argparse
import os
import platform
from collections.abc import Sequence
from dataclasses import dataclass

from lctui.cli.run_args import parse_options
from lctui.core.errors import UserInputError
from lctui.core.lengths import parse_lengths
from lctui.core.types import RUN_INPUTS, Example, ModelSpec
from lctui.engine import RunRequest
from lctui.tasks import get_task, select_tasks
from lctui.tasks.inputs import InputFileRecord, check_options, parse_inputs_arg, read_inputs

# Problems said at the start of a run, at most; the rest are counted.
SHOWN_PROBLEMS = 20


@dataclass(frozen=True)
class RunInputs:
    """What `--inputs` gave: the examples, the files they came from, what was not used."""

    examples: tuple[Example, ...]
    files: tuple[InputFileRecord, ...]
    problems: tuple[str, ...]
    labels: tuple[str, ...]  # KIND:PATH as given


def check_inputs_args(args: argparse.Namespace) -> None:
    """Refuse, before reading any file, what `--inputs` cannot run with."""
    if not args.inputs:
        if args.input_option:
            raise UserInputError("--input-option needs --inputs KIND:PATH")
        if not args.tasks:
            raise UserInputError("give --tasks (or --inputs KIND:PATH to run an original's files)")
        return
    refused = [
        ("--set", bool(args.set)),
        ("--seed", args.seed != 0),
        ("--tokenizer", args.tokenizer is not None),
        ("--truncate", args.truncate),
    ]
    for flag, given in refused:
        if given:
            raise UserInputError(
                f"{flag} with --inputs: the originals' inputs run as they are, their prompts "
                "made and counted by the original"
            )
    options = parse_options(args.input_option)
    for text in args.inputs:
        arg = parse_inputs_arg(text)
        check_options(arg.kind, options)
        if not arg.path.exists():
            raise UserInputError(f"--inputs {text}: no such file or folder")


def read_run_inputs(args: argparse.Namespace) -> RunInputs:
    """Every `--inputs` read, its examples in the order given (one of each: the same
    row given twice runs once)."""
    check_inputs_args(args)
    lengths = parse_lengths(args.lengths) if args.lengths else None
    tasks = {t.name for t in select_tasks(args.tasks)} if args.tasks else None
    options = parse_options(args.input_option)
    examples: dict[str, Example] = {}
    files: list[InputFileRecord] = []
    problems: list[str] = []
    for text in args.inputs:
        found = read_inputs(
            parse_inputs_arg(text), options=options, lengths=lengths, n=args.n, tasks=tasks
        )
        for example in found.examples:
            examples.setdefault(example.example_id, example)
        files += found.files
        problems += found.problems
    return RunInputs(tuple(examples.values()), tuple(files), tuple(problems), tuple(args.inputs))


def inputs_request(
    args: argparse.Namespace,
    models: Sequence[ModelSpec],
    argv: Sequence[str],
    judge: ModelSpec | None,
) -> tuple[RunRequest, RunInputs]:
    """The run of the inputs' examples on `models`."""
    inputs = read_run_inputs(args)
    names = list(dict.fromkeys(e.task for e in inputs.examples))
    request = RunRequest(
        models=models,
        tasks=[get_task(name) for name in names],
        lengths=sorted({e.length for e in inputs.examples}),
        temperature=args.temperature,
        prompt_format=args.prompt_format,
        command={
            "argv": list(argv),
            "host": platform.node(),
            "pid": os.getpid(),
            RUN_INPUTS: [f.as_dict() for f in inputs.files],
        },
        judge=judge,
        judge_batch=args.judge_batch,
        examples=inputs.examples,
    )
    return request, inputs


def inputs_lines(inputs: RunInputs) -> list[str]:
    """What a run says of its inputs before it starts: where the examples come from,
    then the problems (the first SHOWN_PROBLEMS, and how many more)."""
    lines = [
        f"{len(inputs.examples)} example(s) from {len(inputs.files)} file(s) of "
        f"{', '.join(inputs.labels)}, sent as they are"
    ]
    lines += [f"not used: {p}" for p in inputs.problems[:SHOWN_PROBLEMS]]
    if len(inputs.problems) > SHOWN_PROBLEMS:
        lines.append(f"... and {len(inputs.problems) - SHOWN_PROBLEMS} more problem(s)")
    return lines
