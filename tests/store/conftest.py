"""Fixtures of the store tests: a fresh results file per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lctui.store import Store, open_store


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "results" / "lctui.duckdb"


@pytest.fixture
def store(db_path: Path) -> Iterator[Store]:
    opened = open_store(db_path)
    yield opened
    opened.close()
