"""RULER's two QA tasks: qa_1 (SQuAD) and qa_2 (HotpotQA), in our own wording, on the
user's copy of the datasets (qa_data.py).

The structure is RULER's (scripts/data/synthetic/qa.py, constants.py; NVIDIA/RULER
c3f5e3b): an instruction, the documents as `Document i:` blocks, the instruction again,
the question and the answer prefix; 32 new tokens reserved; string_match_part over all
accepted answers. Example i asks the dataset's i-th question in file order (after the
last, the first again), as RULER does. Its documents: the question's own first (SQuAD:
its paragraph; HotpotQA: its ten paragraphs), then related ones (SQuAD: the other
paragraphs of its article, a random subset when not all fit), then random other
documents of the file; then the list is shuffled with `random.Random(42 + seed)`, one
seed for every question as in RULER, so at a given number of documents every question's
own documents land at the same places (RULER's seed 42 at the run's seed 0).

Where RULER searches the number of documents by re-tokenising the whole prompt, lctui
tokenises each document once per tokenizer (tasks/budget.py's piece cache), picks the
count on prefix sums and verifies once; the gap whole documents leave under the length
is filled with the start of one more document, listed last, so every prompt lands
within the synthetic tasks' tolerance. The extra documents are drawn with the example's
own seed (RULER draws every example from one stream per run).
"""

from __future__ import annotations

import itertools
import math
import random
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from lctui.core.errors import UserInputError
from lctui.core.protocols import Tokenizer
from lctui.core.types import Span
from lctui.suites.ruler.tasks.qa_data import (
    HOTPOTQA_FILES,
    HOTPOTQA_ORIGINAL,
    HOTPOTQA_REPO,
    HOTPOTQA_REVISION,
    HOTPOTQA_URLS,
    SQUAD_FILES,
    SQUAD_URL,
    Parser,
    QACorpus,
    QAQuestion,
    parse_hotpotqa,
    parse_squad,
    read_corpus,
)
from lctui.tasks.base import Draft, Task
from lctui.tasks.budget import Budget, fit_to_budget, longest_fitting, piece_counts, prefix_sums
from lctui.tasks.datasets import HUB_CACHE_ONLY, DataProblem, DataSource
from lctui.tasks.reach import Reach, estimate_tokens, up_to

MAX_NEW_TOKENS = 32
RULER_SEED = 42  # RULER's --random_seed default: the run's seed s shuffles as RULER's 42 + s
SEPARATOR = "\n\n"
INSTRUCTION = (
    "Answer the question after the documents, using what the documents say. Reply with "
    "the answer alone and nothing else."
)
DOCUMENTS_HEADING = "Here are the documents."
QUESTION_LABEL = "Question:"
ANSWER_PREFIX = "Answer:"
# Documents drawn beyond the estimate of what fills the length, so the fit can step up
# when the whole text counts fewer tokens than its parts' sum.
_SPARE_DOCUMENTS = 4


HEADING_WORD = "Document"


def document_heading(number: int) -> str:
    return f"{HEADING_WORD} {number}:\n"


@dataclass(frozen=True)
class QADataset:
    """Where a dataset's file is looked for and how it is read."""

    title: str
    files: tuple[str, ...]  # release paths, in the order they are looked for
    parse: Parser
    where: str  # how to get it


SQUAD = QADataset(
    "SQuAD v2.0 dev",
    SQUAD_FILES,
    parse_squad,
    f"download {SQUAD_URL} and save it as DIR/ruler/squad.json (RULER's name; "
    "dev-v2.0.json is found too), then pass --data DIR",
)
HOTPOTQA = QADataset(
    "HotpotQA dev distractor",
    HOTPOTQA_FILES,
    parse_hotpotqa,
    f"download {HOTPOTQA_URLS[0]} (or {HOTPOTQA_URLS[1]}) and save it as "
    "DIR/ruler/hotpotqa.json (RULER's name; the original name is found too), then pass "
    f"--data DIR; or fetch it into the hub cache: hf download {HOTPOTQA_REPO} "
    f"{HOTPOTQA_ORIGINAL} --repo-type dataset --revision {HOTPOTQA_REVISION}",
)


