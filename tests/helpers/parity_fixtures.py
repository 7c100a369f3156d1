"""Parity fixtures: what the original harnesses computed, stored as tables the tests read.

A fixture is a JSON Lines file in tests/parity/. Its first line is a header,
`{"header": {"repository": "owner/name", "commit": "<40 hex>", "command": "...",
"generated": "YYYY-MM-DD", "notes": "..."}}`, naming the original whose own code
produced the numbers and the command (a script under scripts/parity/, run against a
local snapshot of the original; never in CI) that regenerates the file. Every other
line is one row: lctui's inputs (an example named by task, length, seed, index and
tokenizer, or given inline when small), an output written to reach a branch of the
original's rules, and the original's score (and, for rubrics, its point fractions).

The originals' code and prompt sentences are never stored here: only their numbers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FOLDER = Path(__file__).resolve().parents[1] / "parity"
_COMMIT = re.compile(r"^[0-9a-f]{40}$")


@dataclass(frozen=True)
class Fixture:
    """One fixture file: where its numbers come from, and its rows."""

    path: Path
    repository: str
    commit: str
    command: str
    rows: tuple[dict[str, Any], ...]


def load_fixture(name: str) -> Fixture:
    """tests/parity/NAME (with or without .jsonl), its header checked."""
    path = FOLDER / (name if name.endswith(".jsonl") else f"{name}.jsonl")
    # "\n" only: str.splitlines() also splits at U+2028 or U+0085 inside a row.
    lines = iter(path.read_text(encoding="utf-8").split("\n"))
    header = json.loads(next(lines)).get("header")
    if not isinstance(header, dict):
        raise ValueError(f"{path}: the first line must be {{'header': {{...}}}}")
    for key in ("repository", "commit", "command"):
        if not header.get(key):
            raise ValueError(f"{path}: the header names no {key}")
    if not _COMMIT.match(header["commit"]):
        raise ValueError(f"{path}: the header's commit is not a full hash")
    rows = tuple(json.loads(line) for line in lines if line.strip())
    if not rows:
        raise ValueError(f"{path}: no rows")
    return Fixture(path, header["repository"], header["commit"], header["command"], rows)


def fixture_names(prefix: str = "") -> Iterator[str]:
    """The fixture files of tests/parity whose names start with `prefix`."""
    for path in sorted(FOLDER.glob(f"{prefix}*.jsonl")):
        yield path.stem
