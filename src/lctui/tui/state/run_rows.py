"""What the Runs screen shows of each run: one row of short columns, and the lines under
the table that say the highlighted run in full (its models, tasks, lengths, errors).

Rows are plain strings made here, without Textual, from a `ManagedRun`'s state (a
detached run that no view attaches to: from what it last said, its `LiveProgress`, or
its record once over); the screen only puts them in its table.
"""

from __future__ import annotations

import platform
from dataclasses import dataclass

from lctui.core.formatting import duration, per_second
from lctui.core.lengths import format_length
from lctui.core.text import plural, shorten
from lctui.tui.state.detached_run import KILLED, WAITING, DetachedRun
from lctui.tui.state.run_manager import FAILED, LOADING, NOTHING_TO_DO, PAUSED, ManagedRun

COLUMNS = ("#", "run", "status", "done", "ETA", "tok/s", "errors")


@dataclass(frozen=True)
class RunRow:
    """One run as the table's columns read it (COLUMNS, in order)."""

    number: str
    run_id: str
    status: str
    done: str
    eta: str
    rate: str
    errors: str

    @property
    def cells(self) -> tuple[str, ...]:
        return (self.number, self.run_id, self.status, self.done, self.eta, self.rate, self.errors)


def run_row(run: ManagedRun, now: float) -> RunRow:
    if isinstance(run, DetachedRun) and not run.attached:
        return _unattached_row(run)
    state = run.state
    status = run.status
    done = f"{state.done + state.errors}/{state.to_do}" if state.planned else "-"
    going = run.running and state.planned and status != PAUSED
    eta = duration(state.eta_s(now)) if going else "-"
    rate = state.tokens_per_s(now)  # the run's mean once it has ended
    return RunRow(
        number=f"#{run.number}",
        run_id=run.run_id or "-",
        status=status,
        done=done,
        eta=eta,
        rate=per_second(rate),
        errors=str(state.errors) if state.planned else "-",
    )


def _unattached_row(run: DetachedRun) -> RunRow:
    """A detached run no view attaches to: its last hello, or its record once over."""
    status, progress, record = run.status, run.progress, run.record
    if run.running:
        planned = progress.planned
        finished, to_do, errors = progress.finished, progress.to_do, progress.errors
        eta = duration(progress.eta_s) if planned and status != PAUSED else "-"
        rate = progress.tokens_per_s
    else:
        planned = bool(record.to_do or record.done)
        finished, to_do, errors = record.done + record.errors, record.to_do, record.errors
        eta, rate = "-", record.tokens_per_s  # its mean, once it has ended
    return RunRow(
        number=f"#{run.number}",
        run_id=run.run_id,
        status=status,
        done=f"{finished}/{to_do}" if planned else "-",
        eta=eta,
        rate=per_second(rate),
        errors=str(errors) if planned else "-",
    )


def run_details(run: ManagedRun, now: float) -> list[str]:
    """The highlighted run in full: what it runs, then how it goes or how it ended."""
    if isinstance(run, DetachedRun):
        return _detached_details(run, now)
    state = run.state
    lines = [f"{run.name}: {', '.join(state.tasks) or 'its tasks'}"]
    what = []
    if state.lengths:
        what.append("at " + ", ".join(format_length(n) for n in state.lengths))
    request = run.request
    if request is not None:
        what.append(f"n {request.n}, seed {request.seed}")
    if state.skipped:
        what.append(f"{state.skipped} already stored")
    what.append(f"{run.status} {duration(run.elapsed_s(now))}")
    lines.append(" · ".join(what))
    lines.append(_last_words(run))
    return [line for line in lines if line]


def _last_words(run: ManagedRun) -> str:
    """The failure, a stalled store, the last error, or how the run ended."""
    state = run.state
    status = run.status
    if status == FAILED:
        return f"failed: {run.failure}"
    if state.store_stalled is not None and run.running:
        return state.store_stalled.describe()
    if status == LOADING:
        return "loading the models and planning the examples"
    if status == NOTHING_TO_DO and run.outcome is not None:
        return f"nothing to do: every example planned ({run.outcome.planned}) is already stored"
    ended = ""
    if not run.running:
        mean = state.mean_score
        ended = f"{state.done} scored, {plural(state.errors, 'error')}"
        ended += f", mean score {mean:.2f}" if mean is not None else ""
    if state.last_error:
        return (
            f"{ended}; last error: {state.last_error}"
            if ended
            else (f"last error: {state.last_error}")
        )
    return ended


def _detached_details(run: DetachedRun, now: float) -> list[str]:
    """A detached run: its command, its process and log, then its last words."""
    record = run.record
    where = f"its own process (pid {record.pid}"
    where += f" on {record.host})" if record.host != platform.node() else ")"
    lines = [
        f"{run.name}: {shorten(record.command, 200)}",
        f"in {where}, goes on without lctui · {run.status} {duration(run.elapsed_s(now))}"
        + (f" · log {record.log}" if record.log else ""),
    ]
    status = run.status
    if status == WAITING:
        lines.append(record.message or "waits for its database: another lctui process writes it")
    elif status == KILLED:
        lines.append(f"its process is gone without having ended it; `{record.command}` resumes it")
    elif run.failure:
        lines.append(f"failed: {run.failure}")
    elif run.note:
        lines.append(run.note)
    elif not run.running:
        lines.append(record.message or f"{record.done} scored, {plural(record.errors, 'error')}")
    elif run.attached:
        lines.append(_last_words(run))
    else:
        progress = run.progress
        lines.append(
            progress.stalled
            or (f"last error: {progress.last_error}" if progress.last_error else "")
        )
    lines.append(f"enter watches it live; `lctui attach {record.run_id}` from any terminal")
    return [line for line in lines if line]
