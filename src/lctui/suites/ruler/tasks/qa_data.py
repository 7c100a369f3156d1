"""RULER's QA data: SQuAD v2.0 dev and HotpotQA dev (distractor), read as RULER reads them.

Facts from RULER (NVIDIA/RULER c3f5e3b, scripts/data/synthetic/qa.py and
json/download_qa_dataset.sh):
- Documents are the sorted set of the file's unique paragraphs. SQuAD: every
  paragraph's `context` (those of unanswerable questions too). HotpotQA: every
  `[title, sentences]` entry of a question's `context`, as the title, a newline and the
  sentences joined without a separator (their own leading spaces separate them).
- Questions in file order. SQuAD: every question not marked `is_impossible`; its golds
  are its answers' texts, its document the paragraph, its related documents the other
  paragraphs of its article. HotpotQA: every row; its gold is `[answer]`, its documents
  all ten paragraphs of its context (two that hold the answer, eight distractors).
- Where the files are: RULER's download script saves them as `squad.json` and
  `hotpotqa.json`; the originals are named `dev-v2.0.json` and
  `hotpot_dev_distractor_v1.json`. The HotpotQA file is also in the hub repository
  namlh2004/hotpotqa at the revision RULER's script pins (`HOTPOTQA_HUB`).

lctui also keeps, per question, the documents that hold its answer (`supporting`:
SQuAD's paragraph; HotpotQA's paragraphs named in `supporting_facts`, all ten when the
row names none), which RULER does not use, to mark them in the inspector.

An article, paragraph, question or row that lacks a field is reported as a
`DataProblem` (the file and the item's 1-based position in its list: these files are
single-line JSON) and skipped; the rest is used. Parsed files are kept per path,
modification time and size, so every example of a run reads a file once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lctui.tasks.datasets import DataProblem, JsonLines, hub_path, read_records

HOTPOTQA_REPO = "namlh2004/hotpotqa"
HOTPOTQA_REVISION = "7e54db4656209750ff487f6fdf8e39a66dba136b"
HOTPOTQA_ORIGINAL = "hotpot_dev_distractor_v1.json"
HOTPOTQA_HUB = hub_path(HOTPOTQA_REPO, HOTPOTQA_ORIGINAL, HOTPOTQA_REVISION)
SQUAD_URL = "https://rajpurkar.github.io/SQuAD-explorer/dataset/dev-v2.0.json"
HOTPOTQA_URLS = (
    f"http://curtis.ml.cmu.edu/datasets/hotpot/{HOTPOTQA_ORIGINAL}",
    f"https://huggingface.co/datasets/{HOTPOTQA_REPO}/resolve/{HOTPOTQA_REVISION}/"
    f"{HOTPOTQA_ORIGINAL}",
)
# Where a copy is looked for under --data DIR: DIR/ruler/, DIR/, and a RULER checkout's
# own folder (its download script writes there); RULER's names first.
FOLDERS = ("ruler/", "", "scripts/data/synthetic/json/")
SQUAD_FILES = tuple(
    f"{folder}{name}" for name in ("squad.json", "dev-v2.0.json") for folder in FOLDERS
)
HOTPOTQA_FILES = (
    *(f"{folder}{name}" for name in ("hotpotqa.json", HOTPOTQA_ORIGINAL) for folder in FOLDERS),
    HOTPOTQA_HUB,
)


@dataclass(frozen=True)
class QAQuestion:
    """One question with its documents (indices into `QACorpus.documents`)."""

    key: str  # SQuAD's id, HotpotQA's _id
    question: str
    answers: tuple[str, ...]  # the accepted answers, each once, in the file's order
    documents: tuple[int, ...]  # RULER's `context`: the question's own documents
    related: tuple[int, ...]  # RULER's `more_context`: the other paragraphs of its article
    supporting: tuple[int, ...]  # those of `documents` that hold the answer
    line: int  # the position of its article (SQuAD) or row (HotpotQA) in the file


@dataclass(frozen=True)
class QACorpus:
    """A dataset file as RULER reads it: documents, questions, and what was skipped."""

    documents: tuple[str, ...]
    questions: tuple[QAQuestion, ...]
    problems: tuple[DataProblem, ...]


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _answers(texts: Sequence[object]) -> tuple[str, ...] | None:
    found = [t for t in texts if isinstance(t, str) and t.strip()]
    if not found or len(found) != len(texts):
        return None
    return tuple(dict.fromkeys(found))


@dataclass(frozen=True)
class _SquadQuestion:
    key: str
    question: str
    answers: tuple[str, ...]
    paragraph: str
    article: int  # the position of its article among those read
    line: int


def parse_squad(loaded: JsonLines) -> QACorpus:
    """SQuAD v2.0 (`data` articles read by `read_records`) as RULER's `read_squad`."""
    problems = list(loaded.problems)
    paragraphs_of: list[list[str]] = []
    asked: list[_SquadQuestion] = []
    for article, line in zip(loaded.rows, loaded.lines, strict=True):

        def report(reason: str, line: int = line) -> None:
            problems.append(DataProblem(loaded.path, line, f"article {line}: {reason}"))

        paragraphs = article.get("paragraphs")
        if not isinstance(paragraphs, list):
            report("no 'paragraphs' list")
            continue
        contexts: list[str] = []
        for number, paragraph in enumerate(paragraphs, start=1):
            context = _text(paragraph.get("context")) if isinstance(paragraph, dict) else None
            if context is None:
                report(f"paragraph {number} has no 'context' text")
                continue
            contexts.append(context)
            qas = paragraph.get("qas", [])
            if not isinstance(qas, list):
                report(f"paragraph {number}: 'qas' is not a list")
                continue
            for q_number, qa in enumerate(qas, start=1):
                where = f"paragraph {number}, question {q_number}"
                if not isinstance(qa, dict):
                    report(f"{where} is not an object")
                    continue
                # SQuAD v1.1 has no is_impossible: all its questions are answerable.
                if qa.get("is_impossible", False) is True:
                    continue
                question, answers = _text(qa.get("question")), qa.get("answers")
                texts = (
                    _answers([a.get("text") if isinstance(a, dict) else None for a in answers])
                    if isinstance(answers, list)
                    else None
                )
                if question is None or texts is None:
                    missing = "'question' text" if question is None else "answers with text"
                    report(f"{where} has no {missing}")
                    continue
                key = qa.get("id")
                name = str(key) if key else where
                asked.append(
                    _SquadQuestion(name, question, texts, context, len(paragraphs_of), line)
                )
        paragraphs_of.append(contexts)
    documents = tuple(sorted({c for contexts in paragraphs_of for c in contexts}))
    index = {text: i for i, text in enumerate(documents)}
    in_article = [tuple(dict.fromkeys(index[c] for c in contexts)) for contexts in paragraphs_of]
    questions = []
    for q in asked:
        own = index[q.paragraph]
        related = tuple(i for i in in_article[q.article] if i != own)
        questions.append(QAQuestion(q.key, q.question, q.answers, (own,), related, (own,), q.line))
    return QACorpus(documents, tuple(questions), tuple(problems))


