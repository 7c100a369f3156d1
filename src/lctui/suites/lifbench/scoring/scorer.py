"""LIFEval's automated rubric-based scoring (scorer `lifeval`) for the LIFBench tasks.

Points, weights and capabilities come from `point_specs.LIFEVAL_TASKS`; each
scenario's rubric programs (list_scenario, multidoc_scenario, onedoc_scenario) turn one
output into (extracted answers, points), and this module makes the Score: the ARS is
the earned weight over R_t. Model output is never evaluated as code. An output is
`unparsed` when nothing could be extracted from it and it earned nothing (the
original's rules give some points to outputs with no answer in them, e.g. qa's
format point for a long reply).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from lctui.core.types import Example, RubricPoint, Score, ScoreStatus
from lctui.scoring.rubric import weighted_fraction
from lctui.suites.lifbench.scoring.list_scenario import list_points
from lctui.suites.lifbench.scoring.multidoc_scenario import multidoc_points
from lctui.suites.lifbench.scoring.onedoc_scenario import onedoc_points
from lctui.suites.lifbench.scoring.output_text import Awarded, rubric_point
from lctui.suites.lifbench.scoring.point_specs import LIFEVAL_TASKS, PointSpec

SCORER_NAME = "lifeval"

ScenarioPoints = Callable[
    [Example, str, Mapping[str, PointSpec]],
    tuple[tuple[str, ...], list[RubricPoint]] | Awarded,
]
_SCENARIOS: dict[str, ScenarioPoints] = {
    "list": list_points,
    "multidoc": multidoc_points,
    "onedoc": onedoc_points,
}


def score_lifeval(example: Example, output: str) -> Score:
    """The LIFEval rubric score (ARS) of one output of a LIFBench task."""
    meta = example.metadata
    task = meta.get("lifeval_task")
    if not isinstance(task, str) or task not in LIFEVAL_TASKS:
        raise ValueError(
            f"example {example.example_id} of task {example.task}: metadata 'lifeval_task' "
            f"is {task!r}; known: {', '.join(LIFEVAL_TASKS)}"
        )
    spec = LIFEVAL_TASKS[task]
    specs = {p.name: p for p in spec.points}
    result = _SCENARIOS[spec.scenario](example, output, specs)
    metric = str(meta.get("metric", "lifeval_ars"))
    extras = {"expression": meta.get("expression"), "variable": meta.get("variable")}
    if isinstance(result, Awarded):
        return _awarded_score(result, metric, extras)
    extracted, points = result
    if not extracted and not any(p.earned for p in points):
        points = [
            rubric_point(p, 0.0, "nothing could be extracted from the output") for p in spec.points
        ]
        return Score(
            scorer=SCORER_NAME,
            metric=metric,
            value=0.0,
            status=ScoreStatus.UNPARSED,
            extracted=(),
            explanation="no answer could be extracted from the output.",
            points=tuple(points),
            extras=extras,
        )
    value = weighted_fraction(points)
    return Score(
        scorer=SCORER_NAME,
        metric=metric,
        value=value,
        status=ScoreStatus.OK,
        extracted=extracted,
        explanation=_explain(value, points) + ".",
        points=tuple(points),
        extras=extras,
    )


def _explain(value: float, points: list[RubricPoint]) -> str:
    return f"ARS = {value:.2f}: " + "; ".join(
        f"{p.name} {p.earned * p.weight:g}/{p.weight:g} ({p.explanation})" for p in points
    )


def _awarded_score(result: Awarded, metric: str, extras: dict[str, object]) -> Score:
    """The Score of a rubric program that gives the response's total itself."""
    note = f" ({result.note})" if result.note else ""
    return Score(
        scorer=SCORER_NAME,
        metric=metric,
        value=result.total,
        status=ScoreStatus.UNPARSED if result.unparsed else ScoreStatus.OK,
        extracted=result.extracted,
        explanation=_explain(result.total, result.points) + note + ".",
        points=tuple(result.points),
        extras=extras,
    )
