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
import re
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.error
import urllib.request
import zipfile
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


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built once for the module's tests."""
    try:
        return _build_wheel(tmp_path_factory.mktemp("wheel"))
    except subprocess.CalledProcessError as exc:
        pytest.fail(f"building the wheel failed:\n{exc.stderr}")


@pytest.mark.slow
def test_the_installed_wheel_opens_on_the_sample_runs_with_its_themes(
    tmp_path: Path, wheel: Path
) -> None:
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


def _requirements(wheel: Path) -> list[str]:
    """The Requires-Dist lines of the wheel's metadata."""
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = archive.read(name).decode()
    return [
        line.partition(": ")[2]
        for line in metadata.splitlines()
        if line.startswith("Requires-Dist: ")
    ]


@pytest.mark.slow
def test_lctui_serve_is_in_the_plain_install_and_answers_from_the_wheel(
    tmp_path: Path, wheel: Path
) -> None:
    """README's first command installs lctui without a serve extra: textual-serve is one of
    its own requirements, and the installed `lctui serve` answers the page it prints."""
    required = _requirements(wheel)
    assert any(r.startswith("textual-serve") and "extra ==" not in r for r in required), required
    assert not any('extra == "serve"' in r for r in required), required
    python = _fresh_venv(tmp_path, wheel)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    home = tmp_path / "home"
    log = tmp_path / "serve.log"
    env = _offline_env(HOME=str(home), LCTUI_DATA_DIR=str(home / "data"))
    with log.open("w") as out:
        server = subprocess.Popen(
            [str(python), "-m", "lctui", "serve", "--port", str(port),
             "--db", str(tmp_path / "s.duckdb")],
            stdout=out, stderr=subprocess.STDOUT, cwd=tmp_path, env=env,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        found = None
        while found is None:
            assert server.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            found = re.search(rf"http://127\.0\.0\.1:{port}/\?token=\S+", log.read_text())
            time.sleep(0.2)
        while True:
            try:
                with urllib.request.urlopen(found.group(0), timeout=5) as reply:
                    assert reply.status == 200 and "lctui" in reply.read().decode()
                break
            except urllib.error.URLError:
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.2)
    finally:
        server.terminate()
        server.wait(timeout=10)
