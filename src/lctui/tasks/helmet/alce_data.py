"""ALCE's files as HELMET reads them: questions with retrieved documents, and demonstrations.

Facts from HELMET (princeton-nlp/HELMET 4526dfb, data.py `load_alce`, configs/cite.yaml):
- test files `alce/{asqa,qampari}_eval_gtr_top2000.json` (a JSON list) from its data
  release; an ASQA row has `question`, `qa_pairs` (each with `short_answers`, the
  accepted answers of one sub-question) and `docs` ({title, text}, by retrieval rank);
  a QAMPARI row has `question`, `answers` (a list of alias lists) and `docs`;
- the demonstrations are in HELMET's repository, not its data release:
  `prompts/{asqa,qampari}_revised.json`, an object whose `demos` list holds solved
  questions (`question`, `answer` with citations, 5 `docs` each, all shown);
- the documents of a prompt are the row's first k docs, numbered from 1;
- the demos of a row: HELMET seeds Python's `random` with its --seed (42) before
  loading and draws `random.sample(demos, shots)` for each row in the file's order, so
  the demos of the row at file position p are the (p+1)-th draw of that stream.
"""

from __future__ import annotations

import functools
import random
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lctui.tasks.bounded_read import FileProblem, JsonDocument
from lctui.tasks.datasets import DataProblem, JsonLines

DEMO_SEED = 42  # HELMET's --seed default, which its ALCE demo draws use


@dataclass(frozen=True)
class Doc:
    title: str
    text: str


@dataclass(frozen=True)
class AlceRow:
    """One question of an ALCE file: its answer groups and its retrieved documents."""

    key: str
    question: str
    groups: tuple[tuple[str, ...], ...]  # ASQA: per sub-question; QAMPARI: per answer
    docs: tuple[Doc, ...]
    line: int  # the record's number in the file (JSON list: its position, from 1)
    position: int  # its position among the file's records, from 0 (the demo draw's turn)


@dataclass(frozen=True)
class Demo:
    question: str
    answer: str
    docs: tuple[Doc, ...]


def _doc(raw: Any) -> Doc | None:
    if isinstance(raw, Mapping) and isinstance(raw.get("text"), str):
        title = raw.get("title")
        return Doc(title if isinstance(title, str) else "", raw["text"])
    return None


def _docs(raw: Any) -> tuple[Doc, ...] | None:
    if not isinstance(raw, list):
        return None
    docs = [_doc(d) for d in raw]
    return None if any(d is None for d in docs) else tuple(d for d in docs if d is not None)


def _alias_list(raw: Any) -> tuple[str, ...] | None:
    if not isinstance(raw, list) or not all(isinstance(a, str) for a in raw):
        return None
    kept = tuple(a for a in raw if a.strip())
    return kept or None


def answer_groups(row: Mapping[str, Any], dataset: str) -> tuple[tuple[str, ...], ...] | str:
    """The answer groups of a row, or why it has none."""
    if dataset == "asqa":
        pairs = row.get("qa_pairs")
        if not isinstance(pairs, list) or not pairs:
            return "no 'qa_pairs' list"
        groups = [
            _alias_list(p.get("short_answers")) if isinstance(p, Mapping) else None for p in pairs
        ]
        what = "a 'qa_pairs' entry has no non-blank 'short_answers' strings"
    else:
        answers = row.get("answers")
        if not isinstance(answers, list) or not answers:
            return "no 'answers' list"
        groups = [_alias_list(a) for a in answers]
        what = "an 'answers' entry is not a non-empty list of strings"
    if any(g is None for g in groups):
        return what
    return tuple(g for g in groups if g is not None)


_Parsed = tuple[tuple[AlceRow, ...], tuple[DataProblem, ...]]
_PARSED: dict[tuple[int, str], tuple[JsonLines, _Parsed]] = {}
_PARSED_LOCK = threading.Lock()


