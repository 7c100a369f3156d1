"""Score stored generations (again) and write the scores through the store's writer.

What `lctui rescore` and the results screen's re-score key run: the same scoring as a
run (`scoring.score_example` on the stored example and output), in chunks that share
their examples, each chunk read on a short-lived cursor and flushed in one
transaction, so a store that holds its file only per query or flush can be read by
another process in between. A generation whose example is not stored, or whose
scorer fails, keeps the score it had (none, when it was unscored) and is counted.
The new score rows carry the current scorer versions and become the latest; the rows
they replace stay in `scores`, superseded (`latest` false), with their rubric points.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lctui.core.types import Example
from lctui.scoring import score_example
from lctui.scoring.versions import current_versions
from lctui.store import Store
from lctui.store.read.generations import load_example
from lctui.store.read.source import Source
from lctui.store.rescoring import ScoreTarget, Which, score_targets, stored_outputs

CHUNK = 256  # generations scored per read and flush

Progress = Callable[[int, int], None]  # (done, total)


@dataclass
class RescoreSummary:
    """What a re-scoring did: `scored` got a new score row; the others kept theirs."""

    total: int
    scored: int = 0
    no_example: int = 0  # the example is not stored, so the output cannot be scored
    failed: int = 0  # the scorer raised
    first_failure: str | None = None
    stopped: bool = False  # `should_stop` said so before every target was done

    @property
    def left(self) -> int:
        return self.total - self.scored - self.no_example - self.failed

    @property
    def complete(self) -> bool:
        """Every target got its score."""
        return self.scored == self.total

    def describe(self) -> str:
        """One line for the CLI and the TUI."""
        parts = [f"Scored {self.scored} of {self.total} generation(s)"]
        if self.no_example:
            parts.append(
                f"{self.no_example} have no stored example, so their output cannot be "
                "scored (re-run them)"
            )
        if self.failed:
            parts.append(f"{self.failed} failed to score ({self.first_failure})")
        if self.stopped:
            parts.append(f"stopped with {self.left} left")
        return "; ".join(parts) + "."


def find_targets(
    src: Source,
    which: Which = "stale",
    *,
    run_id: str | None = None,
    models: Sequence[str] | None = None,
    tasks: Sequence[str] | None = None,
    lengths: Sequence[int] | None = None,
) -> list[ScoreTarget]:
    """The stored generations to score: `which` of store.rescoring.WHICH, judged against
    the current scorer versions (the default, `stale`: missing or outdated scores)."""
    return score_targets(
        src,
        which,
        versions=current_versions(),
        run_id=run_id,
        models=models,
        tasks=tasks,
        lengths=lengths,
    )


def rescore_targets(
    store: Store,
    targets: Sequence[ScoreTarget],
    *,
    progress: Progress | None = None,
    should_stop: Callable[[], bool] | None = None,
    chunk: int = CHUNK,
) -> RescoreSummary:
    """Score each target's stored output with its example's scorer and store the score.

    Blocking (DuckDB reads and writes): call it from a worker thread in the TUI.
    """
    summary = RescoreSummary(total=len(targets))
    examples: dict[str, Example | None] = {}
    for start in range(0, len(targets), chunk):
        if should_stop is not None and should_stop():
            summary.stopped = True
            break
        part = targets[start : start + chunk]
        outputs, needed = _read_chunk(store, part, examples)
        examples = needed  # targets are ordered by example: keep only this chunk's
        for target in part:
            example = examples.get(target.example_id)
            if example is None:
                summary.no_example += 1
                continue
            try:
                score = score_example(example, outputs.get(target.generation_id, ""))
            except Exception as exc:  # a scorer bug must not stop the others
                summary.failed += 1
                summary.first_failure = summary.first_failure or f"{type(exc).__name__}: {exc}"
                continue
            store.add_score(target.generation_id, score)
            summary.scored += 1
        store.flush(force=True)
        if progress is not None:
            progress(start + len(part), len(targets))
    return summary


def _read_chunk(
    store: Store, part: Sequence[ScoreTarget], known: dict[str, Example | None]
) -> tuple[dict[str, str], dict[str, Example | None]]:
    """The outputs of `part` and the examples it needs (reusing those already read)."""
    cursor = store.cursor()
    try:
        outputs = stored_outputs(cursor, [t.generation_id for t in part])
        needed: dict[str, Example | None] = {}
        for target in part:
            eid = target.example_id
            if eid not in needed:
                needed[eid] = known[eid] if eid in known else load_example(cursor, eid)
    finally:
        cursor.close()
    return outputs, needed
