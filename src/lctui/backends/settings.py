"""Reading a model's settings (a ModelSpec's params) against a backend's table of types.

Every backend declares the settings it takes as a table of ParamKind and reads them with
`read_params`; the registry that dispatches to the backends and the backends themselves
import it from here, so no backend needs the dispatcher.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeAlias

from lctui.core.errors import UserInputError
from lctui.core.types import ModelSpec

# How a setting is read: a converter (the value is passed through it, so int reads "8"
# as 8), or a tuple of types the value must already have (a bool never passes for a
# number unless bool is one of them).
ParamKind: TypeAlias = Callable[[Any], Any] | tuple[type, ...]


def read_params(spec: ModelSpec, allowed: Mapping[str, ParamKind]) -> dict[str, Any]:
    """A spec's settings, each read as `allowed` says; unknown or ill-typed ones refused."""
    unknown = sorted(set(spec.params) - set(allowed))
    if unknown:
        raise UserInputError(
            f"model {spec.name!r} has unknown setting(s) {', '.join(unknown)} for backend "
            f"{spec.backend!r}; the settings are {', '.join(sorted(allowed))}"
        )
    out: dict[str, Any] = {}
    for key, value in spec.params.items():
        kind = allowed[key]
        invalid = UserInputError(f"model {spec.name!r}: setting {key} = {value!r} is invalid")
        if isinstance(kind, tuple):
            if (isinstance(value, bool) and bool not in kind) or not isinstance(value, kind):
                raise invalid
            out[key] = value
            continue
        try:
            out[key] = kind(value)
        except (TypeError, ValueError) as exc:
            raise invalid from exc
    return out
