"""HELMET's long-document QA data: NarrativeQA and InfiniteBench, read from their own hub
repositories (HELMET takes neither from its data release).

Facts from HELMET's loaders (princeton-nlp/HELMET 4526dfb, data.py `load_narrativeqa`,
`load_infbench`) and the repositories they load:
- NarrativeQA (`deepmind/narrativeqa`, HELMET's `load_dataset("narrativeqa")`): Parquet
  shards `data/test-0000i-of-00008.parquet` and `data/train-000ii-of-00024.parquet`;
  a row has `document` {id, text, ...} (the whole story, repeated on every question
  about it), `question` {text} and `answers` [{text}]. HELMET asks test questions and
  shows train questions with their first answer as demonstrations (no story).
- InfiniteBench (`xinrongzhang2022/infinitebench`, spelled as HELMET loads it, so a
  user's hub cache from running HELMET is found): JSON lines `longbook_qa_eng.jsonl`
  and `longbook_choice_eng.jsonl`, a row {id, context, input, answer: [..], options:
  [..]}; a multiple-choice row has four options and `answer[0]` is one of them, which
  HELMET turns into the golds (letter, "letter. option").

NarrativeQA's stories are kept once per document id (its test split repeats each
story on about thirty questions), and its Parquet files are read by the columns used,
a batch at a time, so the train split's stories are never read. A row that lacks a
field is reported with its file and row (line) number and skipped.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lctui.tasks.bounded_read import error_text
from lctui.tasks.datasets import DataProblem, read_records

NARRATIVEQA_REPO = "hub/deepmind/narrativeqa"
INFBENCH_REPO = "hub/xinrongzhang2022/infinitebench"
# Shard counts of the hub's Parquet layout per split, then a one-file copy of a split.
NARRATIVEQA_SHARDS = {"test": (8, 1), "train": (24, 1)}
OPTION_LETTERS = "ABCD"
_BATCH_ROWS = 64


@dataclass(frozen=True)
class DocQuestion:
    """One question about a long document."""

    key: str  # what the row is known by (InfiniteBench: its id)
    document: str  # the key of its document's text in `LongDocs.texts`
    question: str
    answers: tuple[str, ...]
    options: tuple[str, ...]  # multiple choice: the four options, else ()
    path: str
    line: int

    @property
    def letter(self) -> str:
        """The gold option's letter (multiple choice)."""
        return OPTION_LETTERS[self.options.index(self.answers[0])]


@dataclass(frozen=True)
class LongDocs:
    """The usable questions of a split, their documents' texts and the skipped rows."""

    rows: tuple[DocQuestion, ...]
    texts: Mapping[str, str]
    problems: tuple[DataProblem, ...]
    origin: str = ""  # the files and their versions: a document's key is (origin, its key)


def narrativeqa_shards(split: str) -> tuple[tuple[str, ...], ...]:
    """The release paths of a split's shards, one tuple per layout the split may have."""
    return tuple(
        tuple(
            f"{NARRATIVEQA_REPO}/data/{split}-{i:05d}-of-{count:05d}.parquet" for i in range(count)
        )
        for count in NARRATIVEQA_SHARDS[split]
    )


def _text(value: Any) -> str | None:
    if isinstance(value, Mapping):
        value = value.get("text")
    return value if isinstance(value, str) and value.strip() else None


def _narrative_row(raw: Mapping[str, Any], with_document: bool) -> tuple[str, tuple[Any, ...]]:
    """(problem, ()) or ("", (document id, text, question, answers))."""
    question = _text(raw.get("question"))
    if question is None:
        return "no 'question' text", ()
    answers_raw = raw.get("answers")
    answers = [_text(a) for a in answers_raw] if isinstance(answers_raw, list) else []
    kept = tuple(a for a in answers if a is not None)
    if not kept:
        return "no 'answers' with text", ()
    document = raw.get("document")
    doc_id = document.get("id") if isinstance(document, Mapping) else None
    if not isinstance(doc_id, str) or not doc_id:
        return "no 'document' id", ()
    text = _text(document) if with_document else ""
    if text is None:
        return "no 'document' text", ()
    return "", (doc_id, text, question, kept)


_CACHE: dict[tuple[tuple[str, int, int], ...], LongDocs] = {}
_LOCK = threading.Lock()


def _stamp(files: Sequence[Path]) -> tuple[tuple[str, int, int], ...]:
    stats = [(str(f), f.stat()) for f in files]
    return tuple((name, s.st_mtime_ns, s.st_size) for name, s in stats)


