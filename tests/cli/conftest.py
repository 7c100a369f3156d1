"""Fixtures of the CLI tests that read a small gold run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helpers.unscored_runs import gold_run


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A gold run made once per test module (niah_single_1 and vt at 1K, 3 examples each)."""
    db = tmp_path_factory.mktemp("cli-gold") / "gold.duckdb"
    gold_run(db)
    return db


@pytest.fixture
def db(template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the module's gold run for one test, rich tables on one line each."""
    monkeypatch.setenv("COLUMNS", "200")
    copy = tmp_path / "gold.duckdb"
    shutil.copy(template, copy)
    return copy
