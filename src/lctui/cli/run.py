"""`lctui run` and `lctui demo`: evaluate models headless with live progress."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import signal
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from lctui.analysis.outdated import find_outdated
from lctui.backends import load_backend, resolve_model
from lctui.cli.data_option import bind_data, data_problems, data_source, runnable_tasks
from lctui.cli.db_options import common_options, resolve_db
from lctui.cli.judge import judge_options
from lctui.cli.output import print_whole, table_width, warn_outdated
from lctui.cli.progress import RichProgressSink
from lctui.cli.run_args import (
    DEFAULT_LENGTHS,
    DEFAULT_N,
    add_run_options,
    check_run_numbers,
    parse_overrides,
    parse_run_argv,
    run_argv,
    run_parser,
    without_detach,
)
from lctui.cli.run_inputs import check_inputs_args, inputs_lines, inputs_request
from lctui.cli.tables import Column, fit_table
from lctui.cli.terminal import SafeConsole, data
from lctui.core.config import Config
from lctui.core.errors import StoreError, UserInputError
from lctui.core.events import fan_out
from lctui.core.lengths import format_length, parse_lengths
from lctui.core.run_record import CANCELLED, FAILED, STARTING, WAITING, RunRecord
from lctui.core.types import ModelSpec
from lctui.engine import Engine, RunOutcome, RunRequest
from lctui.engine.detach import detached_identity, spawn_detached
from lctui.engine.plan import RunPlan, check_tokenizer_choice, plan_run
from lctui.engine.publish import EventPublisher
from lctui.engine.published_run import new_record, run_published
from lctui.scoring.versions import current_versions
from lctui.store import CellScore, Store, open_store
from lctui.store.claim import writer_active
from lctui.tasks import select_tasks

DEMO_ARGS = ["--model", "smollm2-135m", "--tasks", "niah_single_1,niah_multikey_1,vt"]
DEMO_ARGS += ["--lengths", "1k,2k", "--n", "2"]
WAIT_FOR_FILE_S = 0.5  # how often a detached run waiting for its file looks again


def add_parsers(sub: Any) -> None:
    run = sub.add_parser(
        "run",
        help="evaluate models on tasks at context lengths (headless)",
        description="Evaluate models on tasks at context lengths; results go to DuckDB. "
        "Runs resume: generations already stored are skipped.",
    )
    add_run_options(run)
    common_options(run)
    judge_options(run)
    run.set_defaults(handler=cmd_run)
    demo = sub.add_parser(
        "demo",
        help="the embedded SmolLM2 model on a small synthetic suite",
        description="Evaluate the embedded SmolLM2-135M on a small synthetic suite "
        f"({' '.join(DEMO_ARGS)}).",
    )
    common_options(demo)
    demo.set_defaults(handler=cmd_demo)


def cmd_demo(args: argparse.Namespace) -> int:
    argv = [*DEMO_ARGS]
    if args.db:
        argv += ["--db", args.db]
    if args.config:
        argv += ["--config", args.config]
    return cmd_run(run_parser().parse_args(argv))


def cmd_run(args: argparse.Namespace) -> int:
    console = SafeConsole(stderr=False)
    if args.detach:
        return _detach(args, console)
    check_run_numbers(args)
    check_inputs_args(args)
    resolved = resolve_db(args)
    config, db = resolved.config, resolved.path
    models = _models(args.model, config)
    argv = run_argv(args)
    judge = resolve_model(args.judge, config.models) if args.judge else None
    if args.judge_batch and not args.judge:
        raise UserInputError("--judge-batch needs --judge MODEL")
    left_out: list[str] = []
    notes: list[str] = []
    if args.inputs:
        request, inputs = inputs_request(args, models, argv, judge)
        tasks, lengths, notes = list(request.tasks), list(request.lengths), inputs_lines(inputs)
    else:
        tasks = bind_data(
            select_tasks(args.tasks, parse_overrides(args.set)), data_source(args, config)
        )
        tasks, left_out = runnable_tasks(tasks)
        lengths = parse_lengths(args.lengths or DEFAULT_LENGTHS)
        request = RunRequest(
            models=models,
            tasks=tasks,
            lengths=lengths,
            n=args.n if args.n is not None else DEFAULT_N,
            seed=args.seed,
            tokenizer=args.tokenizer,
            truncate=args.truncate,
            temperature=args.temperature,
            prompt_format=args.prompt_format,
            command={"argv": argv, "host": platform.node(), "pid": os.getpid()},
            judge=judge,
            judge_batch=args.judge_batch,
        )
    plan = plan_run(request)  # the one reading of the request: the engine runs this plan
    if plan.reference_tokenizer:
        from lctui.tasks.tokenizers import reference_tokenizer

        reference_tokenizer(plan.reference_tokenizer)  # its vocabulary, before any model
    publisher = run_publisher(argv, db)
    # Shared: the file is held only during each flush, so the TUI can browse it meanwhile.
    try:
        store = _open_run_store(db, publisher)
    except KeyboardInterrupt:
        raise
    except BaseException as err:
        publisher.set_status(FAILED, str(err))
        raise
    try:
        each = f"{request.n}" if not args.inputs else "their examples"
        console.print(
            f"[bold]lctui run[/]: {len(models)} model(s) x {len(tasks)} task(s) x "
            f"{len(lengths)} length(s) x {each} -> {data(db)}"
        )
        for line in [*notes, *tokenizer_notes(plan)]:
            console.print(data(line))
        for line in left_out:
            console.print(f"[yellow]{data(line)}[/]", markup=True, highlight=False)
        for problem in [] if args.inputs else data_problems(tasks):
            console.print(f"[yellow]{data(problem)}[/]", markup=True, highlight=False)
        for spec in models:
            if spec.reference:
                console.print(
                    f"[yellow]{data(spec.name)} is a reference pseudo-model: it answers "
                    "with the gold answer, to validate the scorers.[/]"
                )
            elif spec.backend == "vllm-server":
                console.print(
                    f"starting the vLLM server of {data(spec.name)} (minutes on a CPU; its log is "
                    "in the data folder's servers/ directory) ..."
                )
        outcome = _execute(plan, store, console, publisher)
        _report(outcome, request, store, console, db)
    except BaseException:
        # Rows the run could not write fail this close too; the run's error says so.
        with contextlib.suppress(StoreError):
            store.close()
        raise
    store.close()
    if outcome.cancelled:
        return 130
    return 1 if outcome.errors else 0


def _detach(args: argparse.Namespace, console: Console) -> int:
    """Start this run again, detached; say how to follow it."""
    record = start_detached(args)
    console.print(
        f"Run [bold]{record.run_id}[/] started in the background (pid {record.pid}); it goes "
        "on when this terminal closes.",
        highlight=False,
    )
    console.print(f"  output:  {data(record.log)}", highlight=False, soft_wrap=True)
    console.print(f"  watch:   lctui attach {record.run_id}", highlight=False)
    console.print("  list:    lctui runs", highlight=False)
    return 0


def start_detached(args: argparse.Namespace, *, queue: bool = False) -> RunRecord:
    """Check `lctui run`'s arguments as far as can be without loading anything, then
    start the same run again detached (engine/detach.py); its record.

    A file another lctui process writes is refused, unless `queue`: the run then waits
    for its turn (the TUI's runs left running when it quits start together).
    """
    check_run_numbers(args)
    resolved = resolve_db(args)
    db = resolved.path
    _models(args.model, resolved.config)
    check_tokenizer_choice(args.tokenizer)
    check_inputs_args(args)
    parse_lengths(args.lengths or DEFAULT_LENGTHS)
    if args.tasks:
        select_tasks(args.tasks, parse_overrides(args.set))  # a bad name fails here, not in a log
    if not queue and writer_active(db):
        raise UserInputError(
            f"{db} is being written by another lctui process; wait for it to end, or pass "
            "--db to use another file (`lctui runs` lists runs)"
        )
    return spawn_detached(without_detach(run_argv(args)), db)


def detach_argv(argv: Sequence[str], *, queue: bool = False) -> RunRecord:
    """`lctui ARGV` (a run command, as `request_argv` makes one) started detached."""
    return start_detached(parse_run_argv(argv), queue=queue)


def _open_run_store(db: Path, publisher: EventPublisher) -> Store:
    """The run's file, shared. A detached run waits while another lctui process writes
    it (its record says so) and starts when the file is free; SIGTERM while it waits
    cancels it. A run in a terminal is refused at once."""
    if publisher.record.log is None:
        return open_store(db, shared=True)

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        while True:
            try:
                store = open_store(db, shared=True)
            except StoreError:
                if not writer_active(db):
                    raise
            else:
                if publisher.record.status == WAITING:
                    publisher.set_status(STARTING, "")  # its turn: no longer waiting
                return store
            if publisher.record.status != WAITING:
                publisher.set_status(
                    WAITING, f"waits for {db}: another lctui process writes it; starts then"
                )
            time.sleep(WAIT_FOR_FILE_S)
    except KeyboardInterrupt:
        publisher.set_status(CANCELLED, f"cancelled while it waited for {db}")
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)


def tokenizer_notes(plan: RunPlan) -> list[str]:
    """What the examples count with by default (said, as it is not asked): the shared
    tokenizer of several models, or which tasks count with their paper's."""
    request = plan.request
    if request.tokenizer is not None or request.examples:
        return []
    if plan.counts_with is not None:
        return [
            f"{len(request.models)} models: every example counts with {plan.counts_with}, "
            "so they read the same examples and pair in `lctui compare` (--tokenizer model: "
            "each model builds its own examples with its own tokenizer, and nothing pairs "
            "across models)"
        ]
    by_tokenizer: dict[str, list[str]] = {}
    for task, counts_with in plan.tasks:
        if counts_with:
            by_tokenizer.setdefault(counts_with, []).append(task.name)
    return [
        f"{len(names)} task(s) ({', '.join(names[:3])}{', ...' if len(names) > 3 else ''}) "
        f"count with {name}, as their paper does (--tokenizer model: each model's own)"
        for name, names in by_tokenizer.items()
    ]


def _models(names: Sequence[str], config: Config) -> list[ModelSpec]:
    specs: list[ModelSpec] = []
    for name in names:
        spec = resolve_model(name, config.models)
        if spec.name in {s.name for s in specs}:
            raise UserInputError(f"model {spec.name} is given twice")
        specs.append(spec)
    return specs


def run_publisher(argv: Sequence[str], db: Path) -> EventPublisher:
    """The publisher of this run (engine/publish.py); a detached run's id and log come
    from `lctui run --detach`, which started it (engine/detach.py)."""
    run_id, log = detached_identity()
    if log is not None:
        # setsid left it no terminal to hang up; a stray SIGHUP must not end it either.
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
    return EventPublisher(new_record(argv, db, run_id, log))


def _execute(
    plan: RunPlan, store: Store, console: Console, publisher: EventPublisher
) -> RunOutcome:
    with RichProgressSink(console) as sink:
        engine = Engine(store, load_backend, fan_out(sink, publisher))
        if publisher.record.log is None:
            console.print(
                f"Run {publisher.record.run_id}: `lctui attach {publisher.record.run_id}` "
                "watches it from another terminal.",
                highlight=False,
            )

        def say(line: str) -> None:
            console.print(f"[yellow]{data(line)}[/]")

        try:
            return asyncio.run(run_published(engine, plan, publisher, say))
        except KeyboardInterrupt:
            # Interrupted before the engine could take over (while loading a model).
            return RunOutcome(None, 0, 0, 0, 0, True)


def _report(
    outcome: RunOutcome, request: RunRequest, store: Store, console: Console, db: Path
) -> None:
    if outcome.run_id is None and not outcome.cancelled:
        console.print(
            f"[green]Nothing to do:[/] all {outcome.planned} generations are already stored "
            f"in {data(db)}. Use another --seed or a larger --n for new examples."
        )
    elif outcome.cancelled:
        console.print(
            f"[yellow]Cancelled.[/] Kept {outcome.done} finished generation(s); run the same "
            "command again to finish the rest."
        )
    else:
        console.print(
            f"Run {outcome.run_id}: {outcome.done} done, {outcome.errors} error(s), "
            f"{outcome.skipped} already stored."
        )
    models, tasks = [m.name for m in request.models], [t.name for t in request.tasks]
    lengths = list(request.lengths)
    rows = store.cell_summary(models, tasks, lengths, versions=current_versions())
    if rows:
        print_whole(console, _score_table(rows, request, table_width(console)))
        print_missing_hint(console, rows, db)
        found = find_outdated(store, models=models, tasks=tasks, lengths=lengths)
        warn_outdated(found, db)
    if request.judge is not None and outcome.run_id is not None:
        from lctui.analysis.accounting import judge_stats

        for j in judge_stats(store, outcome.run_id):
            console.print(
                f"Judge {data(j.judge)}: {j.calls} new call(s), {j.unparsed} unparsed, "
                f"{j.prompt_tokens:,} prompt and {j.output_tokens:,} output tokens "
                "(details: lctui stats)."
            )


def _score_table(rows: list[CellScore], request: RunRequest, width: int | None) -> list[Table]:
    references = {m.name for m in request.models if m.reference}
    return score_table(rows, list(request.lengths), width, references)


def score_table(
    rows: list[CellScore], lengths: Sequence[int], width: int | None, references: Iterable[str] = ()
) -> list[Table]:
    """Model x task rows, one column per length, of `Store.cell_summary` cells: one
    table, or parts of it that fit `width` with the model and task whole in each."""
    columns = [
        Column("model", key=True),
        Column("task", key=True),
        *(Column(format_length(n), "right") for n in lengths),
    ]
    grid: dict[tuple[str, str], dict[int, CellScore]] = {}
    for row in rows:
        grid.setdefault((row.model, row.task), {})[row.length] = row
    reference = set(references) | {r.model for r in rows if r.reference}
    cells: list[list[str | Text]] = []
    for (model, task), found in sorted(grid.items()):
        label = f"{model} (reference)" if model in reference else model
        values = [_cell_text(found[n]) if n in found else "" for n in lengths]
        cells.append([label, task, *values])
    title = "Mean score (errors and missing scores excluded; n = scored examples)"
    return fit_table(title, columns, cells, width)


def print_missing_hint(console: Console, rows: list[CellScore], db: Path) -> None:
    """Say how to score the generations of `rows` that have no score, if any."""
    missing = sum(r.n_unscored for r in rows)
    if missing:
        console.print(
            f"[magenta]{missing} generation(s) have no score[/] (shown as not scored, left "
            f"out of the means, never counted as 0): `lctui rescore --db {data(db)}` scores "
            "them."
        )


def _cell_text(cell: CellScore) -> Text:
    mean = cell.mean_score
    text = Text(f"{mean:.2f}" if mean is not None else "-")
    text.append(f" n={cell.n_scored}")
    if cell.n_unparsed:
        text.append(f" {cell.n_unparsed} unparsed", "yellow")
    if cell.n_error:
        text.append(f" {cell.n_error} err", "red")
    if cell.n_unscored:
        text.append(f" {cell.n_unscored} not scored", "magenta")
    if cell.n_outdated:
        text.append(f" {cell.n_outdated} outdated", "yellow")
    return text
