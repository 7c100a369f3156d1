"""HELMET's RAG category: answer a question from retrieved passages (NQ, TriviaQA,
HotpotQA, PopQA), in our own wording, on the user's copy of HELMET's KILT files.

The structure is HELMET's: an instruction, two solved questions with their own
passages, then the passages of the asked question as `Document (Title: T): text`
blocks, the question and the answer prefix; 20 new tokens; SubEM.

Where HELMET picks a file per length (k = 50 ... 1000 passages), lctui fits the number
of passages to the length from the largest file present: the row's passages are
units, each tokenised once per tokenizer (tasks/budget.py's piece cache), the first n
negatives are kept in the file's order, and the gold passage sits at the same relative
position as in the file (its depth, recorded as the example's depth). The gap under
the length that whole passages leave is filled with the start of the next passage,
so every prompt lands within the synthetic tasks' tolerance.
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass
from typing import ClassVar

from lctui.core.errors import UserInputError
from lctui.core.protocols import Tokenizer
from lctui.core.types import ParamSpec, Span
from lctui.tasks.base import Draft, Task
from lctui.tasks.budget import Budget, fit_to_budget, longest_fitting, piece_counts, prefix_sums
from lctui.tasks.datasets import DataProblem, read_records
from lctui.tasks.helmet.kilt import (
    Passage,
    QARow,
    choose_demos,
    passage_spans,
    read_rows,
    row_order,
)
from lctui.tasks.helmet.release import ReleaseTask
from lctui.tasks.params import int_param

# The passage counts of HELMET's RAG files, largest first: the largest present is the pool.
FILE_PASSAGES = (1000, 440, 220, 105, 50, 20)
DEMO_PASSAGES = 3
SHOTS = 2
MAX_NEW_TOKENS = 20
SEPARATOR = "\n\n"

INSTRUCTION = (
    "Read the documents below and answer the question after them in a few words, taking "
    "the answer from the documents. Give only the answer on one line that starts with "
    "'Answer:'."
)
QUESTION_LABEL = "Question:"
ANSWER_PREFIX = "Answer:"


@dataclass(frozen=True)
class KiltFiles:
    """Release file names of one dataset: `{test}_k{K}_dep{D}.jsonl` and its demo file."""

    test: str
    demo: str
    depths: int
    # HELMET runs PopQA as kilt_popqa_3: only rows with log10(s_pop) < 3 (test and demos).
    max_log_popularity: float | None = None

    def keeps(self, row: QARow) -> bool:
        limit = self.max_log_popularity
        return limit is None or row.popularity is None or math.log10(row.popularity) < limit

    def test_path(self, passages: int) -> str:
        return f"kilt/{self.test}_k{passages}_dep{self.depths}.jsonl"

    @property
    def demo_path(self) -> str:
        return f"kilt/{self.demo}_k{DEMO_PASSAGES}_dep{self.depths}.jsonl"


DATASETS: dict[str, tuple[KiltFiles, str]] = {
    "kilt_nq": (
        KiltFiles("nq-dev-multikilt_1000", "nq-train-multikilt_1000", 6),
        "Natural Questions",
    ),
    "kilt_triviaqa": (
        KiltFiles("triviaqa-dev-multikilt_1000", "triviaqa-train-multikilt_1000", 6),
        "TriviaQA",
    ),
    "kilt_hotpotqa": (
        KiltFiles("hotpotqa-dev-multikilt_1000", "hotpotqa-train-multikilt_1000", 3),
        "HotpotQA",
    ),
    # PopQA has one split: its demos come from the test rows' k3 file, the asked row excluded.
    "kilt_popqa": (KiltFiles("popqa_test_1000", "popqa_test_1000", 6, 3.0), "PopQA"),
}


def format_passage(passage: Passage) -> str:
    return f"Document (Title: {passage.title}): {passage.text}"


def _demo_text(demo: QARow) -> str:
    passages = SEPARATOR.join(format_passage(p) for p in demo.passages)
    return (
        f"{passages}{SEPARATOR}{QUESTION_LABEL} {demo.question}\n{ANSWER_PREFIX} {demo.answers[0]}"
    )


@dataclass(frozen=True)
class _Loaded:
    test_path: str
    rows: tuple[QARow, ...]
    demos: tuple[QARow, ...]
    problems: tuple[DataProblem, ...]


class KiltRag(ReleaseTask):
    category: ClassVar[str] = "rag"
    metric: ClassVar[str] = "subem"
    file_counts: ClassVar[tuple[int, ...]] = FILE_PASSAGES
    prompt_format: ClassVar[str] = "plain"  # HELMET: use_chat_template False
    param_specs: ClassVar[tuple[ParamSpec, ...]] = (
        int_param("shots", "solved questions (with their own passages) before the asked one", 0, 5),
    )

    def __init__(self, name: str, files: KiltFiles, title: str) -> None:
        super().__init__(
            name,
            f"{title}: answer a question from retrieved passages (HELMET RAG)",
            MAX_NEW_TOKENS,
            ANSWER_PREFIX,
            {"shots": SHOTS},
        )
        self.files = files

    def test_path(self, count: int) -> str:
        return self.files.test_path(count)

    @property
    def demo_path(self) -> str:
        return self.files.demo_path

    def load_problems(self) -> _Loaded:
        return self._load()

    def _load(self) -> _Loaded:
        test_release, test_file, demo_file = self.release_files()
        loaded_test, loaded_demo = read_records(test_file), read_records(demo_file)
        all_rows, row_problems = read_rows(loaded_test)
        all_demos, demo_problems = read_rows(loaded_demo)
        rows = tuple(r for r in all_rows if self.files.keeps(r))
        demos = tuple(d for d in all_demos if self.files.keeps(d))
        problems = (*loaded_test.problems, *row_problems, *loaded_demo.problems, *demo_problems)
        if not rows:
            raise UserInputError(f"task {self.name}: {test_file} holds no usable question")
        return _Loaded(test_release, rows, demos, tuple(problems))

    def build(self, rng: random.Random, budget: Budget, tokenizer: Tokenizer, index: int) -> Draft:
        loaded = self._load()
        order = row_order("helmet-rag-rows", loaded.test_path, len(loaded.rows), budget.seed)
        row = loaded.rows[order[index % len(loaded.rows)]]
        shots = int(self.params["shots"])
        demos = choose_demos(row, loaded.demos, shots, self.files.test == self.files.demo)
        preamble = INSTRUCTION + SEPARATOR
        if demos:
            preamble += SEPARATOR.join(_demo_text(d) for d in demos) + SEPARATOR
        question = f"{SEPARATOR}{QUESTION_LABEL} {row.question}"
        gold_at = 0 if row.gold is None else row.gold
        gold_text = format_passage(row.passages[gold_at])
        others = [p for i, p in enumerate(row.passages) if i != gold_at]
        share = gold_at / (len(row.passages) - 1) if len(row.passages) > 1 else 0.0
        counts = piece_counts(tokenizer)
        other_texts = [format_passage(p) for p in others]
        # Each passage is counted with the separator after it, as it reads in the list:
        # BPE merges its last period with the blank line (".\n\n" is one token in
        # o200k), so these counts sum to the list's count and the first fit lands.
        prefix = prefix_sums(counts.counts([t + SEPARATOR for t in other_texts]))
        fixed = tokenizer.count(preamble + question) + counts.counts([gold_text + SEPARATOR])[0]

        def arrange(n: int, tail: str) -> tuple[list[str], int]:
            items = other_texts[:n] + ([tail] if tail else [])
            at = round(share * len(items))
            return [*items[:at], gold_text, *items[at:]], at

        def build_text(n: int, tail: str) -> str:
            return preamble + SEPARATOR.join(arrange(n, tail)[0]) + question

        def partial(n: int, room: int) -> tuple[str, int]:
            head = f"Document (Title: {others[n].title}): "
            words = others[n].text.split(" ")
            text, tokens = longest_fitting(
                lambda k: SEPARATOR + head + " ".join(words[:k]), len(words), room, tokenizer
            )
            return (text[len(SEPARATOR) :], tokens) if text else ("", 0)

        fitted = fit_to_budget(
            build_text, prefix, fixed, budget, tokenizer, tail=partial, what="passage list"
        )
        items, at = arrange(fitted.units, fitted.tail)
        context = SEPARATOR.join(items)
        start = sum(len(t) + len(SEPARATOR) for t in items[:at])
        gold_span = Span(start, start + len(gold_text), "needle", "gold passage")
        titles = [p.title for p in others[: fitted.units + bool(fitted.tail)]]
        titles.insert(at, row.passages[gold_at].title)
        listed = passage_spans(items, titles, SEPARATOR)
        spans = (*listed, gold_span) if row.gold is not None else listed
        # Longest first, so an answer that holds a shorter one is found whole.
        answers_pattern = "|".join(re.escape(a) for a in sorted(row.answers, key=len, reverse=True))
        return Draft(
            preamble=preamble,
            context=context,
            question=question,
            gold=row.answers,
            tokens=fitted.tokens,
            depth=round(100.0 * at / max(1, len(items) - 1), 2),
            spans=spans,
            metadata={
                "value_pattern": f"(?i){answers_pattern}",
                "gold_mode": "any",  # accepted answers: SubEM takes the best of them
                "asked_text": question,
                "data_file": loaded.test_path,
                "data_line": row.line,
                "row_key": row.key,
                "num_passages": len(items),
                "cut_passage": bool(fitted.tail),
                # The row ran out of passages before the length was reached (a file
                # with fewer passages than the length needs): the prompt is shorter.
                "passages_exhausted": fitted.units == len(others),
                "gold_position": at if row.gold is not None else None,
                "gold_found": row.gold is not None,
                "demo_keys": [d.key for d in demos],
            },
        )


def rag_tasks() -> list[Task]:
    return [KiltRag(name, files, title) for name, (files, title) in DATASETS.items()]