def read_narrativeqa(files: Sequence[tuple[str, Path]], with_documents: bool) -> LongDocs:
    """The questions of NarrativeQA shards (release path, file), in shard order; with
    `with_documents` their stories too (the test split), else only questions and answers
    (the train split, for demonstrations). Read once per set of files."""
    key = (*_stamp([f for _, f in files]), ("documents", int(with_documents), 0))
    with _LOCK:
        if key in _CACHE:
            return _CACHE[key]
    columns = ["question.text", "answers", "document.id"]
    if with_documents:
        columns.append("document.text")
    rows: list[DocQuestion] = []
    texts: dict[str, str] = {}
    problems: list[DataProblem] = []
    for release, path in files:
        for number, raw in _parquet_rows(path, columns, problems):
            problem, fields = _narrative_row(raw, with_documents)
            if problem:
                problems.append(DataProblem(str(path), number, problem))
                continue
            doc_id, text, question, answers = fields
            if with_documents:
                texts.setdefault(doc_id, text)
            rows.append(
                DocQuestion(f"{doc_id}/{question}", doc_id, question, answers, (), release, number)
            )
    loaded = LongDocs(tuple(rows), texts, tuple(problems), repr(key))
    with _LOCK:
        _CACHE[key] = loaded
    return loaded


def _parquet_rows(
    path: Path, columns: list[str], problems: list[DataProblem]
) -> list[tuple[int, Mapping[str, Any]]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    found: list[tuple[int, Mapping[str, Any]]] = []
    try:
        handle = pq.ParquetFile(path)
        number = 0
        for batch in handle.iter_batches(batch_size=_BATCH_ROWS, columns=columns):
            for raw in batch.to_pylist():
                number += 1
                found.append((number, raw))
    except (OSError, ValueError, KeyError, pa.ArrowException) as err:
        why = f"not a NarrativeQA Parquet file ({error_text(err)})"
        problems.append(DataProblem(str(path), 1, why))
    return found


def read_infbench(path: Path, release: str, choice: bool) -> LongDocs:
    """The questions of an InfiniteBench file (QA, or multiple choice with `choice`)."""
    loaded = read_records(path)
    key = (*_stamp([path]), ("choice", int(choice), 1))
    with _LOCK:
        if key in _CACHE:
            return _CACHE[key]
    rows: list[DocQuestion] = []
    texts: dict[str, str] = {}
    # Several questions ask about one book: they share its text under the first
    # asker's id, so the book is kept and tokenised once, not once per question.
    document_of: dict[str, str] = {}
    problems = list(loaded.problems)
    for raw, line in zip(loaded.rows, loaded.lines, strict=True):
        problem, row = _infbench_row(raw, release, line, choice)
        if row is None:
            problems.append(DataProblem(str(path), line, problem))
            continue
        document = document_of.setdefault(str(raw["context"]), row.document)
        if document != row.document:
            row = replace(row, document=document)
        texts[document] = str(raw["context"])
        rows.append(row)
    result = LongDocs(tuple(rows), texts, tuple(problems), repr(key))
    with _LOCK:
        _CACHE[key] = result
    return result


def _infbench_row(
    raw: Mapping[str, Any], release: str, line: int, choice: bool
) -> tuple[str, DocQuestion | None]:
    row_id, context, question = raw.get("id"), raw.get("context"), raw.get("input")
    if isinstance(row_id, bool) or not isinstance(row_id, (int, str)) or str(row_id) == "":
        return "no 'id'", None
    if not isinstance(context, str) or not context.strip():
        return "no 'context' text", None
    if not isinstance(question, str) or not question.strip():
        return "no 'input' (the question) text", None
    answers, options = raw.get("answer"), raw.get("options")
    if isinstance(answers, str):
        answers = [answers]
    if not isinstance(answers, list) or not answers or not all(isinstance(a, str) for a in answers):
        return "'answer' is not a non-empty list of strings", None
    kept_options: tuple[str, ...] = ()
    if choice:
        if (
            not isinstance(options, list)
            or len(options) != len(OPTION_LETTERS)
            or not all(isinstance(o, str) for o in options)
        ):
            return f"'options' is not a list of {len(OPTION_LETTERS)} strings", None
        if answers[0] not in options:
            return "the answer is none of the 'options'", None
        kept_options = tuple(options)
    key = str(row_id)
    return "", DocQuestion(key, key, question, tuple(answers), kept_options, release, line)
