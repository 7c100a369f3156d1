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
# The defaults this process set (the user had not): `lift_default` may undo only these.
_APPLIED: set[str] = set()


def prepare_environment() -> None:
    """Set lctui's defaults; values the user already set win."""
    for name, value in _DEFAULTS.items():
        if name not in os.environ:
            os.environ[name] = value
            _APPLIED.add(name)


def lift_default(name: str) -> bool:
    """Remove lctui's default for `name` if this process set it (never a value the user
    set); True when it was removed. Libraries that read it at import keep what they read."""
    if name in _APPLIED and os.environ.get(name) == _DEFAULTS[name]:
        del os.environ[name]
        _APPLIED.discard(name)
        return True
    return False
