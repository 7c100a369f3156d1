"""Reading a model's settings (a ModelSpec's params) against its backend's settings table.

The tables live in `core/backend_settings.py`, where `core/config.py` validates the
config file against them too; every backend, and the Batch API judge, reads its
settings with `read_params`, so no backend declares a setting of its own and none
needs the dispatcher.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lctui.core.backend_settings import Setting, settings_of, vllm_arguments
from lctui.core.errors import UserInputError
from lctui.core.types import ModelSpec


def read_params(spec: ModelSpec, table: Mapping[str, Setting] | None = None) -> dict[str, Any]:
    """A spec's settings, each checked against `table` (default: its backend's table);
    unknown or ill-typed ones refused. Only the settings the spec gives are returned:
    a backend takes the declared default of the others."""
    allowed = settings_of(spec.backend) if table is None else table
    unknown = sorted(set(spec.params) - set(allowed))
    if unknown:
        raise UserInputError(
            f"model {spec.name!r} has unknown setting(s) {', '.join(unknown)} for backend "
            f"{spec.backend!r}; the settings are {', '.join(sorted(allowed))}"
        )
    for key, value in spec.params.items():
        kinds = allowed[key].kinds
        if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
            raise UserInputError(f"model {spec.name!r}: setting {key} = {value!r} is invalid")
    return dict(spec.params)


def vllm_params(spec: ModelSpec) -> dict[str, Any]:
    """The settings a `vllm` or `vllm-server` spec gives that are vLLM's own engine
    arguments (passed through under their names); a parallel size below 1 refused."""
    params = read_params(spec)
    passed = {k: params[k] for k in vllm_arguments(spec.backend) if k in params}
    for key, value in passed.items():
        if key.endswith("_parallel_size") and value < 1:
            raise UserInputError(f"model {spec.name!r}: {key} must be at least 1, not {value}")
    return passed
