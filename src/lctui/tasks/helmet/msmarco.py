"""HELMET's MS MARCO re-ranking files: queries with graded passages, and demo choice.

Facts from HELMET's data release and loader (princeton-nlp/HELMET 4526dfb, data.py and
its configs):
- test files `msmarco/test_reranking_data_k{K}_dep3.jsonl` (K = 14, 50, 130, 285, 600,
  1000 passages per row); the demonstrations come from `..._k10_dep3.jsonl`;
- a row has `qid`, `query` and `ctxs` (a list of `{id, text, label}`, `title` where the
  first passage has one), `label` the graded relevance (0 = not relevant);
- a passage reads `[ID: id] Document (Title: T): text`, or `[ID: id] Document: text`
  when the row's first passage has no title;
- the ideal ranking is the row's ids sorted by label, highest first (a stable sort:
  ties keep the file's order), joined by " > ";
- the demonstrations of a row: the demo rows (all rows whose qid is among the test
  rows' qids left out when the demo file holds more than twice as many rows as the test
  set, else only the asked qid's) shuffled and deduplicated as for RAG (kilt.py).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lctui.tasks.bounded_read import shown
from lctui.tasks.datasets import DataProblem, JsonLines


@dataclass(frozen=True)
class RankedPassage:
    id: str
    text: str
    label: int
    title: str | None  # None: the row shows passages without a title


@dataclass(frozen=True)
class RerankRow:
    """One row of a re-ranking file: a query and its graded passages."""

    key: str  # the qid
    query: str
    passages: tuple[RankedPassage, ...]
    line: int

    def ideal_ranking(self) -> str:
        ranked = sorted(self.passages, key=lambda p: p.label, reverse=True)
        return " > ".join(p.id for p in ranked)


def format_ranked_passage(passage: RankedPassage) -> str:
    if passage.title is None:
        return f"[ID: {passage.id}] Document: {passage.text}"
    return f"[ID: {passage.id}] Document (Title: {passage.title}): {passage.text}"


def _passage(raw: Any, titled: bool) -> RankedPassage | str:
    """The passage, or what is wrong with it."""
    if not isinstance(raw, Mapping):
        return "a passage in 'ctxs' is not an object"
    doc, text, label = raw.get("id"), raw.get("text"), raw.get("label")
    if isinstance(doc, bool) or not isinstance(doc, (int, str)) or not str(doc).isdigit():
        # Rankings are read as runs of whole numbers (HELMET's parser and ours).
        return f"passage id {shown(doc)} is not a whole number"
    if not isinstance(text, str):
        return f"passage {shown(doc)} has no 'text' string"
    if isinstance(label, bool) or not isinstance(label, int):
        return f"passage {shown(doc)} has no integer 'label'"
    title = raw.get("title")
    heading = (title if isinstance(title, str) else "") if titled else None
    return RankedPassage(str(doc), text, label, heading)


_PARSED: dict[int, tuple[JsonLines, tuple[tuple[RerankRow, ...], tuple[DataProblem, ...]]]] = {}
_PARSED_LOCK = threading.Lock()


def read_rerank_rows(
    loaded: JsonLines,
) -> tuple[tuple[RerankRow, ...], tuple[DataProblem, ...]]:
    """The usable rows of a loaded file (parsed once per loaded file); a row with a
    missing or wrong field is reported with its line and skipped."""
    with _PARSED_LOCK:
        known = _PARSED.get(id(loaded))
        if known is not None and known[0] is loaded:
            return known[1]
    parsed = _parse(loaded)
    with _PARSED_LOCK:
        _PARSED[id(loaded)] = (loaded, parsed)  # holding `loaded` keeps its id unique
    return parsed


def _parse(loaded: JsonLines) -> tuple[tuple[RerankRow, ...], tuple[DataProblem, ...]]:
    rows: list[RerankRow] = []
    problems: list[DataProblem] = []
    for row, line in zip(loaded.rows, loaded.lines, strict=True):
        problem, parsed = _row(row, line)
        if parsed is None:
            problems.append(DataProblem(loaded.path, line, problem))
        else:
            rows.append(parsed)
    return tuple(rows), tuple(problems)


def _row(row: Mapping[str, Any], line: int) -> tuple[str, RerankRow | None]:
    qid, query, ctxs = row.get("qid"), row.get("query"), row.get("ctxs")
    if isinstance(qid, bool) or not isinstance(qid, (int, str)) or not str(qid).strip():
        return "no 'qid'", None
    if not isinstance(query, str) or not query.strip():
        return "no 'query' text", None
    if not isinstance(ctxs, list) or not ctxs:
        return "'ctxs' is not a non-empty list of passages", None
    titled = isinstance(ctxs[0], Mapping) and "title" in ctxs[0]
    passages: list[RankedPassage] = []
    for raw in ctxs:
        passage = _passage(raw, titled)
        if isinstance(passage, str):
            return passage, None
        passages.append(passage)
    ids = [p.id for p in passages]
    if len(set(ids)) < len(ids):
        twice = next(doc for doc in ids if ids.count(doc) > 1)
        return f"passage id {twice} appears twice in 'ctxs'", None
    return "", RerankRow(str(qid), query, tuple(passages), line)
