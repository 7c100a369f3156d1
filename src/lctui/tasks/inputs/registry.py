"""Every input kind, found by name: one module per original, one line here each.

A new kind is a module of tasks/inputs/ with an `InputKind` subclass (tasks/inputs/base.py)
and its instance added to `_KINDS` below; `lctui run --inputs NAME:PATH`, `lctui data
inputs` and the docs' list then know it.
"""

from __future__ import annotations

from lctui.core.errors import UserInputError
from lctui.tasks.inputs.base import InputKind
from lctui.tasks.inputs.helmet import HelmetKind
from lctui.tasks.inputs.lifbench import LifbenchKind
from lctui.tasks.inputs.longbench import LongBenchKind
from lctui.tasks.inputs.prompts import PromptsKind
from lctui.tasks.inputs.ruler import RulerKind

_KINDS: tuple[InputKind, ...] = (
    RulerKind(),
    HelmetKind(),
    LifbenchKind(),
    LongBenchKind(),
    PromptsKind(),
)
INPUT_KINDS: dict[str, InputKind] = {kind.name: kind for kind in _KINDS}


def input_kind(name: str) -> InputKind:
    """The kind of that name; UserInputError naming the kinds."""
    kind = INPUT_KINDS.get(name)
    if kind is None:
        raise UserInputError(f"unknown input kind {name!r}: use one of {', '.join(INPUT_KINDS)}")
    return kind
