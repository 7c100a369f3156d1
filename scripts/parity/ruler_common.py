"""Shared glue of the RULER parity scripts: the snapshot's commit, its Python, fixture files.

Our own code, run by hand (never in CI). The original's code stays in the snapshot: the
scripts hand a small program of ours to the snapshot's Python, which imports the
original's modules from the snapshot path at run time.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shlex
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from lctui.tasks.registry import select_tasks

REPOSITORY = "NVIDIA/RULER"
# RULER's 11 synthetic tasks as lctui's registry names them, in RULER's order (its two
# QA tasks need data files: scripts/parity/ruler_qa_structure.py).
RULER_TASKS: tuple[str, ...] = tuple(
    task.name for task in select_tasks("ruler") if task.category == "synthetic"
)
NIAH: tuple[str, ...] = tuple(name for name in RULER_TASKS if name.startswith("niah_"))
ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "parity"


def structure_parser(
    doc: str, fixture: str, n_help: str, n_default: int
) -> argparse.ArgumentParser:
    """The arguments every RULER structure script takes: the snapshot, its Python and
    commit, examples per cell (`n_help`), RULER's seed, the fixture written, and a folder
    to keep RULER's generated files in."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--ruler", type=Path, required=True, help="the RULER snapshot folder")
    parser.add_argument("--python", required=True, help="a Python with RULER's dependencies")
    parser.add_argument("--commit", help="the snapshot's commit (default: its git HEAD)")
    parser.add_argument("--n", type=int, default=n_default, help=n_help)
    parser.add_argument("--seed", type=int, default=42, help="RULER's --random_seed")
    parser.add_argument("--out", type=Path, help=f"default: tests/parity/{fixture}")
    parser.add_argument(
        "--keep",
        type=Path,
        help="also copy RULER's generated files ({task}_{length}/validation.jsonl) here, "
        "e.g. for scripts/parity/ruler_effect.py",
    )
    return parser


def snapshot_commit(snapshot: Path, given: str | None) -> str:
    """The commit of the snapshot: `given`, else the git HEAD of the folder."""
    if given:
        return given
    found = subprocess.run(
        ["git", "-C", str(snapshot), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    if found.returncode != 0:
        sys.exit(f"{snapshot} is no git checkout: pass --commit with the snapshot's commit")
    return found.stdout.strip()


def check_snapshot(snapshot: Path) -> None:
    for part in ("scripts/eval/synthetic/constants.py", "scripts/data/synthetic/niah.py"):
        if not (snapshot / part).is_file():
            sys.exit(f"{snapshot} is not a RULER snapshot: {part} is missing")


def run_in_snapshot_python(python: str, program: str, *args: str) -> None:
    """Run `program` (our glue) with the snapshot's Python; stop on failure."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # lctui's src is ours
    result = subprocess.run([python, "-c", program, *args], capture_output=True, text=True, env=env)
    if result.returncode != 0:
        sys.exit(f"the glue program failed in {python}:\n{result.stderr[-4000:]}")
    if result.stderr.strip():
        print(result.stderr[-2000:], file=sys.stderr)


def command_line() -> str:
    """The command that ran this script, as typed from the repository root (with the
    PYTHONPATH it ran under, which makes lctui importable)."""
    script = Path(sys.argv[0]).resolve()
    try:
        shown = str(script.relative_to(ROOT))
    except ValueError:
        shown = str(script)
    path = os.environ.get("PYTHONPATH")
    env = [f"PYTHONPATH={path}"] if path else []
    return shlex.join([*env, "python", shown, *sys.argv[1:]])


def write_fixture(
    name: str, commit: str, notes: str, rows: Iterable[Mapping[str, Any]], out: Path | None = None
) -> Path:
    """tests/parity/NAME.jsonl: the header line, then one row per line."""
    path = out or FIXTURES / f"{name}.jsonl"
    header = {
        "header": {
            "repository": REPOSITORY,
            "commit": commit,
            "command": command_line(),
            "generated": datetime.date.today().isoformat(),
            "notes": notes,
        }
    }
    # ASCII only: raw U+0085 or U+2028 in a line would split it for str.splitlines().
    with path.open("w", encoding="utf-8") as f:
        f.write(json.dumps(header) + "\n")
        for row in rows:
            f.write(json.dumps(row, sort_keys=True) + "\n")
    return path


def tiktoken_cache() -> Path:
    """The folder where lctui keeps tiktoken's o200k_base vocabulary, so the snapshot's
    tiktoken reads it offline (point TIKTOKEN_CACHE_DIR at it)."""
    from lctui.tasks.tokenizers import reference_tokenizer

    reference_tokenizer("o200k_base")  # makes sure the vocabulary is in the cache
    return Path(os.environ["TIKTOKEN_CACHE_DIR"])
