"""`lctui stats`: tokens, throughput, time to first token and estimated cost per run."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from lctui.cli.db_options import common_options, resolve_db
from lctui.core.errors import UserInputError
from lctui.store.read.catalog import EXAMPLE_RUNS

if TYPE_CHECKING:
    from lctui.analysis.accounting import ServerStats


def add_parsers(sub: Any) -> None:
    stats = sub.add_parser(
        "stats",
        help="tokens, tok/s, time to first token and cost per run and model; servers' shares",
        description="Accounting per run and model: prompt and output tokens, throughput "
        "(tokens per second of wall time), time to first token percentiles, errors, and an "
        "estimated cost for models priced in lctui.toml's [prices] table; judge calls too; "
        "for a model served from several base URLs, each server's share of its requests, "
        "its errors and its latency.",
    )
    stats.add_argument("--run", metavar="RUN_ID", help="only this run (default: every run)")
    stats.add_argument("--format", choices=["table", "json"], default="table")
    common_options(stats)
    stats.set_defaults(handler=cmd_stats)


def cmd_stats(args: argparse.Namespace) -> int:
    from lctui.analysis.accounting import run_accounts
    from lctui.store import open_store

    resolved = resolve_db(args)
    config, db = resolved.config, resolved.path
    with open_store(db, read_only=True) as store:
        accounts = run_accounts(store, args.run, config.prices)
    if not accounts:
        what = f"run {args.run}" if args.run else "any run"
        raise UserInputError(
            f"{db} holds no generations of {what}; list the runs with "
            f'`lctui query "{EXAMPLE_RUNS}"`'
        )
    if args.format == "json":
        print(json.dumps([a.as_dict() for a in accounts], indent=2, default=str))
        return 0
    console = Console()
    for account in accounts:
        console.print(_models_table(account))
        if account.judges:
            console.print(_judges_table(account))
        spread = _spread(account.servers)
        if spread:
            console.print(_servers_table(account.run_id, spread))
    return 0


def _models_table(account: Any) -> Table:
    cost = account.cost_usd
    title = f"Run {account.run_id}" + (f": estimated cost ${cost:.4f}" if cost is not None else "")
    table = Table(title=title)
    for column in ("model", "gens", "err", "prompt tok", "output tok", "out tok/s", "in tok/s"):
        table.add_column(column, justify="left" if column == "model" else "right")
    for column in ("TTFT p50", "p90", "p99", "cost $"):
        table.add_column(column, justify="right")
    for m in account.models:
        label = f"{m.model} (reference)" if m.reference else m.model
        table.add_row(
            label,
            str(m.generations),
            f"[red]{m.errors}[/]" if m.errors else "0",
            f"{m.prompt_tokens:,}",
            f"{m.output_tokens:,}",
            _num(m.output_tok_s, 1),
            _num(m.prompt_tok_s, 0),
            _secs(m.ttft_p50_s),
            _secs(m.ttft_p90_s),
            _secs(m.ttft_p99_s),
            _num(m.cost_usd, 4),
        )
    return table


def _judges_table(account: Any) -> Table:
    table = Table(title=f"Judge calls of run {account.run_id} (cache hits are free)")
    for column in ("judge", "calls", "unparsed", "prompt tok", "output tok", "cost $"):
        table.add_column(column, justify="left" if column == "judge" else "right")
    for j in account.judges:
        table.add_row(
            j.judge,
            str(j.calls),
            str(j.unparsed),
            f"{j.prompt_tokens:,}",
            f"{j.output_tokens:,}",
            _num(j.cost_usd, 4),
        )
    return table


def _spread(servers: Sequence[ServerStats]) -> list[ServerStats]:
    """The servers of the models served from more than one (JSON has every model's)."""
    counts = Counter(s.model for s in servers)
    return [s for s in servers if counts[s.model] > 1]


def _servers_table(run_id: str, servers: Sequence[ServerStats]) -> Table:
    """Where each model's requests went: one row per server (attempts, retries included)."""
    table = Table(title=f"Servers of run {run_id} (attempts, retries included)")
    for column in ("model", "server", "requests", "share", "ok", "err", "latency", "TTFT"):
        table.add_column(column, justify="left" if column in ("model", "server") else "right")
    table.add_column("last error", overflow="fold")
    for s in servers:
        table.add_row(
            s.model,
            s.url,
            str(s.requests),
            "-" if s.share is None else f"{s.share:.0%}",
            str(s.ok),
            f"[red]{s.errors}[/]" if s.errors else "0",
            _secs(s.latency_s),
            _secs(s.ttft_s),
            s.last_error or "",
        )
    return table


def _num(value: float | None, digits: int) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def _secs(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}s"
