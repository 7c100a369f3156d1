"""Scores an older version of their scorer made: found against today's versions, and
the one line every command prints about them.

Scores are never silently mixed: a mean over scores made by two versions of a scorer's
rules is a mean of two different metrics. The CLI's analysis commands and the TUI
look for such scores among what they show and name their runs, with `lctui rescore
--run ID` as the fix (the re-scoring keeps the old rows, superseded).
"""

from __future__ import annotations

from collections.abc import Sequence

from lctui.scoring.versions import current_versions
from lctui.store.outdated import OutdatedScores, outdated_scores
from lctui.store.read.source import Source

SHOWN_RUNS = 3  # runs named in a line; more are counted


def find_outdated(
    src: Source,
    *,
    run_id: str | None = None,
    models: Sequence[str] | None = None,
    tasks: Sequence[str] | None = None,
    lengths: Sequence[int] | None = None,
    scorers: Sequence[str] | None = None,
    every_attempt: bool = False,
    with_reference: bool = True,
) -> list[OutdatedScores]:
    """Latest rule-based scores made by an older version of their scorer than this
    lctui's (store.outdated.outdated_scores, with the current versions)."""
    return outdated_scores(
        src,
        current_versions(),
        run_id=run_id,
        models=models,
        tasks=tasks,
        lengths=lengths,
        scorers=scorers,
        every_attempt=every_attempt,
        with_reference=with_reference,
    )


def outdated_runs(found: Sequence[OutdatedScores]) -> dict[str, int]:
    """Outdated scores per run, in run order."""
    per_run: dict[str, int] = {}
    for row in found:
        per_run[row.run_id] = per_run.get(row.run_id, 0) + row.count
    return dict(sorted(per_run.items()))


def versions_text(found: Sequence[OutdatedScores]) -> str:
    """`recall v0, now v1`, one per scorer and stored version (`; ` between them)."""
    seen = sorted({(r.scorer, r.version, r.current) for r in found})
    return "; ".join(f"{scorer} v{version}, now v{current}" for scorer, version, current in seen)


def rescore_fix(runs: Sequence[str], db: str | None = None) -> str:
    """The commands that re-score `runs`: one per run, or one for all when many."""
    where = f" --db {db}" if db else ""
    if len(runs) > SHOWN_RUNS:
        return f"`lctui rescore --outdated{where}` re-scores them (every run)"
    commands = ", ".join(f"`lctui rescore --run {run}{where}`" for run in runs)
    return f"{commands} re-score{'s' if len(runs) == 1 else ''} them"


def outdated_line(found: Sequence[OutdatedScores], db: str | None = None) -> str | None:
    """One line naming the runs whose scores an older scorer version made, and the fix;
    None when there are none."""
    if not found:
        return None
    per_run = outdated_runs(found)
    total = sum(per_run.values())
    runs = list(per_run)
    named = ", ".join(f"{per_run[run]} in run {run}" for run in runs[:SHOWN_RUNS])
    if len(runs) > SHOWN_RUNS:
        rest = sum(per_run[run] for run in runs[SHOWN_RUNS:])
        named += f" and {rest} in {len(runs) - SHOWN_RUNS} more run(s)"
    return (
        f"{total} score(s) were made by an older version of their scorer "
        f"({versions_text(found)}): {named}. They may differ from scores made now and are "
        f"not comparable with them; {rescore_fix(runs, db)}."
    )
