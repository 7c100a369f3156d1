"""What the results screen says about scores it cannot show as they should be: missing
ones (never drawn as 0) and ones an older version of their scorer made (never mixed
silently with today's), and what `s` does about them."""

from __future__ import annotations

from lctui.analysis.outdated import SHOWN_RUNS, outdated_runs, versions_text
from lctui.core.text import plural
from lctui.tui.state.heatmap_data import ResultsGrid


def missing_notice(missing: int) -> str:
    return (
        f"{plural(missing, 'result')} of this grid {'has' if missing == 1 else 'have'} no "
        "score: shown as missing (never as 0) and left out of the means; s scores them."
    )


def outdated_notice(grid: ResultsGrid) -> str:
    """Names the runs with outdated scores and the fix, in the TUI and on the shell."""
    runs = list(outdated_runs(grid.outdated))
    named = ", ".join(runs[:SHOWN_RUNS]) + (
        f" and {len(runs) - SHOWN_RUNS} more" if len(runs) > SHOWN_RUNS else ""
    )
    shell = f"lctui rescore --run {runs[0]}" if len(runs) == 1 else "lctui rescore --outdated"
    n = grid.n_outdated
    return (
        f"{plural(n, 'result')} of this grid {'was' if n == 1 else 'were'} scored by an "
        f"older version of the scorer ({versions_text(grid.outdated)}), in "
        f"{'run' if len(runs) == 1 else 'runs'} {named}: marked 'old', not comparable with "
        f"scores made now. s re-scores them (or `{shell}`)."
    )


def rescore_label(grid: ResultsGrid | None) -> str:
    """What `s` is about to do, for the status line and the notifications' title."""
    missing = grid is not None and grid.n_unscored > 0
    outdated = grid is not None and grid.n_outdated > 0
    if missing and outdated:
        return "Scoring the missing and outdated scores"
    if outdated:
        return "Re-scoring the outdated scores"
    return "Scoring the missing scores"
