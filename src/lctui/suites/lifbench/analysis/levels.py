"""The per-level means behind LIFEval's stability (IFS), for drill-down views.

For each model, perspective (expression, variable, length) and task: the mean ARS at
every level of that perspective and the coefficient of variation of those means, as
LIFBench's paper defines it; the mean of a perspective's CVs over tasks is the
model's IFS for it (`lifbench_reports` computes the same number in one query). Read by
store/read/lifeval.py from the same lifeval points as `metrics.py`, so both
read the same responses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from lctui.store.db import Store
from lctui.store.lifeval_views import PERSPECTIVES
from lctui.store.read.lifeval import lifeval_levels


@dataclass
class TaskLevels:
    """One task's mean ARS per level of a perspective, in level order, and their CV
    (None with fewer than two levels or a zero mean)."""

    task: str
    means: dict[str, float] = field(default_factory=dict)
    cv: float | None = None


@dataclass
class ModelStability:
    """A model's per-level means for every perspective and its ARS per length.

    Length levels are named like LIFBench's intervals, in units of 1024 tokens
    ("3", "6", ..., "120"), the keys of `ars_by_length` too.
    """

    model: str
    perspectives: dict[str, list[TaskLevels]] = field(default_factory=dict)
    ars_by_length: dict[int, float] = field(default_factory=dict)

    def levels(self, perspective: str) -> list[str]:
        """Every level of `perspective` that some task has, in order."""
        seen: dict[str, None] = {}
        for task in self.perspectives.get(perspective, []):
            seen.update(dict.fromkeys(task.means))
        return sorted(seen, key=_level_order)

    def ifs(self, perspective: str) -> float | None:
        """Mean CV over the tasks that have one: the report's IFS for `perspective`."""
        cvs = [t.cv for t in self.perspectives.get(perspective, []) if t.cv is not None]
        return sum(cvs) / len(cvs) if cvs else None


def _level_order(level: str) -> tuple[int, float, str]:
    try:
        return (0, float(level), level)
    except ValueError:
        return (1, 0.0, level)


def lifbench_stability(
    store: Store, models: Sequence[str] | None = None
) -> dict[str, ModelStability]:
    """model -> its per-level means, for every model with LIFEval scores (or those in
    `models`)."""
    rows = lifeval_levels(store, models)
    out: dict[str, ModelStability] = {}
    last: dict[tuple[str, str], TaskLevels] = {}
    for row in rows.levels:
        model, perspective, task, level = row.model, row.perspective, row.task, row.level
        stability = out.setdefault(model, ModelStability(model, {p: [] for p in PERSPECTIVES}))
        key = (model, perspective)
        if key not in last or last[key].task != task:
            last[key] = TaskLevels(task, cv=row.cv)
            stability.perspectives[perspective].append(last[key])
        name = "?" if level is None else level
        if perspective == "length" and level is not None:
            name = str(int(level) // 1024)
        last[key].means[name] = row.ars
    for n in rows.by_length:
        if n.model in out:
            out[n.model].ars_by_length[n.length // 1024] = n.ars
    return {m: out[m] for m in sorted(out)}
