"""`lctui run`'s arguments: its options, parsing them, and making them again from a
`RunRequest` (`request_argv`), so that the TUI starts a run in the background, or hands
its runs over when it quits, with the same command a user would type.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

from lctui.cli.data_option import data_option
from lctui.cli.db_options import common_options
from lctui.cli.judge import judge_options
from lctui.core.backend_settings import PROMPT_FORMAT
from lctui.core.bounds import check_n, check_seed, check_temperature
from lctui.core.errors import UserInputError
from lctui.core.lengths import format_length
from lctui.engine import RunRequest
from lctui.engine.plan import SHARED_TOKENIZER
from lctui.tasks import select_tasks

DEFAULT_LENGTHS = "4k"
DEFAULT_N = 10


def add_run_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--model",
        "-m",
        action="append",
        required=True,
        metavar="M",
        help="model name from lctui.toml, a built-in (smollm2-135m, gold) or a local "
        "checkpoint path; repeat for several",
    )
    p.add_argument(
        "--tasks",
        "-t",
        metavar="T1,T2|CATEGORY",
        help="task names, categories (synthetic), suites (ruler, helmet) or globs (niah_*); "
        "with --inputs: which of the inputs' tasks to run (default: all)",
    )
    p.add_argument(
        "--lengths",
        "-l",
        help=f"context lengths, e.g. 2k,4k,131072, or a preset: lifbench (3k..120k), "
        f"ruler (4k..128k), helmet (8k..128k); default {DEFAULT_LENGTHS}. With --inputs: "
        "which of the lengths their layout names to run, or the one length of inputs whose "
        "layout names none",
    )
    p.add_argument(
        "--n",
        "-n",
        type=int,
        help=f"examples per task x length cell (default {DEFAULT_N}); with --inputs: at most "
        "this many rows of each file (default: all)",
    )
    p.add_argument(
        "--inputs",
        action="append",
        default=[],
        metavar="KIND:PATH",
        help="run an original benchmark's own input files as they are, the same prompt text "
        "byte for byte, instead of lctui's examples (e.g. ruler:BENCHMARK_ROOT); "
        "`lctui data inputs` lists the kinds and what each reads; repeat for several",
    )
    p.add_argument(
        "--input-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an option of the inputs' kind, e.g. framing=user (`lctui data inputs` lists them)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the example generator")
    p.add_argument(
        "--tokenizer",
        metavar="NAME",
        help="count every example with a reference tokenizer (o200k_base, cl100k_base): all "
        "models then read the same examples; 'model': each model counts with its own (then "
        f"nothing pairs across models). Default: with several models, {SHARED_TOKENIZER} for all; "
        "with one, the tokenizer of the task's paper where it fixes one (LIFBench: "
        "o200k_base), else the model's own",
    )
    p.add_argument(
        "--truncate",
        action="store_true",
        help="cut the end of contexts that exceed a model's window instead of refusing",
    )
    p.add_argument(
        "--temperature",
        type=float,
        default=None,
        help="sampling temperature (default: each task's original: 0, LongBench v2 0.1)",
    )
    p.add_argument(
        "--prompt-format",
        choices=PROMPT_FORMAT.choices,
        default="auto",
        help="chat template or plain prompt for every model and task; auto (default): "
        "the model's prompt_format, else each task's (HELMET's recall, RAG, re-ranking "
        "and ICL tasks: plain), else the chat template when the model has one",
    )
    data_option(p)
    p.add_argument(
        "--detach",
        action="store_true",
        help="run in the background, in a process of its own that outlives this terminal "
        "(output to a log in the data folder's runs/); prints the run id and returns. "
        "`lctui attach RUN` watches it, `lctui runs` lists runs",
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="TASK.PARAM=VALUE",
        help="override a task parameter (JSON value), e.g. --set niah_single_2.depths=[0,50,100]",
    )


def run_parser() -> argparse.ArgumentParser:
    """`lctui run`'s options alone, for the demo to parse its own arguments with."""
    parser = argparse.ArgumentParser(prog="lctui run")
    add_run_options(parser)
    common_options(parser)
    judge_options(parser)
    return parser


def parse_overrides(items: Sequence[str]) -> dict[str, dict[str, Any]]:
    """`--set TASK.PARAM=VALUE` items by task; each value's type is checked by the task
    (Task.with_params), which names the parameter when it does not fit."""
    overrides: dict[str, dict[str, Any]] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        task, dot, param = name.partition(".")
        if not (sep and dot and task and param):
            raise UserInputError(f"--set {item!r}: write TASK.PARAM=VALUE, e.g. vt.num_hops=6")
        overrides.setdefault(task, {})[param] = parse_literal(raw)
    return overrides


