"""`lctui stats`: tokens, throughput, time to first token and estimated cost per run."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.text import Text

from lctui.cli.db_options import common_options, resolve_db
from lctui.cli.tables import Column, fit_table, format_option, output_format, print_tsv
from lctui.cli.terminal import SafeConsole
from lctui.core.errors import UserInputError
from lctui.store.read.catalog import EXAMPLE_RUNS
from lctui.store.samples import run_label

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
    format_option(stats, "json")
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
    fmt = output_format(args)
    if fmt == "json":
        print(json.dumps([a.as_dict() for a in accounts], indent=2, default=str))
        return 0
    models = [[a.run_id, *row] for a in accounts for row in _model_rows(a)]
    judges = [[a.run_id, *row] for a in accounts for row in _judge_rows(a)]
    servers = [[a.run_id, *row] for a in accounts for row in _server_rows(_spread(a.servers))]
    if fmt == "tsv":
        # One block per kind of row, each with its header, blocks apart by an empty line.
        print_tsv(["run", *(c.name for c in MODEL_COLUMNS)], models)
        for header, rows in ((JUDGE_COLUMNS, judges), (SERVER_COLUMNS, servers)):
            if rows:
                print()
                print_tsv(["run", *(c.name for c in header)], rows)
        return 0
    console = SafeConsole()
    for account in accounts:
        cost = account.cost_usd
        title = f"Run {run_label(account.run_id)}" + (
            f": estimated cost ${cost:.4f}" if cost is not None else ""
        )
        for part in fit_table(title, MODEL_COLUMNS, _model_rows(account), console.width):
            console.print(part)
        if account.judges:
            title = f"Judge calls of run {run_label(account.run_id)} (cache hits are free)"
            for part in fit_table(title, JUDGE_COLUMNS, _judge_rows(account), console.width):
                console.print(part)
        spread = _spread(account.servers)
        if spread:
            title = f"Servers of run {run_label(account.run_id)} (attempts, retries included)"
            for part in fit_table(title, SERVER_COLUMNS, _server_rows(spread), console.width):
                console.print(part)
    return 0


def _right(*names: str) -> list[Column]:
    return [Column(name, justify="right") for name in names]


MODEL_COLUMNS = [
    Column("model", key=True),
    *_right("gens", "err", "prompt tok", "output tok", "out tok/s", "in tok/s"),
    *_right("TTFT p50", "p90", "p99", "cost $"),
]
JUDGE_COLUMNS = [
    Column("judge", key=True),
    *_right("calls", "unparsed", "prompt tok", "output tok", "cost $"),
]
SERVER_COLUMNS = [
    Column("model", key=True),
    Column("server", key=True),
    *_right("requests", "share", "ok", "err", "latency", "TTFT"),
    Column("last error", prose=True),
]


def _model_rows(account: Any) -> list[list[str | Text]]:
    rows: list[list[str | Text]] = []
    for m in account.models:
        rows.append([
            f"{m.model} (reference)" if m.reference else m.model,
            str(m.generations),
            Text(str(m.errors), "red") if m.errors else "0",
            f"{m.prompt_tokens:,}",
            f"{m.output_tokens:,}",
            _num(m.output_tok_s, 1),
            _num(m.prompt_tok_s, 0),
            _secs(m.ttft_p50_s),
            _secs(m.ttft_p90_s),
            _secs(m.ttft_p99_s),
            _num(m.cost_usd, 4),
        ])  # fmt: skip
    return rows


def _judge_rows(account: Any) -> list[list[str | Text]]:
    return [
        [j.judge, str(j.calls), str(j.unparsed), f"{j.prompt_tokens:,}",
         f"{j.output_tokens:,}", _num(j.cost_usd, 4)]
        for j in account.judges
    ]  # fmt: skip


def _spread(servers: Sequence[ServerStats]) -> list[ServerStats]:
    """The servers of the models served from more than one (JSON has every model's)."""
    counts = Counter(s.model for s in servers)
    return [s for s in servers if counts[s.model] > 1]


def _server_rows(servers: Sequence[ServerStats]) -> list[list[str | Text]]:
    """Where each model's requests went: one row per server (attempts, retries included)."""
    return [
        [s.model, s.url, str(s.requests), "-" if s.share is None else f"{s.share:.0%}",
         str(s.ok), Text(str(s.errors), "red") if s.errors else "0", _secs(s.latency_s),
         _secs(s.ttft_s), s.last_error or ""]
        for s in servers
    ]  # fmt: skip


def _num(value: float | None, digits: int) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def _secs(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}s"