class RulerQA(Task):
    """qa_1 or qa_2: the dataset's i-th question among documents that fill the length."""

    category: ClassVar[str] = "qa"
    suite: ClassVar[str] = "ruler"
    metric: ClassVar[str] = "string_match_part"
    needs_data: ClassVar[bool] = True

    def __init__(self, name: str, dataset: QADataset, description: str) -> None:
        super().__init__(name, description, MAX_NEW_TOKENS, ANSWER_PREFIX, {})
        self.dataset = dataset

    # Data ---------------------------------------------------------------------------

    @property
    def source(self) -> DataSource:
        """Where the file is looked for: `--data`, else the hub cache (HotpotQA's copy)."""
        return self.data if self.data is not None else HUB_CACHE_ONLY

    def release_path(self) -> str | None:
        """The first of the dataset's file names that the source has."""
        for release in self.dataset.files:
            if self.source.locate(release) is not None:
                return release
        return None

    def unavailable(self) -> str | None:
        if self.release_path() is not None:
            return None
        label = self.source.label if self.data is not None else "no --data (and the hub cache)"
        return f"{label}: no {self.dataset.title} file; {self.dataset.where}"

    def corpus(self) -> tuple[str, QACorpus]:
        """The release path read and its corpus; a UserInputError when missing or empty."""
        release = self.release_path()
        found = self.source.locate(release) if release is not None else None
        if release is None or found is None:
            raise UserInputError(f"task {self.name}: {self.unavailable()}")
        corpus = read_corpus(Path(found), self.dataset.parse)
        if not corpus.questions:
            raise UserInputError(
                f"task {self.name}: {found} holds no usable {self.dataset.title} question "
                f"({len(corpus.problems)} entries skipped; lctui tasks --data DIR lists them)"
            )
        return release, corpus

    def data_problems(self) -> tuple[DataProblem, ...]:
        release = self.release_path()
        found = self.source.locate(release) if release is not None else None
        if found is None:
            return ()
        return read_corpus(Path(found), self.dataset.parse).problems

    def data_files(self) -> tuple[Path, ...]:
        release = self.release_path()
        found = self.source.locate(release) if release is not None else None
        return () if found is None else (Path(found),)

    def data_reach(self, lengths: Sequence[int]) -> Reach:
        """Every question fills a length its file's documents together fill (estimated
        from characters); beyond, the prompt lists them all and is shorter."""
        _, corpus = self.corpus()
        tokens, measured = estimate_tokens(corpus.documents)
        total = int(sum(tokens))
        how = (
            f"a question fills a length up to what the file's {len(corpus.documents):,} "
            f"documents hold together, about {total:,} tokens at {measured}"
        )
        return up_to(lengths, total, len(corpus.questions), how)

    def _identity(self, length: int, seed: int, index: int, tokenizer: str) -> tuple[object, ...]:
        # Which file the questions come from is part of what the example is.
        return (*super()._identity(length, seed, index, tokenizer), self.release_path())

    # Example ------------------------------------------------------------------------

    def build(self, rng: random.Random, budget: Budget, tokenizer: Tokenizer, index: int) -> Draft:
        release, corpus = self.corpus()
        number = index % len(corpus.questions)
        asked = corpus.questions[number]
        docs = corpus.documents
        preamble = f"{INSTRUCTION}{SEPARATOR}{DOCUMENTS_HEADING}{SEPARATOR}"
        asking = f"{QUESTION_LABEL} {asked.question}"
        question = f"{SEPARATOR}{INSTRUCTION}{SEPARATOR}{asking}"
        counts = piece_counts(tokenizer)
        own = list(asked.documents)

        def unit_tokens(ids: Sequence[int], first: int) -> list[int]:
            # A document is counted with the blank line and the word that follow it in the
            # list: how a tokenizer splits "\n\n" depends on the next word (o200k joins
            # ".\n\n" into one token, SmolLM2's splits it before a word), and the next
            # word is always the heading's first. The rest of its own heading (" 12:\n")
            # is counted apart, once per number.
            texts = counts.counts([docs[i] + SEPARATOR + HEADING_WORD for i in ids])
            numbers = counts.counts(
                [document_heading(first + k)[len(HEADING_WORD) :] for k in range(len(ids))]
            )
            return [a + b for a, b in zip(texts, numbers, strict=True)]

        fixed = tokenizer.count(preamble + question) + sum(unit_tokens(own, 1))
        related = [i for i in asked.related if i not in asked.documents]
        stream = _extra_documents(rng, related, set(own), len(docs))
        drawn = _draw(
            stream, budget.target - fixed, lambda ids, at: unit_tokens(ids, at + 1 + len(own))
        )
        extras = drawn.ids
        shuffle_seed = RULER_SEED + budget.seed

        def listed(n: int) -> list[int]:
            # RULER's order before its shuffle: own, related (all in the article's order,
            # or a random subset), then the others drawn.
            chosen = related + extras[len(related) : n] if n >= len(related) else extras[:n]
            return shuffled([*own, *chosen], shuffle_seed)

        def context_of(n: int, tail: str) -> str:
            blocks = [document_heading(p) + docs[d] for p, d in enumerate(listed(n), 1)]
            return SEPARATOR.join([*blocks, tail] if tail else blocks)

        def partial(n: int, room: int) -> tuple[str, int]:
            head = SEPARATOR + document_heading(len(own) + n + 1)
            doc = docs[extras[n]]
            words = doc.split(" ")
            text, tokens = longest_fitting(
                lambda k: head + " ".join(words[:k]), len(words), room, tokenizer
            )
            if not text:
                # Not even the first word fits (a HotpotQA title runs into its first
                # sentence): the start of the document by characters fills the gap.
                text, tokens = longest_fitting(lambda k: head + doc[:k], len(doc), room, tokenizer)
            return (text[len(SEPARATOR) :], tokens) if text else ("", 0)

        fitted = fit_to_budget(
            lambda n, tail: preamble + context_of(n, tail) + question,
            prefix_sums(drawn.tokens),
            fixed,
            budget,
            tokenizer,
            tail=partial,
            what="document list",
        )
        order = listed(fitted.units)
        context = context_of(fitted.units, fitted.tail)
        total = len(order) + bool(fitted.tail)
        # Longest first, so an answer that holds a shorter one is found whole.
        answers = "|".join(re.escape(a) for a in sorted(asked.answers, key=len, reverse=True))
        spans, positions = _document_spans(order, fitted.tail, docs, asked, re.compile(answers))
        depths = [round(100.0 * p / max(1, total - 1), 2) for p in positions]
        return Draft(
            preamble=preamble,
            context=context,
            question=question,
            gold=asked.answers,
            tokens=fitted.tokens,
            depth=round(sum(depths) / len(depths), 2),
            spans=spans,
            metadata={
                "value_pattern": f"(?i){answers}",
                "gold_mode": "any",  # accepted answers: string_match_part takes the best
                "asked_text": asking,
                "data_file": release,
                "data_line": asked.line,
                "question_key": asked.key,
                "question_number": number,
                "num_documents": total,
                "cut_document": bool(fitted.tail),
                # The file ran out of documents before the length was reached.
                "documents_exhausted": drawn.ended and fitted.units == len(extras),
                "gold_documents": [p + 1 for p in positions],
                "question_documents": sorted(order.index(d) + 1 for d in own),
                "gold_depths": depths,
                "shuffle_seed": shuffle_seed,
            },
        )


