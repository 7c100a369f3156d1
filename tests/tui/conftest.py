"""Shared TUI fixtures: a results database with deterministic content, and the app."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.screen import Screen

from helpers.longbench_runs import longbench_db as longbench_copy
from lctui.cli import main as cli_main
from lctui.core.config import Config
from lctui.tui.app import LctuiApp

_TEMPLATE: dict[str, Path] = {}


@pytest.fixture
def blank_home(monkeypatch: pytest.MonkeyPatch) -> None:
    """Start on a blank home screen, for modules whose subject is not the results screen
    (they use it with `pytestmark = pytest.mark.usefixtures("blank_home")`)."""
    monkeypatch.setattr(LctuiApp, "action_show_results", lambda self: self._switch(Screen()))


def _template_db(root: Path) -> Path:
    """Gold runs over three tasks at 1K and 2K, built once per session and copied. Built
    with a data folder of its own, so that its runs were made on another "machine"
    (core.paths.machine_id) for every test, the first included."""
    if "db" not in _TEMPLATE:
        db = root / "template.duckdb"
        args = ["run", "--model", "gold", "--tasks", "niah_single_1,vt,json_kv"]
        with pytest.MonkeyPatch.context() as env:
            env.setenv("LCTUI_DATA_DIR", str(root / "data"))
            assert cli_main([*args, "--lengths", "1k,2k", "--n", "2", "--db", str(db)]) == 0
        _TEMPLATE["db"] = db
    return _TEMPLATE["db"]


@pytest.fixture
def results_db(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = _template_db(tmp_path_factory.mktemp("template"))
    target = tmp_path / "results.duckdb"
    shutil.copy(source, target)
    return target


@pytest.fixture
def longbench_db(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the session's LongBench v2 runs (helpers/longbench_runs.py)."""
    return longbench_copy(tmp_path_factory.mktemp("longbench"), tmp_path / "longbench.duckdb")


@pytest.fixture
def make_app(results_db: Path, tmp_path: Path) -> Callable[..., LctuiApp]:
    """Build the app on a copy of the template database (no sample import)."""

    def factory(db: Path | None = None, **kwargs: Any) -> LctuiApp:
        options: dict[str, Any] = {"import_samples": False, **kwargs}
        return LctuiApp(db or results_db, Config(), **options)

    return factory
