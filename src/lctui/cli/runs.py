"""`lctui runs`: the runs going and the recent ones, from the data folder's runs/ records.

A run that is going is asked how far it is (the `Hello` its socket sends: progress, ETA,
tok/s, errors, paused or stalled); an ended one says what its record kept. A table at
a terminal, whole tab-separated values when piped, JSON with `--format json`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich import box
from rich.table import Table

from lctui.cli.tables import format_option, output_format, print_tsv
from lctui.cli.terminal import SafeConsole, data
from lctui.core.formatting import duration, per_second
from lctui.core.run_record import (
    CANCELLED,
    FAILED,
    FINISHED,
    KILLED,
    RUNNING,
    STARTING,
    WAITING,
    LiveProgress,
    RunRecord,
)
from lctui.core.text import shorten
from lctui.engine.attach import AttachedRun, ViewerRefused, live_runs

RECENT = 10  # ended runs listed without --all
ASK_TIMEOUT_S = 2.0
# A run whose record is this young and that does not answer yet is still starting
# (a detached run's Python imports lctui before it listens).
STARTING_GRACE_S = 60.0
_STYLE = {RUNNING: "green", FINISHED: "", CANCELLED: "yellow", FAILED: "red", KILLED: "red"}


def add_parsers(sub: Any) -> None:
    runs = sub.add_parser(
        "runs",
        help="list the runs going and the recent ones (status, progress, ETA, tok/s)",
        description="List the runs going (asked how far they are) and recent ones, from "
        "the records in the data folder's runs/. `lctui attach RUN` watches one.",
    )
    runs.add_argument("--all", action="store_true", help="every recorded run, not the last 10")
    runs.add_argument("--db", metavar="PATH", help="only the runs writing this DuckDB file")
    format_option(runs, "json")
    runs.set_defaults(handler=cmd_runs)


@dataclass(frozen=True)
class RunLine:
    """A run as listed: its record, and its live progress when it answered."""

    record: RunRecord
    progress: LiveProgress | None
    status: str
    note: str


def cmd_runs(args: argparse.Namespace) -> int:
    records = live_runs()
    if args.db:
        wanted = str(Path(args.db).expanduser().absolute())
        records = [r for r in records if r.db == wanted]
    going = [r for r in records if not r.ended]
    ended = [r for r in records if r.ended]
    if not args.all:
        ended = ended[:RECENT]
    lines = asyncio.run(_ask_all(going)) + [_ended_line(r) for r in ended]
    fmt = output_format(args)
    if fmt == "json":
        print(json.dumps([_json(line) for line in lines], indent=2))
    elif fmt == "tsv":
        print_tsv(_HEADER, [_cells(line) for line in lines])
    else:
        _print_table(lines)
    return 0


async def _ask_all(records: list[RunRecord]) -> list[RunLine]:
    return list(await asyncio.gather(*(_ask(r) for r in records)))


async def _ask(record: RunRecord) -> RunLine:
    """A run that is going, as it answers on its socket (or why it does not)."""
    if record.host != platform.node():  # a shared data folder: its socket is not here
        return RunLine(record, None, record.status, f"on {record.host}: list it there")
    try:
        attached = await AttachedRun.connect(record.socket, timeout=ASK_TIMEOUT_S)
    except ViewerRefused as err:  # it runs, and serves as many viewers as it will
        return RunLine(record, None, record.status, str(err))
    except (OSError, asyncio.TimeoutError) as err:
        if record.status == WAITING:  # for its database, which another process writes
            return RunLine(record, None, WAITING, record.message or "")
        if time.time() - record.started_at < STARTING_GRACE_S:
            return RunLine(record, None, STARTING, "starting")
        why = record.message or f"its socket does not answer ({err})"
        return RunLine(record, None, record.status, why)
    await attached.close()
    progress = attached.progress
    status = "paused" if progress.paused else attached.record.status
    note = progress.stalled or (f"last error: {progress.last_error}" if progress.last_error else "")
    return RunLine(attached.record, progress, status, note)


def _ended_line(record: RunRecord) -> RunLine:
    if record.status == KILLED:
        note = "its process is gone; the same command resumes it"
    else:
        note = record.message or ""
    return RunLine(record, None, record.status, note)


_HEADER = ["run", "status", "progress", "eta", "tok/s", "errors", "started", "db", "note"]


def _cells(line: RunLine) -> list[str]:
    record, progress = line.record, line.progress
    if progress is not None and progress.planned:
        done, to_do, errors = progress.finished, progress.to_do, progress.errors
        eta = duration(progress.eta_s)
        rate = per_second(progress.tokens_per_s)
    else:
        done, to_do, errors = record.done + record.errors, record.to_do, record.errors
        mean = record.tokens_per_s  # an ended run's mean
        eta, rate = "-", per_second(mean)
    share = f" ({100 * done / to_do:.0f}%)" if to_do else ""
    amount = f"{done}/{to_do}{share}" if to_do or done else "-"
    started = time.strftime("%m-%d %H:%M", time.localtime(record.started_at))
    return [
        record.run_id,
        line.status,
        amount,
        eta,
        rate,
        str(errors),
        started,
        record.db,
        line.note,
    ]


def _json(line: RunLine) -> dict[str, Any]:
    return {
        "record": line.record.as_dict(),
        "status": line.status,
        "progress": line.progress.as_dict() if line.progress is not None else None,
        "eta_s": line.progress.eta_s if line.progress is not None else None,
        "note": line.note,
    }


def _print_table(lines: list[RunLine]) -> None:
    console = SafeConsole()
    if not lines:
        console.print("No runs recorded. `lctui run --detach ...` starts one in the background.")
        return
    # Narrow: the run id says when it started, the database is named by its file (whole
    # paths: --format tsv or json), the short columns never wrap.
    table = Table(
        title="Runs (lctui attach RUN watches one)",
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
        pad_edge=False,
    )
    for name in ("run", "status", "done", "eta", "tok/s", "err", "db", "note"):
        right = name in {"done", "eta", "tok/s", "err"}
        wraps = name in {"db", "note"}
        table.add_column(
            name,
            justify="right" if right else "left",
            no_wrap=not wraps,
            overflow="fold" if wraps else "ellipsis",
            min_width=10 if name == "db" else None,
        )
    for line in lines:
        run, status, amount, eta, rate, errors, _, db, note = _cells(line)
        amount = amount.split(" (")[0]
        table.add_row(
            *(data(c) for c in (run, status, amount, eta, rate, errors, Path(db).name)),
            data(shorten(note, 120)),
            style=_STYLE.get(line.status, ""),
        )
    console.print(table)
