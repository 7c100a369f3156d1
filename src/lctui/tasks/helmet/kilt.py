"""HELMET's KILT-format RAG files: questions with retrieved passages, and demo choice.

Facts from HELMET's data release and loader (princeton-nlp/HELMET 4526dfb, data.py):
- test files `kilt/{name}_k{K}_dep{D}.jsonl`, K passages per row, each question once
  per gold depth (D evenly spaced positions); demonstrations come from the k3 files;
- a row has `question`, `answers` (a list) and `ctxs` (a list of `{title, text}`);
  PopQA rows add `id`;
- rows are keyed by `id` where the file has one, else by the question text;
- the demonstrations of a row: the demo rows (PopQA: those with another key, as its
  demos come from its own test split) in the order of a permutation seeded with
  sha256(key) mod 2**31 (what `datasets.Dataset.shuffle(seed=...)` draws: numpy's
  default_rng(seed).permutation), the first row of each key kept, the first `shots`
  taken; each shows all its passages, the question and its first answer.

The release does not flag the gold passage in the shapes we know; a passage flagged
`has_answer`/`is_gold`/`gold` is taken, else the first passage that contains an answer
(normalised as SubEM does), which is where the dep files put the gold one.
"""

from __future__ import annotations

import functools
import hashlib
import random
import re
import string
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import numpy as np

from lctui.core.hashing import seed_from
from lctui.core.types import Span
from lctui.tasks.datasets import DataProblem, JsonLines

GOLD_FLAGS = ("has_answer", "is_gold", "gold")
_ARTICLES = re.compile(r"\b(a|an|the)\b")
PUNCTUATION = str.maketrans("", "", string.punctuation)


@dataclass(frozen=True)
class Passage:
    title: str
    text: str


@dataclass(frozen=True)
class QARow:
    """One row of a KILT-format file: a question, its answers and its passages."""

    key: str
    question: str
    answers: tuple[str, ...]
    passages: tuple[Passage, ...]
    gold: int | None  # the gold passage's position in `passages`
    line: int
    popularity: float | None = None  # PopQA's s_pop (monthly page views of the subject)


def normalize_answer(text: str) -> str:
    """Lower case, no punctuation, no articles, single spaces (SubEM's normalisation)."""
    text = _ARTICLES.sub(" ", text.lower().translate(PUNCTUATION))
    return " ".join(text.split())


def _passage(raw: Any) -> Passage | None:
    if isinstance(raw, str):
        return Passage("", raw)
    if isinstance(raw, Mapping) and isinstance(raw.get("text"), str):
        title = raw.get("title")
        return Passage(title if isinstance(title, str) else "", raw["text"])
    return None


def _gold_position(
    raw_ctxs: Sequence[Any], passages: Sequence[Passage], answers: Sequence[str]
) -> int | None:
    for i, raw in enumerate(raw_ctxs):
        if isinstance(raw, Mapping) and any(raw.get(flag) is True for flag in GOLD_FLAGS):
            return i
    wanted = [normalize_answer(a) for a in answers if normalize_answer(a)]
    for i, passage in enumerate(passages):
        text = normalize_answer(passage.text)
        if any(answer in text for answer in wanted):
            return i
    return None


_PARSED: dict[int, tuple[JsonLines, tuple[tuple[QARow, ...], tuple[DataProblem, ...]]]] = {}
_PARSED_LOCK = threading.Lock()


def read_rows(loaded: JsonLines) -> tuple[tuple[QARow, ...], tuple[DataProblem, ...]]:
    """The usable rows of a loaded file (parsed once per loaded file); rows missing a
    field are reported and skipped."""
    with _PARSED_LOCK:
        known = _PARSED.get(id(loaded))
        if known is not None and known[0] is loaded:
            return known[1]
    parsed = _parse_rows(loaded)
    with _PARSED_LOCK:
        _PARSED[id(loaded)] = (loaded, parsed)  # holding `loaded` keeps its id unique
    return parsed


