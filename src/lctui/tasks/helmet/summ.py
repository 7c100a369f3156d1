"""HELMET's summarization category: summarise a book (InfiniteBench Sum) or the documents
of a civil rights lawsuit (Multi-LexSum), in our own wording.

The structure is HELMET's: an instruction, two demonstrations (InfiniteBench: summaries
of other books, each book replaced by a placeholder; Multi-LexSum: short summaries of
training cases, without documents), the document, a closing request and the answer
prefix `Summary:`; 1200 and 400 new tokens. The document is cut at its end (never the
instruction) so the prompt fills the length: its words are units tokenised once per
tokenizer (tasks/budget.py's piece cache), the cut found on their prefix sums and
checked with one count of the prompt, and a cut document ends with a marker saying so.
Metadata `truncated` and `document_tokens` (kept, whole: sums of the word counts).

Test rows: those whose document has at least `min_document_tokens` tokens (HELMET: 65,536 Llama-2
tokens; here the run's tokenizer; a document's words are counted only until they reach
the bound, a book's count is several times it), in the order of numpy's
default_rng(seed).permutation (what HELMET's `shuffle(seed=42)` draws; at --seed 42 the
first 100 are HELMET's).
HELMET leaves a Multi-LexSum pool of 100 or fewer in file order; lctui always shuffles,
so the seed picks the cases. Demonstrations: InfiniteBench, the other rows of the split in the order
of the same permutation; Multi-LexSum, training cases drawn per case with its id's
hash (HELMET draws them unseeded, so its choice cannot be reproduced).

Scoring: ROUGE-L F1 against the reference summary (`helmet_rouge`), and metadata for
`lctui judge` ("judge": "summ", `key_points`, `reference_summary`) where the key-point
file of HELMET's release is present.
"""

from __future__ import annotations

import functools
import random
import re
import sys
import threading
from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from lctui.core.errors import UserInputError
from lctui.core.protocols import Tokenizer
from lctui.core.types import ParamSpec, Span
from lctui.tasks.base import Draft, Task
from lctui.tasks.budget import Budget, fit_to_budget, piece_counts, prefix_sums
from lctui.tasks.datasets import HUB_CACHE_ONLY, DataProblem, DataSource, hub_path, read_records
from lctui.tasks.helmet.kilt import choose_demos, shuffled
from lctui.tasks.helmet.summ_data import (
    INFBENCH_FILE,
    INFBENCH_KEY_POINTS,
    INFBENCH_REPO,
    LEXSUM_CONFIG,
    LEXSUM_KEY_POINTS,
    LEXSUM_REPO,
    LEXSUM_REVISION,
    SummData,
    SummRow,
    file_key,
    infbench_rows,
    lexsum_rows,
    lexsum_shard,
    locate_lexsum,
    parsed_once,
    read_key_points,
)
from lctui.tasks.params import int_param
from lctui.tasks.reach import Reach, by_document, estimate_tokens

SHOTS = 2
MIN_TOKENS = 65536  # HELMET keeps documents of at least this many tokens
SEPARATOR = "\n\n"
ANSWER_PREFIX = "Summary:"
# Ends a cut document, so the model knows the text does not stop there.
CUT_MARKER = " [... the document goes on; the rest is not shown]"
_WORDS = re.compile(r"\s*\S+")


@functools.lru_cache(maxsize=4)
def document_pieces(document: str) -> tuple[str, ...]:
    """A document's words, each with the whitespace before it: the units of the cut."""
    return tuple(_WORDS.findall(document))


# Characters of a document counted at a time while its count is below a bound.
_READ_CHARS = 1 << 16
# A word's end (where a document can be cut into words without changing any).
_WORD_END = re.compile(r"\S(?=\s)")


@dataclass
class _Count:
    """How far a document's words have been counted: up to `read` characters."""

    read: int = 0
    tokens: int = 0


_COUNTS: dict[tuple[str, str, int, int], _Count] = {}
_COUNTS_LOCK = threading.Lock()


def document_tokens(row: SummRow, tokenizer: Tokenizer) -> int:
    """The whole document's tokens (the sum of its word counts), once per tokenizer."""
    return tokens_up_to(row, tokenizer, sys.maxsize)


