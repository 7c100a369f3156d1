"""Fixtures for backend tests: a tiny random HF checkpoint and the real embedded SmolLM2."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers.tiny_hf import make_hf_tokenizer, make_tiny_checkpoint

# No hub on CI machines: a missing optional file must fail at once, not after a timeout.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
# As lctui.backends.hf_runtime does, in case a test imports torch before the backend does.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


@pytest.fixture(scope="session")
def make_tokenizer() -> Any:
    """`make_hf_tokenizer`, for tests (conftest modules are not imported by tests)."""
    return make_hf_tokenizer


@pytest.fixture(scope="session")
def tiny_checkpoints(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two checkpoints of one architecture that differ only in their weights."""
    root = tmp_path_factory.mktemp("tiny")
    return make_tiny_checkpoint(root / "a", seed=1), make_tiny_checkpoint(root / "b", seed=2)


@pytest.fixture(scope="session")
def smollm2() -> Iterator[Any]:
    """The real embedded model, loaded once per session (materialised on first ever use)."""
    from lctui.backends import load_backend, resolve_model

    backend = load_backend(resolve_model("smollm2-135m", {}))
    yield backend
    asyncio.run(backend.close())
