"""The rows of HELMET's summarization datasets and where they are found.

Facts from HELMET's loader and judge (princeton-nlp/HELMET 4526dfb, data.py,
scripts/eval_gpt4_summ.py):
- InfiniteBench Sum: split `longbook_sum_eng` of the hub dataset
  xinrongzhang2022/infinitebench (`longbook_sum_eng.jsonl`: `id`, `context` the book,
  `answer` a list holding the reference summary); the judge's key points are in HELMET's
  data release, `infbench/longbook_sum_eng_keypoints.jsonl` (`id`, `keypoints`), and
  its precision call reads the reference summary `answer[0]`.
- Multi-LexSum: config v20230518 of the hub dataset allenai/multi_lexsum (the hub's
  Parquet conversion, revision refs/convert/parquet, `v20230518/{split}/NNNN.parquet`:
  `id`, `sources` the case's documents, `summary/long`, `summary/short`); rows without a
  short summary are dropped in every split; test rows come from the validation split,
  demonstrations from the train split; the document is the sources joined by blank
  lines, the reference (ROUGE) the short summary; the judge's key points are the short
  summary's (`multi_lexsum/multi_lexsum_val.jsonl` in HELMET's release: `id`,
  `summary/short_keypoints`) and its precision call reads the long summary.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lctui.tasks.datasets import (
    HUB_CACHE_ONLY,
    DataProblem,
    DataSource,
    JsonLines,
    hub_path,
    read_records,
)

INFBENCH_REPO = "xinrongzhang2022/infinitebench"
INFBENCH_FILE = hub_path(INFBENCH_REPO, "longbook_sum_eng.jsonl")
INFBENCH_KEY_POINTS = "infbench/longbook_sum_eng_keypoints.jsonl"
LEXSUM_REPO = "allenai/multi_lexsum"
LEXSUM_REVISION = "refs/convert/parquet"  # the hub's Parquet conversion of the script dataset
LEXSUM_CONFIG = "v20230518"
LEXSUM_KEY_POINTS = "multi_lexsum/multi_lexsum_val.jsonl"
_MAX_SHARDS = 100


@dataclass(frozen=True)
class SummRow:
    """One document to summarise, its references and where it was read."""

    key: str
    document: str
    answers: tuple[str, ...]  # the reference summaries ROUGE compares with
    expert: str  # the summary the judge's precision call reads
    path: str
    line: int
    parts: tuple[int, ...] = ()  # lengths of the documents joined into `document`


def lexsum_shard(split: str, number: int) -> str:
    return f"{LEXSUM_CONFIG}/{split}/{number:04d}.parquet"


def locate_lexsum(data: DataSource, split: str) -> list[Path]:
    """The Parquet shards of a Multi-LexSum split: all under `hub/allenai/multi_lexsum/`
    of a local folder when its first shard is there, else all from the hub (cache) at
    the Parquet conversion's revision; one source per split, never a mix."""
    local = data.folder / "hub" / LEXSUM_REPO if data.folder is not None else None
    found: list[Path] = []
    for number in range(_MAX_SHARDS):
        shard = lexsum_shard(split, number)
        if local is not None and (local / lexsum_shard(split, 0)).is_file():
            path: Path | None = local / shard if (local / shard).is_file() else None
        else:
            path = HUB_CACHE_ONLY.locate(hub_path(LEXSUM_REPO, shard, LEXSUM_REVISION))
        if path is None:
            break
        found.append(path)
    return found


def _text(row: Mapping[str, Any], field: str) -> str | None:
    value = row.get(field)
    return value if isinstance(value, str) and value.strip() else None


def infbench_rows(loaded: JsonLines) -> tuple[list[SummRow], list[DataProblem]]:
    rows: list[SummRow] = []
    problems: list[DataProblem] = []
    for row, line in zip(loaded.rows, loaded.lines, strict=True):
        context, answers = _text(row, "context"), row.get("answer")
        if row.get("id") is None:
            problems.append(DataProblem(loaded.path, line, "no 'id'"))
        elif context is None:
            problems.append(DataProblem(loaded.path, line, "no 'context' text (the book)"))
        elif isinstance(answers, str) and answers.strip():
            rows.append(SummRow(str(row["id"]), context, (answers,), answers, loaded.path, line))
        elif (
            isinstance(answers, list)
            and answers
            and all(isinstance(a, str) for a in answers)
            and answers[0].strip()
        ):
            ref = tuple(answers)
            rows.append(SummRow(str(row["id"]), context, ref, ref[0], loaded.path, line))
        else:
            problems.append(
                DataProblem(loaded.path, line, "'answer' is not a list of summary strings")
            )
    return rows, problems


def lexsum_rows(loaded: JsonLines) -> tuple[list[SummRow], list[DataProblem]]:
    """Cases with a short summary (HELMET drops the others); a case without an id or
    with sources that are not strings is reported."""
    rows: list[SummRow] = []
    problems: list[DataProblem] = []
    for row, line in zip(loaded.rows, loaded.lines, strict=True):
        sources = row.get("sources")
        short = _text(row, "summary/short")
        if row.get("id") is None:
            problems.append(DataProblem(loaded.path, line, "no 'id'"))
        elif not isinstance(sources, list) or not all(isinstance(s, str) for s in sources):
            problems.append(DataProblem(loaded.path, line, "'sources' is not a list of strings"))
        elif short is not None and sources:
            long = _text(row, "summary/long") or short
            document = "\n\n".join(sources)
            parts = tuple(len(s) for s in sources)
            rows.append(SummRow(str(row["id"]), document, (short,), long, loaded.path, line, parts))
    return rows, problems


def read_key_points(
    path: Path | None, field: str
) -> tuple[dict[str, tuple[str, ...]], list[DataProblem]]:
    """{row id: key points} of a key-point file (empty without one)."""
    if path is None:
        return {}, []
    loaded = read_records(path)
    points: dict[str, tuple[str, ...]] = {}
    problems = list(loaded.problems)
    for row, line in zip(loaded.rows, loaded.lines, strict=True):
        value = row.get(field)
        if row.get("id") is None or not isinstance(value, list):
            problems.append(DataProblem(loaded.path, line, f"no 'id' or no '{field}' list"))
            continue
        points[str(row["id"])] = tuple(str(p) for p in value if str(p).strip())
    return points, problems


@dataclass(frozen=True)
class SummData:
    """What one dataset's files hold: the test rows, the demonstration pool, key points."""

    tests: tuple[SummRow, ...]
    demos: tuple[SummRow, ...]
    key_points: Mapping[str, tuple[str, ...]]
    problems: tuple[DataProblem, ...]


_PARSED: dict[tuple[object, ...], SummData] = {}
_LOCK = threading.Lock()


def parsed_once(key: tuple[object, ...], parse: Callable[[], SummData]) -> SummData:
    """`parse()` once per key (the files' paths and modification times)."""
    with _LOCK:
        known = _PARSED.get(key)
    if known is not None:
        return known
    value = parse()
    with _LOCK:
        _PARSED[key] = value
    return value


def file_key(paths: list[Path | None]) -> tuple[object, ...]:
    return tuple((str(p), p.stat().st_mtime_ns) if p is not None else None for p in paths)
