"""Originals' own input files run as they are (`lctui run --inputs KIND:PATH`).

tasks/inputs/base.py says what a kind is, tasks/inputs/reading.py what every kind shares,
tasks/inputs/registry.py lists the kinds.
"""

from lctui.tasks.inputs.base import InputFile, InputKind, InputRow, RowProblem
from lctui.tasks.inputs.reading import (
    InputFileRecord,
    InputsArg,
    InputSet,
    check_options,
    parse_inputs_arg,
    read_inputs,
)
from lctui.tasks.inputs.registry import INPUT_KINDS, input_kind

__all__ = [
    "INPUT_KINDS",
    "InputFile",
    "InputFileRecord",
    "InputKind",
    "InputRow",
    "InputSet",
    "InputsArg",
    "RowProblem",
    "check_options",
    "input_kind",
    "parse_inputs_arg",
    "read_inputs",
]
