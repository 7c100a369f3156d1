"""Task parameters by declaration: each has a kind and bounds, checked when a user sets it.

A task declares its parameters once (`Task.param_specs`, built with the helpers
below); `Task.with_params` checks every override against its declaration, so a bad
`--set` value is refused with one line naming the parameter, before any example is
built. Bounds keep generation fast: no loop in a generator runs more than a
bounded number of times per example, whatever the user sets.
"""

from __future__ import annotations

import math
from typing import Any

from lctui.core.errors import UserInputError
from lctui.core.types import ParamSpec


def int_param(name: str, help: str, low: int, high: int) -> ParamSpec:
    return ParamSpec(name, None, help, kind="int", low=low, high=high)


def number_param(name: str, help: str, low: float, high: float) -> ParamSpec:
    return ParamSpec(name, None, help, kind="number", low=low, high=high)


def choice_param(name: str, help: str, *choices: str) -> ParamSpec:
    return ParamSpec(name, None, help, kind="choice", choices=choices)


def numbers_param(name: str, help: str, low: float, high: float) -> ParamSpec:
    return ParamSpec(name, None, help, kind="numbers", low=low, high=high)


def _is_number(value: Any) -> bool:
    # bool is an int in Python, but `true` is no number to a user.
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and (isinstance(value, int) or math.isfinite(value))
    )


def _within(spec: ParamSpec, value: float) -> bool:
    return (spec.low is None or value >= spec.low) and (spec.high is None or value <= spec.high)


def check_value(task: str, spec: ParamSpec, value: Any) -> Any:
    """`value` if it fits `spec`, else a UserInputError naming `task.param` and the value."""
    where = f"{task}.{spec.name}"
    if spec.kind == "int":
        if not isinstance(value, int) or isinstance(value, bool):
            raise UserInputError(f"{where} must be an integer, got {value!r}")
        if not _within(spec, value):
            raise UserInputError(f"{where} must be within {spec.allowed()}, got {value!r}")
    elif spec.kind == "number":
        if not _is_number(value):
            raise UserInputError(f"{where} must be a finite number, got {value!r}")
        if not _within(spec, value):
            raise UserInputError(f"{where} must be within {spec.allowed()}, got {value!r}")
    elif spec.kind == "choice":
        if value not in spec.choices:
            raise UserInputError(f"{where} must be one of {', '.join(spec.choices)}, got {value!r}")
    elif spec.kind == "numbers":
        if not isinstance(value, list) or not all(_is_number(v) for v in value):
            raise UserInputError(
                f"{where} must be a list of numbers such as [0, 50, 100], got {value!r}"
            )
        outside = [v for v in value if not _within(spec, v)]
        if outside:
            shown = ", ".join(map(str, outside))
            raise UserInputError(f"{where} must hold numbers within {_bounds(spec)}, got {shown}")
    return value


def _bounds(spec: ParamSpec) -> str:
    return ParamSpec("", None, "", kind="number", low=spec.low, high=spec.high).allowed()
