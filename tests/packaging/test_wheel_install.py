"""The built wheel is the whole app: installed into a fresh virtual environment, away
from the source tree, it opens on the shipped sample runs with the shipped themes.

The wheel is built offline from a copy of the project (pip's build folders stay out of
the checkout) and installed without its dependencies; a `.pth` line lets the new
environment import those from the running one's site-packages, which is only appended
to `sys.path`, so its editable `lctui` is never seen.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Run by the new environment's Python: opens the app headless on an empty database,
# which imports the sample runs, and reports what it found.
_OPEN_APP = """
import asyncio, json, sys
from pathlib import Path

import lctui
from lctui.core.config import Config
from lctui.tui.app import LctuiApp
from lctui.tui.themes import THEME_ERRORS


async def main() -> None:
    app = LctuiApp(Path(sys.argv[1]), Config())
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        cur = app.store.cursor()
        models = [r[0] for r in cur.execute("SELECT DISTINCT model FROM results").fetchall()]
        count = cur.execute("SELECT count(*) FROM results").fetchone()[0]
        cur.close()
        report = {
            "lctui": lctui.__file__,
            "models": models,
            "results": count,
            "theme": app.theme,
            "themes": sorted(app.available_themes),
            "theme_errors": list(THEME_ERRORS),
            "screen": type(app.screen).__name__,
        }
    print("REPORT " + json.dumps(report))


asyncio.run(main())
"""


# The running environment's pip and setuptools: nothing is downloaded.
_PIP = [sys.executable, "-m", "pip"]


def _offline_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", **extra)
    return env


def _build_wheel(tmp: Path) -> Path:
    source = tmp / "source"
    shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    wheels = tmp / "wheels"
    build = ["wheel", "-q", "--no-deps", "--no-build-isolation", "--wheel-dir", str(wheels)]
    subprocess.run(
        [*_PIP, *build, str(source)],
        check=True,
        env=_offline_env(),
        capture_output=True,
    )
    (wheel,) = wheels.glob("lctui-*.whl")
    return wheel


def _fresh_venv(tmp: Path, wheel: Path) -> Path:
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
        env=_offline_env(),
    ).stdout.strip()
    # The running environment's packages, after the new one's own (a plain path line:
    # the .pth files there, the editable lctui's among them, are not processed).
    Path(site, "zz-shared-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [*_PIP, "--python", str(python), "install", "-q", "--no-deps", "--no-index", str(wheel)],
        check=True,
        env=_offline_env(),
        capture_output=True,
    )
    return python


@pytest.mark.slow
def test_the_installed_wheel_opens_on_the_sample_runs_with_its_themes(tmp_path: Path) -> None:
    try:
        wheel = _build_wheel(tmp_path)
    except subprocess.CalledProcessError as exc:
        pytest.fail(f"building the wheel failed:\n{exc.stderr}")
    python = _fresh_venv(tmp_path, wheel)
    script = tmp_path / "open_app.py"
    script.write_text(_OPEN_APP)
    home = tmp_path / "home"
    env = _offline_env(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        LCTUI_DATA_DIR=str(home / "data"),
    )
    env.pop("LCTUI_THEMES_DIR", None)
    done = subprocess.run(
        [str(python), str(script), str(tmp_path / "fresh.duckdb")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("REPORT ")]
    assert done.returncode == 0 and lines, f"the installed app failed:\n{done.stderr[-3000:]}"
    report = json.loads(lines[-1].removeprefix("REPORT "))
    assert Path(report["lctui"]).is_relative_to(tmp_path / "venv"), report["lctui"]
    assert report["results"] > 0, "no sample runs were imported from the installed wheel"
    assert report["models"] == ["smollm2-135m"]
    assert {"lctui-dark", "lctui-light", "lctui-256"} <= set(report["themes"]), report
    assert report["theme"].startswith("lctui-") and not report["theme_errors"]
    assert report["screen"] == "ResultsScreen"