def _hotpot_paragraphs(context: object) -> list[tuple[str, str]] | None:
    """A row's `context` as (title, document text) pairs, or None when malformed."""
    if not isinstance(context, list) or not context:
        return None
    out = []
    for entry in context:
        if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)):
            return None
        title, sentences = entry
        if not isinstance(sentences, list) or not all(isinstance(s, str) for s in sentences):
            return None
        out.append((title, f"{title}\n{''.join(sentences)}"))
    return out


def parse_hotpotqa(loaded: JsonLines) -> QACorpus:
    """HotpotQA's dev distractor file (a list of rows) as RULER's `read_hotpotqa`."""
    problems = list(loaded.problems)
    kept: list[tuple[Mapping[str, Any], int, list[tuple[str, str]]]] = []
    for row, line in zip(loaded.rows, loaded.lines, strict=True):
        paragraphs = _hotpot_paragraphs(row.get("context"))
        if _text(row.get("question")) is None or _text(row.get("answer")) is None:
            problems.append(DataProblem(loaded.path, line, "no 'question' or 'answer' text"))
        elif paragraphs is None:
            reason = "'context' is not a list of [title, [sentences]] pairs"
            problems.append(DataProblem(loaded.path, line, reason))
        else:
            kept.append((row, line, paragraphs))
    documents = tuple(sorted({text for _, _, paragraphs in kept for _, text in paragraphs}))
    index = {text: i for i, text in enumerate(documents)}
    questions = []
    for row, line, paragraphs in kept:
        own = tuple(dict.fromkeys(index[text] for _, text in paragraphs))
        named = _supporting_titles(row.get("supporting_facts"))
        supporting = tuple(dict.fromkeys(index[t] for title, t in paragraphs if title in named))
        questions.append(
            QAQuestion(
                str(row.get("_id") or f"row {line}"),
                str(row["question"]),
                (str(row["answer"]),),
                own,
                (),
                supporting or own,
                line,
            )
        )
    return QACorpus(documents, tuple(questions), tuple(problems))


def _supporting_titles(facts: object) -> set[str]:
    if not isinstance(facts, list):
        return set()
    return {f[0] for f in facts if isinstance(f, list) and f and isinstance(f[0], str)}


Parser = Callable[[JsonLines], QACorpus]
_PARSED: dict[tuple[str, int, int, str], QACorpus] = {}
_LOCK = threading.Lock()


def read_corpus(path: Path, parse: Parser) -> QACorpus:
    """The corpus of the file at `path`, parsed once per path, modification time and size."""
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size, parse.__name__)
    with _LOCK:
        if key in _PARSED:
            return _PARSED[key]
    corpus = parse(read_records(path))
    with _LOCK:
        _PARSED[key] = corpus
    return corpus
