"""`lctui judge`: judge stored generations with an LLM judge, re-using cached calls."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from rich.console import Console

from lctui.cli.db_options import common_options, resolve_db
from lctui.cli.terminal import SafeConsole, data
from lctui.core.errors import UserInputError


def add_parsers(sub: Any) -> None:
    judge = sub.add_parser(
        "judge",
        help="judge stored generations with an LLM (examples that ask for a judge)",
        description="Judge the latest stored generations whose examples ask for a judge "
        "(metadata judge = qa | summ) and store the verdicts as extra scores (scorer "
        "judge). Calls already made by this judge on the same prompt are read from the "
        "database instead of being paid for again.",
    )
    judge_options(judge, required=True)
    judge.add_argument("--run", metavar="RUN_ID", help="only the generations of this run")
    common_options(judge)
    judge.set_defaults(handler=cmd_judge)


def judge_options(parser: argparse.ArgumentParser, *, required: bool = False) -> None:
    """--judge and --judge-batch, shared with `lctui run`."""
    parser.add_argument(
        "--judge",
        metavar="M",
        required=required,
        help="a model (name from lctui.toml or built-in) that judges QA and summaries",
    )
    parser.add_argument(
        "--judge-batch",
        action="store_true",
        help="send the judge's calls as one OpenAI Batch API job (openai judges; cheaper, slower)",
    )


def print_judge_summary(console: Console, summary: Any) -> None:
    line = (
        f"Judge: {summary.judged} judged ({summary.unparsed} unparsed), {summary.errors} "
        f"error(s); {summary.calls} call(s), {summary.cached} from the cache; "
        f"{summary.prompt_tokens:,} prompt and {summary.output_tokens:,} output tokens."
    )
    console.print(line)
    for message in summary.messages[:3]:
        console.print(f"[red]judge error:[/] {data(message)}")


def cmd_judge(args: argparse.Namespace) -> int:
    from lctui.backends import load_backend, resolve_model
    from lctui.engine.judging import Judging, judge_stored
    from lctui.store import open_store

    resolved = resolve_db(args)
    config, db = resolved.config, resolved.path
    spec = resolve_model(args.judge, config.models)
    console = SafeConsole()
    with open_store(db, shared=True) as store:
        judging = Judging(spec, load_backend, store, batch=args.judge_batch)
        found, summary = asyncio.run(judge_stored(judging, args.run))
    if not found:
        where = f"run {args.run}" if args.run else db
        raise UserInputError(
            f"{where} holds no successful generation whose example asks for a judge "
            "(metadata judge = qa | summ); nothing was judged"
        )
    print_judge_summary(console, summary)
    return 1 if summary.errors else 0
