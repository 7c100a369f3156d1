"""Importing torch and transformers for the backends that run a checkpoint in-process
(hf, vllm) and for materialising the embedded model, with the extra that installs them
named when they are missing."""

from __future__ import annotations

import os
from typing import Any

from lctui.core.errors import MissingDependencyError


def import_hf() -> tuple[Any, Any]:
    """Import torch and transformers, or say which extra installs them."""
    # OpenMP threads that spin while they wait make CPU generation 10-20x slower as soon
    # as anything else runs (the engine scoring, another process): measured 3 s vs 40-57 s
    # for 32 tokens of SmolLM2 on 2 busy cores. It only counts before torch is first imported.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        import torch
    except ImportError as exc:
        raise MissingDependencyError("torch", "hf", "the hf backend") from exc
    try:
        import transformers
    except ImportError as exc:
        raise MissingDependencyError("transformers", "hf", "the hf backend") from exc
    return torch, transformers
