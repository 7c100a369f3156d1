"""Drawing distinct random values (keys, variable names, made-up words) in linear time."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from lctui.core.errors import UserInputError

T = TypeVar("T")


def distinct(draw: Callable[[], T], count: int, what: str = "values") -> list[T]:
    """`count` distinct results of `draw()`, in the order first drawn.

    The same draws and order as checking a growing list, but membership is looked up
    in a set. Callers check beforehand that `count` distinct values exist (the tasks'
    `check_params`); the cap on draws turns a slip there into an error, never a hang.
    """
    out: list[T] = []
    seen: set[T] = set()
    budget = 50 * count + 10_000  # drawing all N of N values takes about N ln N draws
    while len(out) < count:
        budget -= 1
        if budget < 0:
            raise UserInputError(
                f"could not draw {count} distinct {what}: the task's parameters allow too few"
            )
        value = draw()
        if value not in seen:
            seen.add(value)
            out.append(value)
    return out
