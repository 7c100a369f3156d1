"""LongBench v2's questions from the user's copy: `data.json` of the hub dataset
THUDM/LongBench-v2 (also published as zai-org/LongBench-v2), or the same rows as JSON
lines or Parquet.

Each row is one four-option question over a long context with the fields the original
reads: `_id, domain, sub_domain, difficulty (easy|hard), length (short|medium|long),
question, choice_A..choice_D, answer (A-D), context`. A row that lacks a field or holds
a value outside those sets is reported with its file and item number and left out; the
other rows are used. Rows keep the file's order, the order the original asks them in.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lctui.tasks.bounded_read import shown
from lctui.tasks.datasets import DataProblem, hub_path, read_records

HUB_REPO = "THUDM/LongBench-v2"
HUB_REPO_RENAMED = "zai-org/LongBench-v2"  # the same dataset under its organisation's new name
DATA_FILE = "data.json"
# Where a copy is looked for, in order: a --data folder's longbench_v2/data.json, then
# the hub repository (the folder's hub/ORG/NAME/data.json, else the hub cache) under
# either of its names.
RELEASE_PATHS: tuple[str, ...] = (
    f"longbench_v2/{DATA_FILE}",
    hub_path(HUB_REPO, DATA_FILE),
    hub_path(HUB_REPO_RENAMED, DATA_FILE),
)
DOWNLOAD = (
    f"hf download {HUB_REPO} {DATA_FILE} --repo-type dataset "
    f"(or into a --data folder: --local-dir DIR/hub/{HUB_REPO})"
)
LETTERS: tuple[str, ...] = ("A", "B", "C", "D")
DIFFICULTIES: tuple[str, ...] = ("easy", "hard")
BUCKETS: tuple[str, ...] = ("short", "medium", "long")
# The six domains of the paper, with their question counts in the release (503 in all).
DOMAINS: dict[str, int] = {
    "Single-Document QA": 175,
    "Multi-Document QA": 125,
    "Long In-context Learning": 81,
    "Long-dialogue History Understanding": 39,
    "Code Repository Understanding": 50,
    "Long Structured Data Understanding": 33,
}
_TEXT_FIELDS = ("_id", "domain", "sub_domain", "question", "context")


@dataclass(frozen=True)
class LongBenchRow:
    """One question of LongBench v2."""

    id: str
    domain: str
    sub_domain: str
    difficulty: str  # easy | hard
    bucket: str  # short | medium | long: the original's `length` field
    question: str
    choices: tuple[str, str, str, str]  # A, B, C, D
    answer: str  # A-D
    context: str
    line: int  # its item number in the file, for reports


@dataclass(frozen=True)
class LongBenchSet:
    """The rows of one file and the items that could not be used."""

    path: str
    rows: tuple[LongBenchRow, ...]
    problems: tuple[DataProblem, ...]


def parse_row(item: Mapping[str, Any]) -> LongBenchRow | str:
    """The row an item holds, or why it cannot be used."""
    for name in _TEXT_FIELDS:
        if not isinstance(item.get(name), str):
            return f"field {name!r} is missing or not text"
    choices = tuple(item.get(f"choice_{letter}") for letter in LETTERS)
    if not all(isinstance(choice, str) for choice in choices):
        return "choice_A to choice_D must all be text"
    answer, difficulty, bucket = item.get("answer"), item.get("difficulty"), item.get("length")
    if answer not in LETTERS:
        return f"answer {shown(answer)} is not one of A, B, C, D"
    if difficulty not in DIFFICULTIES:
        return f"difficulty {shown(difficulty)} is not easy or hard"
    if bucket not in BUCKETS:
        return f"length {shown(bucket)} is not short, medium or long"
    if not str(item["context"]).strip():
        return "the context is empty"
    return LongBenchRow(
        id=str(item["_id"]),
        domain=str(item["domain"]),
        sub_domain=str(item["sub_domain"]),
        difficulty=str(difficulty),
        bucket=str(bucket),
        question=str(item["question"]),
        choices=(str(choices[0]), str(choices[1]), str(choices[2]), str(choices[3])),
        answer=str(answer),
        context=str(item["context"]),
        line=0,
    )


_SETS: dict[tuple[str, int, int], LongBenchSet] = {}
_LOCK = threading.Lock()


def read_longbench(path: Path) -> LongBenchSet:
    """The usable rows of a LongBench v2 file in its order, and its problems; read once
    per path and modification time (the release's file is about 465 MB)."""
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    with _LOCK:
        if key in _SETS:
            return _SETS[key]
    records = read_records(path)
    rows: list[LongBenchRow] = []
    problems = list(records.problems)
    seen: set[str] = set()
    for line, item in zip(records.lines, records.rows, strict=True):
        parsed = parse_row(item)
        if isinstance(parsed, str):
            problems.append(DataProblem(records.path, line, parsed))
        elif parsed.id in seen:
            problems.append(DataProblem(records.path, line, f"_id {shown(parsed.id)} repeats"))
        else:
            seen.add(parsed.id)
            rows.append(LongBenchRow(**{**parsed.__dict__, "line": line}))
    loaded = LongBenchSet(records.path, tuple(rows), tuple(problems))
    with _LOCK:
        _SETS[key] = loaded
    return loaded