def tokens_up_to(row: SummRow, tokenizer: Tokenizer, bound: int) -> int:
    """The document's tokens (the sum of its word counts) counted until they reach
    `bound`: at least `bound` when the document has that many, else its whole count.
    Counted once per tokenizer (a later, higher bound goes on from where it stopped)."""
    key = (tokenizer.name, row.path, row.line, len(row.document))
    document = row.document
    with _COUNTS_LOCK:  # examples are built in threads: a document is counted once
        count = _COUNTS.setdefault(key, _Count())
        while count.tokens < bound and count.read < len(document):
            # Cut after a word, before whitespace: the words on both sides are the
            # document's own (document_pieces).
            end = _WORD_END.search(document, count.read + _READ_CHARS - 1)
            stop = end.end() if end is not None else len(document)
            pieces = _WORDS.findall(document, count.read, stop)
            count.tokens += sum(piece_counts(tokenizer).counts(pieces))
            count.read = stop
        return count.tokens


class SummTask(Task):
    category: ClassVar[str] = "summ"
    suite: ClassVar[str] = "helmet"
    metric: ClassVar[str] = "rougeL_f1"
    needs_data: ClassVar[bool] = True
    param_specs: ClassVar[tuple[ParamSpec, ...]] = (
        int_param("shots", "example summaries before the document", 0, 5),
        int_param(
            "min_document_tokens",
            "documents shorter than this (the run's tokenizer) are not asked",
            0,
            1_000_000,
        ),
    )
    instruction: ClassVar[str]
    closing: ClassVar[str]
    label: ClassVar[str]  # what the inspector calls the document
    # The `min_document_tokens` a new task starts with (tests lower it for their short fixtures).
    default_min_document_tokens: ClassVar[int] = MIN_TOKENS

    def __init__(self, name: str, description: str, max_new_tokens: int) -> None:
        super().__init__(
            name,
            description,
            max_new_tokens,
            ANSWER_PREFIX,
            {"shots": SHOTS, "min_document_tokens": self.default_min_document_tokens},
        )

    @abstractmethod
    def load(self) -> SummData: ...

    @abstractmethod
    def release_path(self, row: SummRow) -> str:
        """The release path of the file `row` was read from (metadata data_file)."""

    @abstractmethod
    def demo_block(self, row: SummRow, data: SummData, seed: int) -> str: ...

    def lead_in(self) -> str:
        """Text between the demonstrations and the document."""
        return ""

    @property
    def source(self) -> DataSource:
        """Where the files are read: --data, else the hub cache (hub-origin data)."""
        return self.data or HUB_CACHE_ONLY

    def data_problems(self) -> tuple[DataProblem, ...]:
        if self.unavailable() is not None:
            return ()
        return self.load().problems

    def spans(self, row: SummRow, kept: int) -> tuple[Span, ...]:
        return (Span(0, kept, "passage", self.label),)

    def data_reach(self, lengths: Sequence[int]) -> Reach:
        """A document fills a length when it has that many tokens (estimated from
        characters); documents under min_document_tokens are not asked."""
        tests = self.load().tests
        tokens, measured = estimate_tokens([row.document for row in tests])
        bound = int(self.params["min_document_tokens"])
        how = (
            f"a document fills a length when it has that many tokens, estimated at "
            f"{measured}; documents under {bound:,} tokens are not asked (as in HELMET)"
        )
        return by_document(lengths, tokens, bound, how)

    def build(self, rng: random.Random, budget: Budget, tokenizer: Tokenizer, index: int) -> Draft:
        data = self.load()
        least = int(self.params["min_document_tokens"])
        # A document's words are counted only until they reach the bound (a book may be
        # several times longer).
        pool = [r for r in data.tests if tokens_up_to(r, tokenizer, least) >= least]
        if not pool:
            raise UserInputError(
                f"task {self.name}: no document has {least} tokens with {tokenizer.name}; "
                f"lower it with --set {self.name}.min_document_tokens=N"
            )
        row = pool[shuffled(len(pool), budget.seed)[index % len(pool)]]
        preamble = self.instruction + SEPARATOR + self.demo_block(row, data, budget.seed)
        preamble += self.lead_in()
        question = SEPARATOR + self.closing
        pieces = document_pieces(row.document)
        prefix = prefix_sums(piece_counts(tokenizer).counts(pieces))
        fixed = tokenizer.count(preamble + question) + tokenizer.count(CUT_MARKER)

        def document(n: int) -> str:
            # Whole, the document is the row's text as it is (its trailing space too).
            return "".join(pieces[:n]) + CUT_MARKER if n < len(pieces) else row.document

        def build_text(n: int, tail: str) -> str:
            return preamble + document(n) + question

        fitted = fit_to_budget(build_text, prefix, fixed, budget, tokenizer, what="document")
        context = document(fitted.units)
        kept = len("".join(pieces[: fitted.units]))
        truncated = fitted.units < len(pieces)
        points = data.key_points.get(row.key)
        # Without the release's key points there is nothing to judge recall with.
        judge = {"judge": "summ", "key_points": list(points)} if points else {}
        return Draft(
            preamble=preamble,
            context=context,
            question=question,
            gold=row.answers,
            tokens=fitted.tokens,
            spans=self.spans(row, kept),
            metadata={
                "scorer": "helmet_rouge",
                "gold_mode": "any",  # ROUGE takes the best reference
                "asked_text": question,
                "data_file": self.release_path(row),
                "data_line": row.line,
                "row_key": row.key,
                "truncated": truncated,
                "document_tokens": [prefix[fitted.units], prefix[-1]],
                "key_points_found": bool(points),
                "reference_summary": row.expert,  # what the judge's precision call reads
                **judge,
            },
        )