def parse_literal(raw: str) -> Any:
    """A JSON or TOML literal (`6`, `[0, 50]`, `"x"`, `'x'`, `1_000`, `true`), else the text
    itself, so `haystack=noise` needs no quotes."""
    try:
        return json.loads(raw)
    except ValueError:
        pass
    try:
        data = tomllib.loads(f"value = {raw}")
    except (tomllib.TOMLDecodeError, ValueError):
        return raw
    return data["value"] if set(data) == {"value"} else raw


def check_run_numbers(args: argparse.Namespace) -> None:
    """The bounds of core.bounds, named as the options the user typed."""
    if args.n is not None:
        check_n(args.n, "--n")
    check_seed(args.seed, "--seed")
    if args.temperature is not None:
        check_temperature(args.temperature, "--temperature")


def parse_options(items: Sequence[str], flag: str = "--input-option") -> dict[str, Any]:
    """`KEY=VALUE` items (each value a JSON or TOML literal, else its text)."""
    options: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise UserInputError(f"{flag} {item!r}: write KEY=VALUE, e.g. framing=user")
        options[key.strip()] = parse_literal(raw)
    return options


def run_argv(args: argparse.Namespace) -> list[str]:
    """The `lctui` arguments of this run as the user typed them (`demo`: its own)."""
    argv = getattr(args, "argv", None)
    return list(argv) if argv is not None else sys.argv[1:]


def without_detach(argv: Sequence[str]) -> list[str]:
    """`argv` without `--detach` (or an abbreviation argparse would take for it)."""
    return [a for a in argv if not (len(a) >= 4 and "--detach".startswith(a))]


def parse_run_argv(argv: Sequence[str]) -> argparse.Namespace:
    """`lctui ARGV` parsed as `lctui run` parses it (ARGV starts with `run`), keeping
    ARGV as the run's command; UserInputError instead of argparse's exit."""
    if not argv or argv[0] != "run":
        raise UserInputError(f"not a `lctui run` command: {' '.join(argv)}")
    parser = run_parser()

    def refuse(message: str) -> NoReturn:
        raise UserInputError(f"lctui {' '.join(argv)}: {message}")

    parser.error = refuse  # type: ignore[method-assign]
    args = parser.parse_args(list(argv[1:]))
    args.argv = list(argv)
    return args


def request_argv(request: RunRequest, db: Path, config: Path | None = None) -> list[str]:
    """The `lctui` arguments that run `request` on `db` (with the models of `config`):
    the same models, tasks and their changed parameters, lengths, n, seed, tokenizer,
    truncation, temperature, prompt format and judge. A re-run of stored examples (the
    inspector's) names no tasks x lengths: UserInputError."""
    if request.examples or request.indices is not None or request.retry_stored:
        raise UserInputError(
            "a re-run of stored examples has no `lctui run` command; it runs in the TUI only"
        )
    argv = ["run", *(a for spec in request.models for a in ("--model", spec.name))]
    argv += ["--tasks", ",".join(task.name for task in request.tasks)]
    argv += ["--lengths", ",".join(format_length(n) for n in request.lengths)]
    argv += ["--n", str(request.n), "--seed", str(request.seed)]
    if request.tokenizer is not None:
        argv += ["--tokenizer", request.tokenizer]
    if request.truncate:
        argv.append("--truncate")
    if request.temperature is not None:
        argv += ["--temperature", repr(request.temperature)]
    if request.prompt_format != "auto":
        argv += ["--prompt-format", request.prompt_format]
    argv += [a for item in _changed_params(request) for a in ("--set", item)]
    if request.judge is not None:
        argv += ["--judge", request.judge.name]
    if request.judge_batch:
        argv.append("--judge-batch")
    argv += ["--db", str(db)]
    if config is not None:
        argv += ["--config", str(config)]
    return argv


def _changed_params(request: RunRequest) -> list[str]:
    """`TASK.PARAM=VALUE` for each parameter a task of `request` does not have at its
    default (as the registry makes the task)."""
    if not request.tasks:
        return []
    defaults = {t.name: t.params for t in select_tasks(",".join(t.name for t in request.tasks))}
    return [
        f"{task.name}.{name}={json.dumps(value)}"
        for task in request.tasks
        for name, value in task.params.items()
        if defaults.get(task.name, {}).get(name) != value
    ]