def parse_rows(
    loaded: JsonLines, dataset: str
) -> tuple[tuple[AlceRow, ...], tuple[DataProblem, ...]]:
    """The usable rows of an ALCE test file (parsed once per loaded file: every example
    of a run reads them); a row missing a field is reported and skipped."""
    key = (id(loaded), dataset)
    with _PARSED_LOCK:
        known = _PARSED.get(key)
        if known is not None and known[0] is loaded:
            return known[1]
    parsed = _parse_rows(loaded, dataset)
    with _PARSED_LOCK:
        _PARSED[key] = (loaded, parsed)  # holding `loaded` keeps its id unique
    return parsed


def _parse_rows(
    loaded: JsonLines, dataset: str
) -> tuple[tuple[AlceRow, ...], tuple[DataProblem, ...]]:
    rows: list[AlceRow] = []
    problems: list[DataProblem] = []
    key_field = "sample_id" if dataset == "asqa" else "id"
    for position, (row, line) in enumerate(zip(loaded.rows, loaded.lines, strict=True)):
        question = row.get("question")
        if not isinstance(question, str) or not question.strip():
            problems.append(DataProblem(loaded.path, line, "no 'question' text"))
            continue
        groups = answer_groups(row, dataset)
        if isinstance(groups, str):
            problems.append(DataProblem(loaded.path, line, groups))
            continue
        docs = _docs(row.get("docs"))
        if not docs:
            problems.append(
                DataProblem(loaded.path, line, "'docs' is not a non-empty list of {title, text}")
            )
            continue
        key = str(row[key_field]) if key_field in row else question
        rows.append(AlceRow(key, question, groups, docs, line, position))
    return tuple(rows), tuple(problems)


def read_demos(path: Path) -> tuple[tuple[Demo, ...], tuple[DataProblem, ...]]:
    """The demonstrations of a prompts file (an object with a `demos` list); a bad file or
    entry is reported (an entry by its number in the list, from 1) and skipped. Read
    once per path and modification time."""
    stat = path.stat()
    return _read_demos(str(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=16)
def _read_demos(
    name: str, mtime_ns: int, size: int
) -> tuple[tuple[Demo, ...], tuple[DataProblem, ...]]:
    path = Path(name)
    document = JsonDocument(path, "demos")
    entries: list[tuple[int, Any]] = []
    try:
        entries = [(key, value) for key, value in document if isinstance(key, int)]
    except FileProblem as err:
        return (), (DataProblem(str(path), err.line, err.why),)
    except OSError as err:
        return (), (DataProblem(str(path), 1, f"not readable ({err.strerror or err})"),)
    if not document.listed:
        return (), (DataProblem(str(path), 1, "not an object with a 'demos' list"),)
    demos: list[Demo] = []
    problems: list[DataProblem] = []
    for number, entry in entries:
        question = entry.get("question") if isinstance(entry, Mapping) else None
        answer = entry.get("answer") if isinstance(entry, Mapping) else None
        docs = _docs(entry.get("docs")) if isinstance(entry, Mapping) else None
        if not isinstance(question, str) or not isinstance(answer, str) or docs is None:
            reason = "demo lacks a 'question', an 'answer' or its 'docs'"
            problems.append(DataProblem(str(path), number, reason))
            continue
        demos.append(Demo(question, answer, docs))
    return tuple(demos), tuple(problems)


@functools.lru_cache(maxsize=64)
def demo_draws(seed: int, turns: int, pool: int, shots: int) -> tuple[tuple[int, ...], ...]:
    """The demo indices of the first `turns` rows: one `random.sample` of the pool per
    row from one stream seeded with `seed`, as HELMET draws them (module docstring)."""
    rng = random.Random(seed)
    return tuple(tuple(rng.sample(range(pool), shots)) for _ in range(turns))


def choose_alce_demos(row: AlceRow, pool: Sequence[Demo], shots: int) -> list[Demo]:
    """The demonstrations HELMET shows before `row` (at most the whole pool)."""
    shots = min(shots, len(pool))
    if shots <= 0:
        return []
    draws = demo_draws(DEMO_SEED, row.position + 1, len(pool), shots)
    return [pool[i] for i in draws[row.position]]