def _demo_lines(summaries: Sequence[str], placeholder: str) -> str:
    return SEPARATOR.join(f"{placeholder}{ANSWER_PREFIX} {s}" for s in summaries)


class InfBenchSum(SummTask):
    instruction: ClassVar[str] = (
        "Below is a whole book. Write a summary of it of roughly 1000 to 1200 words that "
        "tells its plot and presents its characters. Keep to the story itself: no themes, "
        "no background, no analysis or commentary."
    )
    closing: ClassVar[str] = "Write the summary of the book now."
    label: ClassVar[str] = "book"

    def __init__(self) -> None:
        super().__init__(
            "infbench_sum",
            "InfiniteBench Sum: summarise a novel (HELMET summarization)",
            1200,
        )

    def unavailable(self) -> str | None:
        data = self.source
        if data.locate(INFBENCH_FILE) is None:
            return (
                f"{data.label} has no {INFBENCH_FILE}: `hf download {INFBENCH_REPO} "
                "longbook_sum_eng.jsonl --repo-type dataset` (into the hub cache, or with "
                f"--local-dir DIR/hub/{INFBENCH_REPO} for --data DIR)"
            )
        return None

    def data_files(self) -> tuple[Path, ...]:
        found = (self.source.locate(path) for path in (INFBENCH_FILE, INFBENCH_KEY_POINTS))
        return tuple(path for path in found if path is not None)

    def load(self) -> SummData:
        reason = self.unavailable()
        if reason is not None:
            raise UserInputError(f"task {self.name}: {reason}")
        data = self.source
        path = data.locate(INFBENCH_FILE)
        assert path is not None
        points_path = data.locate(INFBENCH_KEY_POINTS)

        def parse() -> SummData:
            loaded = read_records(path)
            rows, problems = infbench_rows(loaded)
            points, point_problems = read_key_points(points_path, "keypoints")
            if not rows:
                raise UserInputError(f"task {self.name}: {path} holds no usable book")
            all_problems = (*loaded.problems, *problems, *point_problems)
            return SummData(tuple(rows), tuple(rows), points, all_problems)

        return parsed_once(("infbench_sum", *file_key([path, points_path])), parse)

    def release_path(self, row: SummRow) -> str:
        return INFBENCH_FILE

    def demo_block(self, row: SummRow, data: SummData, seed: int) -> str:
        shots = int(self.params["shots"])
        if shots <= 0:
            return ""
        others = [d for d in data.demos if d.key != row.key]
        summaries = [others[i].answers[0].strip() for i in shuffled(len(others), seed)[:shots]]
        demos = _demo_lines(summaries, "[the book's text]\n")
        return f"Example summaries of other books:{SEPARATOR}{demos}{SEPARATOR}The book:{SEPARATOR}"


