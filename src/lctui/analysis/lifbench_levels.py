"""The per-level means behind LIFEval's stability (IFS), for drill-down views.

For each model, perspective (expression, variable, length) and task: the mean ARS at
every level of that perspective and the coefficient of variation of those means, as
BENCHMARKS.md section 3 defines it; the mean of a perspective's CVs over tasks is the
model's IFS for it (`lifbench_reports` computes the same number in one query). Built on
the lifeval points table of `analysis.lifbench`, so both read the same responses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from lctui.analysis.lifbench import _QUERIES, _RESPONSES, _fetch
from lctui.store.db import Store
from lctui.store.lifeval_views import PERSPECTIVES


def _level_sql(perspective: str) -> str:
    # Lengths are levels too: cast to text so the three perspectives share one shape.
    return f"""
        SELECT model, '{perspective}' AS perspective, task,
               CAST({perspective} AS VARCHAR) AS level, avg(ars) AS ars
        FROM resp GROUP BY model, task, {perspective}
    """


# One row per (model, perspective, task, level) with the level's mean ARS and the
# task's CV over its levels (a window over the same rows, as the `ifs` query computes it).
_LEVELS = f"""
    WITH resp AS ({_RESPONSES}),
    lvl AS ({" UNION ALL ".join(_level_sql(p) for p in PERSPECTIVES)})
    SELECT model, perspective, task, level, ars,
           stddev_samp(ars) OVER w / nullif(avg(ars) OVER w, 0) AS cv
    FROM lvl
    WINDOW w AS (PARTITION BY model, perspective, task)
    ORDER BY model, perspective, task, try_cast(level AS BIGINT) NULLS LAST, level
"""


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
    queries = {"levels": _LEVELS, "by_length": _QUERIES["length_ars"]}
    rows = _fetch(store, models, queries)
    out: dict[str, ModelStability] = {}
    last: dict[tuple[str, str], TaskLevels] = {}
    for model, perspective, task, level, ars, cv in rows["levels"]:
        stability = out.setdefault(model, ModelStability(model, {p: [] for p in PERSPECTIVES}))
        key = (model, perspective)
        if key not in last or last[key].task != task:
            last[key] = TaskLevels(task, cv=None if cv is None else float(cv))
            stability.perspectives[perspective].append(last[key])
        name = "?" if level is None else str(level)
        if perspective == "length" and level is not None:
            name = str(int(level) // 1024)
        last[key].means[name] = float(ars)
    for model, length, ars in rows["by_length"]:
        if model in out:
            out[model].ars_by_length[int(length) // 1024] = float(ars)
    return {m: out[m] for m in sorted(out)}
