"""Shared test setup: an isolated data/cache dir per session so tests never touch ~."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lctui.core.runtime import prepare_environment

_SESSION_ROOT = Path(os.environ.get("LCTUI_TEST_ROOT", "/tmp/lctui-tests"))
# The model cache is kept between sessions (materialising SmolLM2 takes ~15 s).
os.environ.setdefault("LCTUI_CACHE_DIR", str(_SESSION_ROOT / "cache"))
prepare_environment()


@pytest.fixture(autouse=True)
def _isolated_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LCTUI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("LCTUI_DB", raising=False)
