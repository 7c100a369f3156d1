"""A suite from outside lctui as an installed distribution: a module and the dist-info
folder whose entry point (group `lctui.suites`) names its `Suite`, in a folder that
goes first on the PYTHONPATH of the `lctui` processes a test starts."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def write_plugin(folder: Path, module: str, source: str, suite: str) -> Path:
    """`folder` holding `module`.py (`source`) and its distribution, whose entry point
    `suite` is `module:SUITE`."""
    (folder / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    name = module.replace("_", "-")
    info = folder / f"{module}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        f"[lctui.suites]\n{suite} = {module}:SUITE\n", encoding="utf-8"
    )
    return folder


def run_lctui(args: list[str], plugin: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """`lctui ARGS` with the plugin installed, its data folder under `tmp_path`."""
    env = {**os.environ, "COLUMNS": "100", "LCTUI_DATA_DIR": str(tmp_path / "data")}
    env["PYTHONPATH"] = os.pathsep.join([str(plugin), str(ROOT / "src")])
    return subprocess.run(
        [sys.executable, "-m", "lctui", *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=300,
    )