def _parse_rows(loaded: JsonLines) -> tuple[tuple[QARow, ...], tuple[DataProblem, ...]]:
    keyed = any("id" in row for row in loaded.rows)
    rows: list[QARow] = []
    problems: list[DataProblem] = []
    for row, line in zip(loaded.rows, loaded.lines, strict=True):
        question, answers, ctxs = row.get("question"), row.get("answers"), row.get("ctxs")
        if not isinstance(question, str) or not question.strip():
            problems.append(DataProblem(loaded.path, line, "no 'question' text"))
            continue
        if not isinstance(answers, list) or not all(isinstance(a, str) for a in answers):
            problems.append(DataProblem(loaded.path, line, "'answers' is not a list of strings"))
            continue
        answers = [a for a in answers if a.strip()]
        if not answers:
            problems.append(DataProblem(loaded.path, line, "no non-blank answer"))
            continue
        if not isinstance(ctxs, list):
            problems.append(DataProblem(loaded.path, line, "'ctxs' is not a list of passages"))
            continue
        passages = [_passage(c) for c in ctxs]
        if any(p is None for p in passages):
            problems.append(
                DataProblem(loaded.path, line, "a passage in 'ctxs' has no 'text' string")
            )
            continue
        kept = tuple(p for p in passages if p is not None)
        key = str(row.get("id")) if keyed else question
        gold = _gold_position(ctxs, kept, answers)
        s_pop = row.get("s_pop")
        popularity = float(s_pop) if isinstance(s_pop, (int, float)) and s_pop > 0 else None
        rows.append(QARow(key, question, tuple(answers), kept, gold, line, popularity))
    return tuple(rows), tuple(problems)


def passage_spans(texts: Sequence[str], labels: Sequence[str], separator: str) -> tuple[Span, ...]:
    """One `passage` span per listed passage (the texts joined by `separator`), labelled
    as the prompt names the passage: what the inspector lists and jumps to."""
    spans, start = [], 0
    for text, label in zip(texts, labels, strict=True):
        spans.append(Span(start, start + len(text), "passage", label))
        start += len(text) + len(separator)
    return tuple(spans)


def demo_seed(key: str) -> int:
    """The seed HELMET shuffles a row's demo pool with: sha256 of its key mod 2**31."""
    return int(hashlib.sha256(key.encode("utf-8")).hexdigest(), 16) % 2**31


class Keyed(Protocol):
    """A row with the key HELMET seeds its demos with (RAG: id or question; MS MARCO: qid)."""

    @property
    def key(self) -> str: ...


RowT = TypeVar("RowT", bound=Keyed)


def choose_demos(
    row: Keyed, pool: Sequence[RowT], shots: int, exclude_same_key: bool
) -> list[RowT]:
    """The `shots` demonstrations of `row`, as HELMET draws them (module docstring);
    the re-ranking loader draws the same way."""
    if shots <= 0:
        return []
    candidates = [d for d in pool if d.key != row.key] if exclude_same_key else list(pool)
    order = shuffled(len(candidates), demo_seed(row.key))
    chosen: list[RowT] = []
    seen: set[str] = set()
    for i in order:
        demo = candidates[int(i)]
        if demo.key in seen:
            continue
        seen.add(demo.key)
        chosen.append(demo)
        if len(chosen) == shots:
            break
    return chosen


@functools.lru_cache(maxsize=64)
@functools.lru_cache(maxsize=64)
def shuffled(rows: int, seed: int) -> tuple[int, ...]:
    """The order `datasets.Dataset.shuffle(seed=seed)` puts `rows` rows in (numpy's
    default_rng(seed).permutation), HELMET's draw of rows and demonstrations."""
    return tuple(int(i) for i in np.random.default_rng(seed).permutation(rows))


def row_order(salt: str, path: str, rows: int, seed: int) -> tuple[int, ...]:
    """The order a run's seed reads a data file's rows in: a permutation of its `rows`,
    derived from `salt`, the file and the seed (computed once per file and seed)."""
    order = list(range(rows))
    random.Random(seed_from(salt, path, seed)).shuffle(order)
    return tuple(order)
