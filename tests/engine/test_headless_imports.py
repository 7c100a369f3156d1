"""The headless layers load neither textual nor rich (docs/ARCHITECTURE.md: only tui/ imports
textual, only cli/ and tui/ import rich), so a script or a notebook that drives the
engine pays for no UI, even through a third-party package that would pull one in.

import-linter checks lctui's own import statements; this checks what Python actually
loads, in a fresh interpreter, since this test process has textual and rich loaded by
other tests already.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

UI_PACKAGES = ("textual", "rich")
HEADLESS = ("engine", "scoring", "store", "analysis", "tasks", "backends", "core")

# Imports the given modules (every module below them with --all), then prints which
# UI packages that loaded.
PROBE = """
import importlib, json, pkgutil, sys
names, walk, watched = sys.argv[1].split(","), sys.argv[2] == "all", sys.argv[3].split(",")
for name in names:
    package = importlib.import_module(name)
    if walk:
        for found in pkgutil.walk_packages(package.__path__, name + "."):
            importlib.import_module(found.name)
print(json.dumps(sorted({m.split(".")[0] for m in sys.modules} & set(watched))))
"""


def loaded_ui(modules: list[str], *, every_module: bool, watched: tuple[str, ...]) -> list[str]:
    """The packages of `watched` that importing `modules` loads, in a new interpreter."""
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            PROBE,
            ",".join(modules),
            "all" if every_module else "top",
            ",".join(watched),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    found: list[str] = json.loads(result.stdout.strip().splitlines()[-1])
    return found


@pytest.mark.parametrize("package", ["engine", "scoring", "store", "analysis"])
def test_importing_a_headless_package_loads_no_ui(package: str) -> None:
    assert loaded_ui([f"lctui.{package}"], every_module=False, watched=UI_PACKAGES) == []


def test_no_module_below_the_cli_loads_a_ui() -> None:
    modules = [f"lctui.{p}" for p in HEADLESS]
    assert loaded_ui(modules, every_module=True, watched=UI_PACKAGES) == []


def test_no_cli_module_loads_textual() -> None:
    assert loaded_ui(["lctui.cli"], every_module=True, watched=("textual",)) == []


def test_the_probe_sees_a_ui_package_when_one_is_loaded() -> None:
    """The check above is not vacuous: importing the TUI does show up."""
    assert loaded_ui(
        ["lctui.tui.widgets.heatmap"], every_module=False, watched=UI_PACKAGES
    ) == sorted(UI_PACKAGES)
