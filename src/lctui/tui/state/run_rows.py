"""What the Runs screen shows of each run: one row of short columns, and the lines under
the table that say the highlighted run in full (its models, tasks, lengths, errors).

Rows are plain strings made here, without Textual, from a `ManagedRun`'s state; the
screen only puts them in its table.
"""

from __future__ import annotations

from dataclasses import dataclass

from lctui.core.formatting import duration
from lctui.core.lengths import format_length
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
    state = run.state
    status = run.status
    done = f"{state.done + state.errors}/{state.to_do}" if state.planned else "-"
    going = run.running and state.planned and status != PAUSED
    eta = duration(state.eta_s(now)) if going else "-"
    rate = state.tokens_per_s(now) if run.running else state.average_tokens_per_s
    return RunRow(
        number=f"#{run.number}",
        run_id=state.run_id or "-",
        status=status,
        done=done,
        eta=eta,
        rate=f"{rate:.0f}" if rate is not None else "-",
        errors=str(state.errors) if state.planned else "-",
    )


def run_details(run: ManagedRun, now: float) -> list[str]:
    """The highlighted run in full: what it runs, then how it goes or how it ended."""
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
        return f"nothing to do: all {run.outcome.planned} examples are already stored"
    ended = ""
    if not run.running:
        mean = state.mean_score
        ended = f"{state.done} scored, {state.errors} error(s)"
        ended += f", mean score {mean:.2f}" if mean is not None else ""
    if state.last_error:
        return (
            f"{ended}; last error: {state.last_error}"
            if ended
            else (f"last error: {state.last_error}")
        )
    return ended
