"""What the LongBench v2 parity scripts share: their arguments, the driver that runs the
original's code, the fixture file (helmet_common's, with THUDM/LongBench's name).

Run by hand with lctui's python (PYTHONPATH=src), never in CI; see longbench_metrics.py
and longbench_structure.py for the commands. The original runs from a checkout of
THUDM/LongBench (its snapshot cloned into a scratch folder: pred.py reads its prompts and
configs by relative path) under a venv of its own that has tiktoken.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from helmet_common import HERE, ROOT, run_driver, snapshot_commit, write_fixture

REPOSITORY = "THUDM/LongBench"
DRIVER = HERE / "longbench_driver.py"


def parity_parser(doc: str | None, fixture: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    parser.add_argument("--longbench", type=Path, required=True, help="THUDM/LongBench checkout")
    parser.add_argument("--python", required=True, help="python of a venv with tiktoken")
    parser.add_argument("--commit", help="its commit, when --longbench is no git checkout")
    parser.add_argument("--out", type=Path, default=ROOT / "tests/parity" / fixture)
    return parser


def check_checkout(longbench: Path) -> None:
    for part in ("pred.py", "result.py", "prompts/0shot.txt", "config/model2maxlen.json"):
        if not (longbench / part).is_file():
            raise SystemExit(f"{longbench} is not a THUDM/LongBench checkout: {part} is missing")


def original(args: argparse.Namespace, mode: str, request: dict[str, Any]) -> Any:
    """The driver's answer for `mode`: the original's own code on `request`. The
    vocabularies are put in the offline tiktoken cache first (lctui's tokenizers do it
    and set TIKTOKEN_CACHE_DIR, which the driver's python inherits)."""
    from lctui.tasks.tokenizers import reference_tokenizer

    for name in ("o200k_base", "cl100k_base"):
        reference_tokenizer(name)
    return run_driver(args.python, args.longbench.resolve(), mode, request, driver=DRIVER)


def write(args: argparse.Namespace, notes: str, rows: list[dict[str, Any]]) -> None:
    commit = snapshot_commit(args.longbench, args.commit)
    write_fixture(args.out, commit, notes, rows, repository=REPOSITORY)
