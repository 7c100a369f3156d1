"""Backend module placeholder: being written (issue 5)."""

from __future__ import annotations

from lctui.core.errors import BackendError
from lctui.core.protocols import Backend
from lctui.core.types import ModelSpec


def load_vllm(spec: ModelSpec) -> Backend:
    raise BackendError(f"model {spec.name!r}: backend {spec.backend!r} is not available yet")
