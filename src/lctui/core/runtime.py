"""Process settings every entry point applies before heavy libraries load."""

from __future__ import annotations

import os

_DEFAULTS = {
    # A missing model file must fail at once, not hang on the (unreachable) hub.
    "HF_HUB_OFFLINE": "1",
    "TOKENIZERS_PARALLELISM": "false",
    # Busy-waiting OpenMP threads made CPU generation 10-20x slower as soon as anything
    # else ran (SmolLM2 on 2 cores); it must be set before torch is imported.
    "OMP_WAIT_POLICY": "PASSIVE",
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "TRANSFORMERS_VERBOSITY": "error",
}


def prepare_environment() -> None:
    """Set lctui's defaults; values the user already set win."""
    for name, value in _DEFAULTS.items():
        os.environ.setdefault(name, value)
