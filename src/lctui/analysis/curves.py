"""Length and depth views: score vs length per model and task, RULER's effective length,
and depth x length grids for needle tasks.

RULER's effective length is RULER's own measure: over RULER's tasks (its suite in the
task registry) against RULER's threshold. Other suites' tasks (HELMET's json_kv,
LIFBench, LongBench v2, ...) keep their own curves and never enter its mean.

Every mean follows store/read/'s per-cell rules (unparsed counts as 0; errors,
cancelled generations and missing scores are counted apart and left out).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from lctui.core.errors import UserInputError
from lctui.core.lengths import format_length
from lctui.store.db import Store
from lctui.store.read import cells as cell_reads
from lctui.tasks.registry import all_tasks

# RULER's threshold: Llama-2-7B's mean score at 4K, 85.6 on a 0-100 scale.
RULER_THRESHOLD = 0.856
RULER = "ruler"


@lru_cache(maxsize=1)
def ruler_tasks() -> frozenset[str]:
    """The names of RULER's tasks (the registry's suite `ruler`)."""
    return frozenset(t.name for t in all_tasks() if t.suite == RULER)


@dataclass(frozen=True)
class CurvePoint:
    length: int
    mean: float | None  # None when no generation of the cell has a score
    stderr: float | None
    n: int  # scored generations (ok + unparsed)
    n_error: int
    n_unscored: int = 0  # succeeded but have no score (missing, not 0)


@dataclass
class LengthCurve:
    """Score vs length of one model on one task, shortest length first."""

    model: str
    task: str
    reference: bool
    points: list[CurvePoint]


def length_curves(
    store: Store,
    *,
    models: Sequence[str] | None = None,
    tasks: Sequence[str] | None = None,
    run_id: str | None = None,
) -> list[LengthCurve]:
    """One curve per model and task, from the per-cell means of cell_reads.cell_scores."""
    return curves_of(cell_reads.cell_scores(store, run_id=run_id, models=models, tasks=tasks))


def curves_of(cells: Iterable[cell_reads.CellScore]) -> list[LengthCurve]:
    """The cells read already, as one curve per model and task (ordered by both)."""
    curves: dict[tuple[str, str], LengthCurve] = {}
    for cell in cells:
        curve = curves.setdefault(
            (cell.model, cell.task), LengthCurve(cell.model, cell.task, cell.reference, [])
        )
        curve.points.append(
            CurvePoint(
                cell.length,
                cell.mean_score,
                cell.stderr,
                cell.n_scored,
                cell.n_error,
                cell.n_unscored,
            )
        )
    for curve in curves.values():
        curve.points.sort(key=lambda p: p.length)
    return [curves[k] for k in sorted(curves)]


@dataclass(frozen=True)
class EffectiveLength:
    """RULER's effective length of one model (see `effective_length`)."""

    model: str
    threshold: float
    length: int | None
    means: dict[int, float]  # length -> mean over RULER's tasks with a score there
    reason: str | None = None
    tasks: tuple[str, ...] = ()  # RULER's tasks in those means (at some length)

    @property
    def tasks_shown(self) -> str:
        """'11/13': RULER's tasks in the means, of all of RULER's tasks."""
        return f"{len(self.tasks)}/{len(ruler_tasks())}"


def effective_length(means: Mapping[int, float], threshold: float = RULER_THRESHOLD) -> int | None:
    """The largest measured length L such that the mean score at every measured length
    l <= L is strictly above `threshold` (0-1 scale); None when the shortest fails.

    A dip at some length ends the effective length there, even if a longer length
    recovers: RULER counts a model effective only up to its first failure.
    """
    if not 0.0 <= threshold <= 1.0:
        raise UserInputError(
            f"threshold {threshold} is not on the 0-1 score scale; e.g. RULER's 85.6 is 0.856"
        )
    best = None
    for length in sorted(means):
        if not means[length] > threshold:
            break
        best = length
    return best


def effective_lengths(
    curves: Sequence[LengthCurve], threshold: float = RULER_THRESHOLD
) -> list[EffectiveLength]:
    """Per model, the mean over its RULER tasks at each length (RULER averages its
    tasks), then `effective_length` of those means. Curves of other suites' tasks and
    of reference pseudo-models are left out; a model without a RULER task has none."""
    ruler = ruler_tasks()
    per_length: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    tasks: dict[str, set[str]] = defaultdict(set)
    for curve in curves:
        if curve.reference or curve.task not in ruler:
            continue
        for point in curve.points:
            if point.mean is not None:
                per_length[curve.model][point.length].append(point.mean)
                tasks[curve.model].add(curve.task)
    out = []
    for model in sorted(per_length):
        means = {n: sum(v) / len(v) for n, v in sorted(per_length[model].items())}
        length = effective_length(means, threshold)
        reason = None
        if length is None:
            shortest = min(means)
            reason = (
                f"the mean at the shortest length, {format_length(shortest)}, is "
                f"{means[shortest]:.3f}, not above {threshold}"
            )
        out.append(
            EffectiveLength(model, threshold, length, means, reason, tuple(sorted(tasks[model])))
        )
    return out


@dataclass
class DepthGrid:
    """Mean score per needle-depth bucket (rows) and length (columns) of one model and
    task; `mean` is None and `n` 0 where a bucket has no scored generation."""

    model: str
    task: str
    depths: list[float]  # bucket centres in percent of the context
    lengths: list[int]
    mean: list[list[float | None]]
    n: list[list[int]]


def depth_grids(
    store: Store,
    *,
    models: Sequence[str] | None = None,
    tasks: Sequence[str] | None = None,
    bucket: float = cell_reads.DEPTH_BUCKET,
) -> list[DepthGrid]:
    """One grid per model and task whose examples record a needle depth.

    Depths are rounded to the nearest multiple of `bucket` percent (RULER's depths
    0, 10, ..., 100 each keep their own row with the default of 10).
    """
    if not 0 < bucket <= 100:
        raise UserInputError(f"depth bucket {bucket} must be in (0, 100] percent")
    rows = cell_reads.depth_cells(store, bucket=bucket, models=models, tasks=tasks)
    cells: dict[tuple[str, str], dict[tuple[float, int], tuple[float | None, int]]] = {}
    for c in rows:
        grid = cells.setdefault((c.model, c.task), {})
        mean = None if c.mean_score is None else float(c.mean_score)
        grid[c.depth_bucket, c.length] = (mean, c.n_scored)
    out = []
    for (model, task), grid in sorted(cells.items()):
        depths = sorted({d for d, _ in grid})
        lengths = sorted({n for _, n in grid})
        out.append(
            DepthGrid(
                model,
                task,
                depths,
                lengths,
                mean=[[grid.get((d, n), (None, 0))[0] for n in lengths] for d in depths],
                n=[[grid.get((d, n), (None, 0))[1] for n in lengths] for d in depths],
            )
        )
    return out