class MultiLexSum(SummTask):
    instruction: ClassVar[str] = (
        "Below are the legal documents of one civil rights lawsuit. Summarise the case in "
        "a single concise paragraph of 200 to 250 words that briefly gives its background, "
        "the parties and how the case ended."
    )
    closing: ClassVar[str] = "Write the summary of the case now."
    label: ClassVar[str] = "legal documents"

    def __init__(self) -> None:
        super().__init__(
            "multi_lexsum",
            "Multi-LexSum: summarise a civil rights lawsuit's documents (HELMET summarization)",
            400,
        )

    def unavailable(self) -> str | None:
        data = self.source
        for split in ("validation", "train"):
            if not locate_lexsum(data, split):
                shard = lexsum_shard(split, 0)
                return (
                    f"{data.label} has no {shard} of {LEXSUM_REPO}: `hf download "
                    f"{LEXSUM_REPO} --repo-type dataset --revision {LEXSUM_REVISION} "
                    f"--include 'v20230518/*'` (into the hub cache, or with --local-dir "
                    f"DIR/hub/{LEXSUM_REPO} for --data DIR)"
                )
        return None

    def data_files(self) -> tuple[Path, ...]:
        shards = [*locate_lexsum(self.source, "validation"), *locate_lexsum(self.source, "train")]
        points = self.source.locate(LEXSUM_KEY_POINTS)
        return (*shards, *([points] if points is not None else []))

    def load(self) -> SummData:
        reason = self.unavailable()
        if reason is not None:
            raise UserInputError(f"task {self.name}: {reason}")
        data = self.source
        tests, trains = locate_lexsum(data, "validation"), locate_lexsum(data, "train")
        points_path = data.locate(LEXSUM_KEY_POINTS)

        def parse() -> SummData:
            problems: list[DataProblem] = []
            split_rows: list[list[SummRow]] = []
            for paths in (tests, trains):
                rows: list[SummRow] = []
                for path in paths:
                    loaded = read_records(path)
                    found, bad = lexsum_rows(loaded)
                    rows += found
                    problems += [*loaded.problems, *bad]
                split_rows.append(rows)
            points, point_problems = read_key_points(points_path, "summary/short_keypoints")
            if not split_rows[0]:
                raise UserInputError(
                    f"task {self.name}: {tests[0]} holds no case with a short summary"
                )
            problems += point_problems
            return SummData(tuple(split_rows[0]), tuple(split_rows[1]), points, tuple(problems))

        key = ("multi_lexsum", *file_key([*tests, *trains, points_path]))
        return parsed_once(key, parse)

    def release_path(self, row: SummRow) -> str:
        return hub_path(LEXSUM_REPO, f"{LEXSUM_CONFIG}/validation/{Path(row.path).name}")

    def demo_block(self, row: SummRow, data: SummData, seed: int) -> str:
        demos = choose_demos(row, data.demos, int(self.params["shots"]), exclude_same_key=True)
        if not demos:
            return ""
        lines = _demo_lines([d.answers[0] for d in demos], "")
        return (
            f"Example summaries of other cases:{SEPARATOR}{lines}{SEPARATOR}"
            "Now summarise the documents below.\n"
        )

    def lead_in(self) -> str:
        return "Documents of the case:\n"

    def spans(self, row: SummRow, kept: int) -> tuple[Span, ...]:
        """One span per source document of the case (the part of it that was kept)."""
        spans: list[Span] = []
        start = 0
        for number, size in enumerate(row.parts, start=1):
            if start >= kept:
                break
            spans.append(Span(start, min(kept, start + size), "passage", f"document {number}"))
            start += size + len(SEPARATOR)
        return tuple(spans)


def summ_tasks() -> list[Task]:
    return [InfBenchSum(), MultiLexSum()]