def shuffled(items: Sequence[int], seed: int) -> list[int]:
    """`items` in the order `random.Random(seed).shuffle` leaves a list of their length
    (RULER shuffles every question's documents with the same seed)."""
    out = list(items)
    random.Random(seed).shuffle(out)
    return out


@dataclass(frozen=True)
class _Drawn:
    ids: list[int]
    tokens: list[int]  # each document's count with its heading and separator
    ended: bool  # the file has no other document


def _draw(
    stream: Iterator[int], room: int, count: Callable[[Sequence[int], int], list[int]]
) -> _Drawn:
    """Documents from `stream` until their tokens pass `room`, and a few more."""
    ids: list[int] = []
    tokens: list[int] = []
    total = 0

    def take(k: int) -> int:
        batch = list(itertools.islice(stream, k))
        tokens.extend(count(batch, len(ids)))
        ids.extend(batch)
        return len(batch)

    ended = False
    while total <= room and not ended:
        average = total / len(ids) if ids else 100.0
        ended = take(max(1, math.ceil((room - total) / max(1.0, average)))) == 0
        total = sum(tokens)
    if not ended:
        ended = take(_SPARE_DOCUMENTS) < _SPARE_DOCUMENTS
    return _Drawn(ids, tokens, ended)


def _extra_documents(
    rng: random.Random, related: Sequence[int], own: set[int], size: int
) -> Iterator[int]:
    """The documents after the question's own, in the order they are added: the related
    ones in a random order, then the others of the file at random, each once."""
    first = list(related)
    rng.shuffle(first)
    yield from first
    taken = own | set(related)
    # Rejection draws while most documents are free (HotpotQA has 66K: a shuffle of all
    # per example would cost more than the example), then a shuffle of the rest.
    while 2 * len(taken) < size:
        pick = rng.randrange(size)
        if pick not in taken:
            taken.add(pick)
            yield pick
    rest = [i for i in range(size) if i not in taken]
    rng.shuffle(rest)
    yield from rest


def _document_spans(
    order: Sequence[int],
    tail: str,
    docs: Sequence[str],
    asked: QAQuestion,
    answers: re.Pattern[str],
) -> tuple[tuple[Span, ...], list[int]]:
    """The spans of the listed documents, and the answer documents' positions (0-based).

    Every document gets a "passage" span labelled with its number (the inspector's list);
    the documents that hold the answer a "needle" span (as HELMET RAG's gold passage), and
    the answer's occurrences in them "gold" spans (the inspector's `g`); the question's
    other own documents (HotpotQA's eight distractors) a "distractor" span.
    """
    spans: list[Span] = []
    positions: list[int] = []
    start = 0
    for position, doc in enumerate(order):
        heading = len(document_heading(position + 1))
        end = start + heading + len(docs[doc])
        spans.append(Span(start, end, "passage", str(position + 1)))
        if doc in asked.supporting:
            spans.append(Span(start, end, "needle", "answer document"))
            at = start + heading
            spans.extend(
                Span(at + m.start(), at + m.end(), "gold", "answer")
                for m in answers.finditer(docs[doc])
            )
            positions.append(position)
        elif doc in asked.documents:
            spans.append(Span(start, end, "distractor", "the question's distractor"))
        start = end + len(SEPARATOR)
    if tail:
        spans.append(Span(start, start + len(tail), "passage", str(len(order) + 1)))
    return tuple(spans), positions


def ruler_qa_tasks() -> list[Task]:
    return [
        RulerQA(
            "qa_1",
            SQUAD,
            "SQuAD: answer a question from its paragraph among other documents (RULER QA)",
        ),
        RulerQA(
            "qa_2",
            HOTPOTQA,
            "HotpotQA: answer a two-hop question from its paragraphs among other documents "
            "(RULER QA)",
        ),
    ]
