"""HELMET's generation-with-citations category: ALCE ASQA and QAMPARI, in our own wording,
on the user's copy of the ALCE files and of HELMET's demonstration files.

The structure is HELMET's: two solved questions (each: the instruction, the question,
its five documents, the cited answer), then the instruction, the asked question, its
documents as `Document [i](Title: T): text` blocks numbered from 1, and the answer
prefix; 300 new tokens. Answer correctness is scored at once (helmet_alce_asqa /
helmet_alce_qampari); citation recall and precision need an entailment model and are
scored afterwards by `lctui cite-score` (scoring/citations.py).

Where HELMET shows a fixed number of documents per length (30/75/165/345/700), lctui
fits the number to the length: the documents are units, taken in retrieval order and
tokenised only as far as the length reaches (tasks/budget.py's CountedPrefix); the gap
under the length that whole documents leave is filled with the start of the next one
(numbered as it would be), so every prompt lands within the synthetic tasks' tolerance.
Every listed document gets a `Span(..., "passage", "<its number>")`, and metadata
`documents` holds, per number, the context offsets of its title and text, from which
the citation scorer reads what each citation points at.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from lctui.core.errors import UserInputError
from lctui.core.protocols import Tokenizer
from lctui.core.types import ParamSpec, Span
from lctui.tasks.base import Draft, Task
from lctui.tasks.budget import (
    Budget,
    CountedPrefix,
    fit_to_budget,
    longest_fitting,
)
from lctui.tasks.datasets import DataProblem, read_records
from lctui.tasks.helmet.alce_data import (
    AlceRow,
    Demo,
    Doc,
    choose_alce_demos,
    parse_rows,
    read_demos,
)
from lctui.tasks.helmet.holding import first_holders
from lctui.tasks.helmet.kilt import row_order
from lctui.tasks.helmet.release import RELEASE_URL
from lctui.tasks.params import int_param
from lctui.tasks.reach import HELMET_LENGTHS, Reach, by_unit_count

DEMOS_URL = "https://github.com/princeton-nlp/HELMET (its prompts/ folder)"
SHOTS = 2
MAX_NEW_TOKENS = 300
# The documents HELMET shows at each of its lengths (scripts/generate_configs.py).
HELMET_DOCS = dict(zip(HELMET_LENGTHS, (8, 30, 75, 165, 345, 700), strict=True))
SEPARATOR = "\n\n"
DEMO_SEPARATOR = "\n\n\n"
QUESTION_LABEL = "Question:"
ANSWER_PREFIX = "Answer:"

INSTRUCTIONS = {
    "asqa": (
        "Answer the question below in a short, factual paragraph, using only what the "
        "numbered documents after it say; some of them are beside the point. Back every "
        "sentence with the documents it rests on by putting their numbers in square "
        "brackets at its end, e.g. [2] or [1][4]: one to three documents per sentence, "
        "no more than the sentence needs."
    ),
    "qampari": (
        "The question below has many answers. List as many of them as the numbered "
        "documents after it support, using nothing else; some documents are beside the "
        "point. Separate the answers with commas and follow each with the number of the "
        "one document that supports it in square brackets, e.g. Alpha [3], Beta [7]. "
        "Give at least five answers when the question has more than five."
    ),
}


@dataclass(frozen=True)
class AlceFiles:
    test: str
    demos: str


DATASETS: dict[str, tuple[str, AlceFiles, str]] = {
    "alce_asqa": (
        "asqa",
        AlceFiles("alce/asqa_eval_gtr_top2000.json", "prompts/asqa_revised.json"),
        "ASQA: answer an ambiguous question in a paragraph citing documents (HELMET cite)",
    ),
    "alce_qampari": (
        "qampari",
        AlceFiles("alce/qampari_eval_gtr_top2000.json", "prompts/qampari_revised.json"),
        "QAMPARI: list the many answers of a question citing documents (HELMET cite)",
    ),
}


def format_doc(number: int, doc: Doc) -> str:
    return f"Document [{number}](Title: {doc.title}): {doc.text}"


_HEAD_END = "): "
_TITLE_AT = len("Document [](Title: ")  # where a document's title starts, less its number


def _doc_head(number: int, doc: Doc) -> str:
    return f"Document [{number}](Title: {doc.title}{_HEAD_END}"


def _block(instruction: str, question: str, docs: str) -> str:
    """One question as HELMET lays it out: instruction, question, then its documents."""
    return f"{instruction}{SEPARATOR}{QUESTION_LABEL} {question}{SEPARATOR}{docs}"


def _demo_text(instruction: str, demo: Demo, dataset: str) -> str:
    docs = SEPARATOR.join(format_doc(i, d) for i, d in enumerate(demo.docs, 1))
    # HELMET's QAMPARI demos put the answer one line after the documents, ASQA's two.
    gap = "\n" if dataset == "qampari" else SEPARATOR
    return f"{_block(instruction, demo.question, docs)}{gap}{ANSWER_PREFIX} {demo.answer}"


def cited_reference(groups: Sequence[Sequence[str]], shown: Sequence[str], dataset: str) -> str:
    """A perfect answer: each group's first alias followed by the number of the first
    shown document (their texts in `shown`) whose normalised text holds one of its
    normalised aliases; ASQA as one sentence per sub-question, QAMPARI as a
    comma-separated list."""
    holders = first_holders(groups, shown)
    parts = [
        group[0] + (f" [{index + 1}]" if index is not None else "")
        for group, index in zip(groups, holders, strict=True)
    ]
    if dataset == "qampari":
        return ", ".join(parts) + "."
    return " ".join(part + "." for part in parts)


@dataclass(frozen=True)
class _Loaded:
    rows: tuple[AlceRow, ...]
    demos: tuple[Demo, ...]
    problems: tuple[DataProblem, ...]


class AlceCite(Task):
    category: ClassVar[str] = "cite"
    suite: ClassVar[str] = "helmet"
    needs_data: ClassVar[bool] = True
    param_specs: ClassVar[tuple[ParamSpec, ...]] = (
        int_param(
            "shots", "solved questions (with their own documents) before the asked one", 0, 4
        ),
    )

    def __init__(self, name: str, dataset: str, files: AlceFiles, description: str) -> None:
        super().__init__(name, description, MAX_NEW_TOKENS, ANSWER_PREFIX, {"shots": SHOTS})
        self.dataset = dataset
        self.files = files
        self.scorer = f"helmet_alce_{dataset}"

    def unavailable(self) -> str | None:
        if self.data is None:
            return (
                "no data: pass --data DIR or set data_dir in lctui.toml (get HELMET's data "
                f"release from {RELEASE_URL}, and copy {self.files.demos} from {DEMOS_URL} "
                "into DIR/prompts/)"
            )
        if self.data.locate(self.files.test) is None:
            return (
                f"{self.data.label} has no {self.files.test}; get HELMET's data release "
                f"from {RELEASE_URL}"
            )
        if self.data.locate(self.files.demos) is None:
            return (
                f"{self.data.label} has no {self.files.demos} (the demonstrations, in "
                f"HELMET's repository, not its data release); copy it from {DEMOS_URL}"
            )
        return None

    def _load(self) -> _Loaded:
        reason = self.unavailable()
        if reason is not None:
            raise UserInputError(f"task {self.name}: {reason}")
        assert self.data is not None
        test_file = self.data.locate(self.files.test)
        demo_file = self.data.locate(self.files.demos)
        assert test_file is not None and demo_file is not None
        loaded = read_records(test_file)
        rows, row_problems = parse_rows(loaded, self.dataset)
        demos, demo_problems = read_demos(demo_file)
        if not rows:
            raise UserInputError(f"task {self.name}: {test_file} holds no usable question")
        return _Loaded(rows, demos, (*loaded.problems, *row_problems, *demo_problems))

    def data_problems(self) -> tuple[DataProblem, ...]:
        if self.unavailable() is not None:
            return ()
        return self._load().problems

    def data_files(self) -> tuple[Path, ...]:
        if self.data is None:
            return ()
        found = (self.data.locate(path) for path in (self.files.test, self.files.demos))
        return tuple(path for path in found if path is not None)

    def data_reach(self, lengths: Sequence[int]) -> Reach:
        """A question fills a length when it brings as many documents as HELMET shows
        there (30 at 8K ... 700 at 128K; proportionally more beyond)."""
        units = [len(row.docs) for row in self._load().rows]
        how = (
            "a question fills a length when it has the documents HELMET shows there "
            "(8, 30, 75, 165, 345, 700 at 4K-128K)"
        )
        return by_unit_count(lengths, units, HELMET_DOCS, how)

    def build(self, rng: random.Random, budget: Budget, tokenizer: Tokenizer, index: int) -> Draft:
        loaded = self._load()
        order = row_order("helmet-alce-rows", self.files.test, len(loaded.rows), budget.seed)
        row = loaded.rows[order[index % len(loaded.rows)]]
        demos = choose_alce_demos(row, loaded.demos, int(self.params["shots"]))
        instruction = INSTRUCTIONS[self.dataset]
        preamble = "".join(_demo_text(instruction, d, self.dataset) + DEMO_SEPARATOR for d in demos)
        preamble += f"{instruction}{SEPARATOR}{QUESTION_LABEL} {row.question}{SEPARATOR}"
        texts: list[str] = []  # the documents as listed, formatted as far as counted

        def units(start: int, end: int) -> list[str]:
            texts.extend(format_doc(i + 1, row.docs[i]) for i in range(start, end))
            # Each counted with the separator after it, as it reads in the list.
            return [text + SEPARATOR for text in texts[start:end]]

        # Counted only as far as the fit reads (a row's 2,000 documents fill 128K twice),
        # and not kept: a row's numbered documents are its own.
        prefix = CountedPrefix(len(row.docs), units, tokenizer.count_batch)
        fixed = tokenizer.count(preamble)

        # A tail's documents: how many whole ones stay before it, and the cut ones it
        # holds (row index, text), keyed by (whole documents asked for, tail text).
        tails: dict[tuple[int, str], tuple[int, list[tuple[int, str]]]] = {}

        def arrange(n: int, tail: str) -> tuple[list[str], list[int]]:
            """The document texts of the prompt and the row index of each."""
            kept, parts = tails[n, tail] if tail else (n, [])
            assert kept <= len(texts)  # the fit read (and so formatted) that many
            indices = list(range(kept)) + [i for i, _ in parts]
            return texts[:kept] + [t for _, t in parts], indices

        def build_text(n: int, tail: str) -> str:
            return preamble + SEPARATOR.join(arrange(n, tail)[0])

        def cut(number: int, index: int, room: int) -> tuple[str, int]:
            head = _doc_head(number, row.docs[index])
            words = row.docs[index].text.split(" ")
            text, tokens = longest_fitting(
                lambda k: SEPARATOR + head + " ".join(words[:k]), len(words), room, tokenizer
            )
            return (text[len(SEPARATOR) :], tokens) if text else ("", 0)

        def partial(n: int, room: int) -> tuple[str, int]:
            text, tokens = cut(n + 1, n, room)
            if text:
                tails[n, text] = (n, [(n, text)])
                return text, tokens
            if n == 0:
                return "", 0
            # Too small a gap for the next document's number and title: the last whole
            # document is cut short to make room for them and the next one's first words.
            last = prefix[n] - prefix[n - 1]
            need = tokenizer.count(SEPARATOR + _doc_head(n + 1, row.docs[n])) + 2
            first, first_tokens = cut(n, n - 1, room + last - need)
            if not first:
                return "", 0
            second, second_tokens = cut(n + 1, n, room + last - first_tokens)
            if not second:
                return "", 0
            joined = first + SEPARATOR + second
            tails[n, joined] = (n - 1, [(n - 1, first), (n, second)])
            return joined, first_tokens + second_tokens - last

        fitted = fit_to_budget(
            build_text, prefix, fixed, budget, tokenizer, tail=partial, what="document list"
        )
        items, indices = arrange(fitted.units, fitted.tail)
        shown_docs = [row.docs[i] for i in indices]
        spans: list[Span] = []
        documents: list[list[int]] = []
        start = 0
        for number, (text, doc) in enumerate(zip(items, shown_docs, strict=True), 1):
            title_start = start + _TITLE_AT + len(str(number))
            text_start = title_start + len(doc.title) + len(_HEAD_END)
            spans.append(Span(start, start + len(text), "passage", str(number)))
            documents.append(
                [title_start, title_start + len(doc.title), text_start, start + len(text)]
            )
            start += len(text) + len(SEPARATOR)
        gold = tuple(group[0] for group in row.groups)
        context = SEPARATOR.join(items)
        shown = [context[x0:x1] for _, _, x0, x1 in documents]
        reference = cited_reference(row.groups, shown, self.dataset)
        return Draft(
            preamble=preamble,
            context=context,
            question="",
            gold=gold,
            tokens=fitted.tokens,
            spans=tuple(spans),
            metadata={
                "scorer": self.scorer,
                "answer_groups": [list(g) for g in row.groups],
                # The reference answer: every group's first alias, each citing the first
                # document that holds one of its aliases (when one does).
                "gold_mode": "exact",
                "reference": reference,
                "citations": self.dataset,  # what `lctui cite-score` reads
                "documents": documents,
                "asked_text": row.question,
                "data_file": self.files.test,
                "data_line": row.line,
                "row_key": row.key,
                "num_docs": len(items),
                "cut_doc": bool(fitted.tail),  # the last document (or two) are cut short
                # The row ran out of documents before the length was reached.
                "docs_exhausted": fitted.units == len(row.docs),
                "demo_questions": [d.question for d in demos],
            },
        )


class AlceAsqa(AlceCite):
    metric: ClassVar[str] = "str_em"


class AlceQampari(AlceCite):
    metric: ClassVar[str] = "qampari_rec_top5"


def alce_tasks() -> list[Task]:
    kinds = {"asqa": AlceAsqa, "qampari": AlceQampari}
    return [kinds[ds](name, ds, files, text) for name, (ds, files, text) in DATASETS.items()]
