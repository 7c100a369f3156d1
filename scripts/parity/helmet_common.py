"""What the HELMET parity scripts share: the snapshot's commit, the driver, the fixture file.
The LongBench ones (longbench_common.py) use the same with their own driver and repository.

Run by hand with lctui's python (PYTHONPATH=src), never in CI; see helmet_metrics.py and
helmet_jsonkv.py for the commands.
"""

from __future__ import annotations

import argparse
import datetime
import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DRIVER = HERE / "helmet_driver.py"
REPOSITORY = "princeton-nlp/HELMET"


def parity_parser(
    doc: str | None, fixture: str, python_help: str = "python of the originals' venv"
) -> argparse.ArgumentParser:
    """The arguments every HELMET parity script takes: the snapshot (--helmet, --commit
    when it is no git checkout), the python that runs HELMET's code, the fixture to write."""
    parser = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    parser.add_argument("--helmet", type=Path, required=True, help="HELMET snapshot")
    parser.add_argument("--python", required=True, help=python_help)
    parser.add_argument("--commit", help="HELMET's commit, when --helmet is no git checkout")
    parser.add_argument("--out", type=Path, default=ROOT / "tests/parity" / fixture)
    return parser


def snapshot_commit(snapshot: Path, given: str | None) -> str:
    """The commit of `snapshot`: its git HEAD, else `given` (a plain folder of files)."""
    found = subprocess.run(
        ["git", "-C", str(snapshot), "rev-parse", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    commit = found.stdout.strip() if found.returncode == 0 else (given or "")
    if given and commit != given:
        raise SystemExit(f"{snapshot} is at {commit}, not at the --commit given ({given})")
    if len(commit) != 40:
        raise SystemExit(f"{snapshot} is no git checkout: name its commit with --commit")
    return commit


def run_driver(
    python: str, snapshot: Path, mode: str, request: dict[str, Any], driver: Path = DRIVER
) -> Any:
    """The original's own code, run by `driver` (helmet_driver.py) under `python` (the
    originals' venv)."""
    done = subprocess.run(
        [python, str(driver), str(snapshot), mode],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{driver.name} {mode} failed:\n{done.stderr}")
    return json.loads(done.stdout)


def command_line() -> str:
    """The command that ran this script, as one would type it from the repository root."""
    script = Path(sys.argv[0]).resolve()
    try:
        shown = str(script.relative_to(ROOT))
    except ValueError:
        shown = str(script)
    return shlex.join(["python", shown, *sys.argv[1:]])


def write_fixture(
    path: Path,
    commit: str,
    notes: str,
    rows: list[dict[str, Any]],
    repository: str = REPOSITORY,
) -> None:
    header = {
        "repository": repository,
        "commit": commit,
        "command": command_line(),
        "generated": datetime.date.today().isoformat(),
        "notes": notes,
    }
    # ASCII escapes throughout: the loader splits lines with str.splitlines, which also
    # breaks at U+2028 or U+0085 inside a string that json.dumps would leave unescaped.
    lines = [json.dumps({"header": header})]
    lines += [json.dumps(row, sort_keys=True) for row in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(rows)} rows to {path}")
