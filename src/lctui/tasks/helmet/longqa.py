"""HELMET's long-document QA category: NarrativeQA, InfiniteBench QA and multiple choice,
in our own wording, on the user's copy of the hub datasets (tasks/helmet/longdocs.py).

The structure is HELMET's: an instruction, two demonstrations, the document, the
question (with its options `A. ...` to `D. ...` for multiple choice) and the answer
prefix `Answer:`. NarrativeQA's demonstrations are train questions with their first
answer and no story; InfiniteBench's are other rows of the file, their story replaced
by a placeholder. The document is cut at the end with the run's tokenizer so the whole
prompt fits the length (tasks/helmet/truncate.py), with a note that the rest is left
out; documents shorter than HELMET's bound are left out as HELMET leaves them out.

Rows: the file's rows in the order of numpy's default_rng(seed).permutation (what
`datasets.Dataset.shuffle(seed=...)` draws), so with `--seed 42` example i asks
HELMET's i-th test question (whenever no document falls under the bound, as in the
real data). InfiniteBench's demonstrations are the first rows of the same kind of
permutation of the other rows; NarrativeQA's are drawn per question (seeded by its
key), where HELMET draws them unseeded.

Metrics: ROUGE-L F1 (`helmet_rouge`) for the QA tasks, HELMET's multiple-choice EM
(`helmet_mc`); NarrativeQA is also graded by the LLM judge (metadata "judge": "qa").
"""

from __future__ import annotations

import random
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from lctui.core.errors import UserInputError
from lctui.core.protocols import Tokenizer
from lctui.core.types import ParamSpec, Span
from lctui.tasks.base import Draft, Task
from lctui.tasks.budget import Budget
from lctui.tasks.datasets import HUB_CACHE_ONLY, DataProblem, DataSource
from lctui.tasks.helmet.kilt import choose_demos, shuffled
from lctui.tasks.helmet.longdocs import (
    INFBENCH_REPO,
    OPTION_LETTERS,
    DocQuestion,
    LongDocs,
    narrativeqa_shards,
    read_infbench,
    read_narrativeqa,
)
from lctui.tasks.helmet.truncate import cut_document, document_tokens
from lctui.tasks.params import int_param
from lctui.tasks.reach import Reach, by_document, estimate_tokens

SHOTS = 2
SEPARATOR = "\n\n"
QUESTION_LABEL = "Question:"
OPTIONS_LABEL = "Options:"
ANSWER_PREFIX = "Answer:"
DEMOS_OPEN = "Solved examples:"
STORY_OPEN = "Now the story for the question after it:"
PLACEHOLDER = "[story left out]"
CUT_NOTE = " ... [the story goes on; the rest is left out]"

NARRATIVEQA_INSTRUCTION = (
    "Below is a story (a novel or a film script) and a question about it. Answer the "
    "question as briefly as you can, in one phrase if you can."
)
INFBENCH_QA_INSTRUCTION = (
    "Below is a story and a question about it. Answer the question as briefly as you "
    "can, in one phrase if you can."
)
INFBENCH_MC_INSTRUCTION = (
    "Below is a story and a question about it with four options. Exactly one option is "
    "right: reply with its letter alone (A, B, C or D) and nothing else."
)


def format_options(options: tuple[str, ...]) -> str:
    return "\n".join(
        f"{letter}. {text}" for letter, text in zip(OPTION_LETTERS, options, strict=True)
    )


@dataclass
class _Walk:
    """The rows chosen so far along the shuffled order, and how far it was read."""

    chosen: list[int] = field(default_factory=list)
    read: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)  # examples built in threads


_WALKS: dict[tuple[int, str, int, int], tuple[LongDocs, _Walk]] = {}
_WALKS_LOCK = threading.Lock()


class LongDocQA(Task):
    """One of HELMET's long-document QA datasets."""

    category: ClassVar[str] = "longqa"
    suite: ClassVar[str] = "helmet"
    needs_data: ClassVar[bool] = True
    param_specs: ClassVar[tuple[ParamSpec, ...]] = (
        int_param("shots", "solved questions before the asked one (no story)", 0, 5),
        int_param(
            "min_document_tokens",
            "documents with fewer tokens (run's tokenizer) are left out, as in HELMET",
            1,
            10_000_000,
        ),
    )
    instruction: ClassVar[str]
    scorer: ClassVar[str]
    choice: ClassVar[bool] = False

    def __init__(self, name: str, description: str, max_new_tokens: int, bound: int) -> None:
        super().__init__(
            name,
            description,
            max_new_tokens,
            ANSWER_PREFIX,
            {"shots": SHOTS, "min_document_tokens": bound},
        )

    # Data ---------------------------------------------------------------------------

    @property
    def source(self) -> DataSource:
        """Where the files are looked for: `--data`, else the hub cache."""
        return self.data if self.data is not None else HUB_CACHE_ONLY

    def _label(self) -> str:
        return self.source.label if self.data is not None else "the hub cache (no --data)"

    def unavailable(self) -> str | None:
        missing = self._missing()
        return None if missing is None else f"{self._label()} has no {missing}; {self.where()}"

    def where(self) -> str:
        raise NotImplementedError

    def _missing(self) -> str | None:
        raise NotImplementedError

    def test_docs(self) -> LongDocs:
        raise NotImplementedError

    def demo_texts(self, row: DocQuestion, seed: int) -> tuple[list[str], list[str]]:
        """The demonstrations of `row` as the prompt shows them, and their keys."""
        raise NotImplementedError

    def _loaded(self) -> LongDocs:
        reason = self.unavailable()
        if reason is not None:
            raise UserInputError(f"task {self.name}: {reason}")
        return self.test_docs()

    def data_problems(self) -> tuple[DataProblem, ...]:
        if self.unavailable() is not None:
            return ()
        return self._all_problems()

    def _all_problems(self) -> tuple[DataProblem, ...]:
        return self.test_docs().problems

    def data_reach(self, lengths: Sequence[int]) -> Reach:
        """A question fills a length when its story has that many tokens (estimated
        from characters); stories under min_document_tokens are not asked."""
        docs = self._loaded()
        keys = list(docs.texts)
        tokens, measured = estimate_tokens([docs.texts[key] for key in keys])
        of = dict(zip(keys, tokens, strict=True))
        bound = int(self.params["min_document_tokens"])
        how = (
            f"a question fills a length when its story has that many tokens, estimated "
            f"at {measured}; stories under {bound:,} tokens are not asked (as in HELMET)"
        )
        return by_document(lengths, [of[row.document] for row in docs.rows], bound, how)

    def _data_file(self) -> str:
        raise NotImplementedError

    def _identity(self, length: int, seed: int, index: int, tokenizer: str) -> tuple[object, ...]:
        # Which files the rows come from is part of what the example is.
        return (*super()._identity(length, seed, index, tokenizer), self._data_file())

    # Rows ---------------------------------------------------------------------------

    def _row(self, docs: LongDocs, tokenizer: Tokenizer, seed: int, index: int) -> DocQuestion:
        """Example `index`'s row: the index-th along the shuffled order whose document has
        at least min_document_tokens tokens (after the last, the first again)."""
        bound = int(self.params["min_document_tokens"])
        key = (id(docs), tokenizer.name, seed, bound)
        with _WALKS_LOCK:
            if key not in _WALKS or _WALKS[key][0] is not docs:
                _WALKS[key] = (docs, _Walk())
            walk = _WALKS[key][1]
        order = shuffled(len(docs.rows), seed)
        counts = document_tokens(tokenizer)
        with walk.lock:
            while len(walk.chosen) <= index and walk.read < len(order):
                row = docs.rows[order[walk.read]]
                if counts.count((docs.origin, row.document), docs.texts[row.document]) >= bound:
                    walk.chosen.append(order[walk.read])
                walk.read += 1
            chosen = list(walk.chosen)
        if not chosen:
            raise UserInputError(
                f"task {self.name}: no document in {self._data_file()} has {bound} tokens with "
                f"{tokenizer.name}; HELMET leaves shorter ones out (a lower bound: --set "
                f"{self.name}.min_document_tokens=N)"
            )
        return docs.rows[chosen[index % len(chosen)]]

    # Prompt -------------------------------------------------------------------------

    def question_text(self, row: DocQuestion) -> str:
        text = f"{SEPARATOR}{QUESTION_LABEL} {row.question}"
        if self.choice:
            text += f"\n{OPTIONS_LABEL}\n{format_options(row.options)}"
        return text

    def golds(self, row: DocQuestion) -> tuple[str, ...]:
        if self.choice:
            return (row.letter, f"{row.letter}. {row.answers[0]}")
        return row.answers

    def build(self, rng: random.Random, budget: Budget, tokenizer: Tokenizer, index: int) -> Draft:
        docs = self._loaded()
        row = self._row(docs, tokenizer, budget.seed, index)
        demos, demo_keys = self.demo_texts(row, budget.seed)
        preamble = self.instruction + SEPARATOR
        if demos:
            preamble += (
                f"{DEMOS_OPEN}{SEPARATOR}{SEPARATOR.join(demos)}{SEPARATOR}{STORY_OPEN}{SEPARATOR}"
            )
        question = self.question_text(row)
        cut = cut_document(
            (docs.origin, row.document),
            docs.texts[row.document],
            lambda shown: preamble + shown + question,
            budget,
            tokenizer,
            CUT_NOTE,
        )
        metadata: dict[str, object] = {
            "scorer": self.scorer,
            "gold_mode": "any",  # accepted answers (MC: the letter first)
            "asked_text": question,
            "data_file": row.path,
            "data_line": row.line,
            "row_key": row.key,
            "truncated": cut.truncated,
            "document_tokens": {"kept": cut.kept_tokens, "whole": cut.whole_tokens},
            "demo_keys": demo_keys,
        }
        if self.choice:
            metadata["options"] = list(row.options)
        return Draft(
            preamble=preamble,
            context=cut.text,
            question=question,
            gold=self.golds(row),
            tokens=cut.prompt_tokens,
            spans=(Span(0, len(cut.text), "passage", "story"),),
            metadata={**metadata, **self.extra_metadata()},
        )

    def extra_metadata(self) -> dict[str, object]:
        return {}


class NarrativeQA(LongDocQA):
    metric: ClassVar[str] = "rougeL_f1"
    instruction: ClassVar[str] = NARRATIVEQA_INSTRUCTION
    scorer: ClassVar[str] = "helmet_rouge"

    def __init__(self) -> None:
        super().__init__(
            "narrativeqa",
            "NarrativeQA: answer a question about a book or film script (HELMET long QA; "
            "ROUGE-L, and the LLM judge)",
            100,
            # HELMET keeps stories of more than 131,072 (Llama-2) tokens.
            131_073,
        )

    def where(self) -> str:
        return (
            "get it with hf download deepmind/narrativeqa --repo-type dataset "
            "(into the hub cache, or --local-dir DIR/hub/deepmind/narrativeqa with --data DIR)"
        )

    def _shards(self, split: str) -> tuple[str, ...] | None:
        layouts = narrativeqa_shards(split)
        folder = self.source.folder
        # A layout in the --data folder wins before the hub cache is asked for any.
        if folder is not None:
            local = [lay for lay in layouts if all((folder / p).is_file() for p in lay)]
            if local:
                return local[0]
        for layout in layouts:
            if all(self.source.locate(path) is not None for path in layout):
                return layout
        return None

    def _missing(self) -> str | None:
        for split in ("test", "train"):
            if self._shards(split) is None:
                wanted = narrativeqa_shards(split)[0][0].replace("00000-of-", "*-of-")
                return f"{wanted} ({split} split)"
        return None

    def _read(self, split: str) -> LongDocs:
        layout = self._shards(split)
        assert layout is not None
        files = []
        for path in layout:
            found = self.source.locate(path)
            assert found is not None
            files.append((path, found))
        return read_narrativeqa(files, with_documents=split == "test")

    def test_docs(self) -> LongDocs:
        return self._read("test")

    def data_files(self) -> tuple[Path, ...]:
        found: list[Path] = []
        for split in ("test", "train"):
            layout = self._shards(split)
            paths = layout if layout is not None else narrativeqa_shards(split)[0]
            found += [p for p in map(self.source.locate, paths) if p is not None]
        return tuple(found)

    def _all_problems(self) -> tuple[DataProblem, ...]:
        return (*self._read("test").problems, *self._read("train").problems)

    def _data_file(self) -> str:
        layout = self._shards("test")
        return layout[0] if layout else ""

    def demo_texts(self, row: DocQuestion, seed: int) -> tuple[list[str], list[str]]:
        pool = self._read("train").rows
        demos = choose_demos(row, pool, int(self.params["shots"]), exclude_same_key=False)
        texts = [f"{QUESTION_LABEL} {d.question}\n{ANSWER_PREFIX} {d.answers[0]}" for d in demos]
        return texts, [d.key for d in demos]

    def extra_metadata(self) -> dict[str, object]:
        return {"judge": "qa"}


class InfBench(LongDocQA):
    release: ClassVar[str]

    def where(self) -> str:
        return (
            "get it with hf download xinrongzhang2022/infinitebench "
            f"{self.release.rsplit('/', 1)[1]} --repo-type dataset (into the hub cache, or "
            "--local-dir DIR/hub/xinrongzhang2022/infinitebench with --data DIR)"
        )

    def _missing(self) -> str | None:
        return None if self.source.locate(self.release) is not None else self.release

    def test_docs(self) -> LongDocs:
        path = self.source.locate(self.release)
        assert path is not None
        return read_infbench(path, self.release, self.choice)

    def data_files(self) -> tuple[Path, ...]:
        path = self.source.locate(self.release)
        return () if path is None else (path,)

    def _data_file(self) -> str:
        return self.release

    def demo_texts(self, row: DocQuestion, seed: int) -> tuple[list[str], list[str]]:
        shots = int(self.params["shots"])
        if shots <= 0:
            return [], []
        others = [r for r in self.test_docs().rows if r.key != row.key]
        demos = [others[i] for i in shuffled(len(others), seed)[:shots]]
        texts = []
        for demo in demos:
            shown = f"{PLACEHOLDER}\n{QUESTION_LABEL} {demo.question}"
            if self.choice:
                shown += f"\n{OPTIONS_LABEL}\n{format_options(demo.options)}"
            texts.append(f"{shown}\n{ANSWER_PREFIX} {self.golds(demo)[0]}")
        return texts, [d.key for d in demos]


class InfBenchQA(InfBench):
    metric: ClassVar[str] = "rougeL_f1"
    instruction: ClassVar[str] = INFBENCH_QA_INSTRUCTION
    scorer: ClassVar[str] = "helmet_rouge"
    release: ClassVar[str] = f"{INFBENCH_REPO}/longbook_qa_eng.jsonl"

    def __init__(self) -> None:
        super().__init__(
            "infbench_qa",
            "InfiniteBench QA: answer a question about a book (HELMET long QA; ROUGE-L F1)",
            10,
            65_536,  # HELMET keeps documents of at least 65,536 (Llama-2) tokens
        )


class InfBenchMC(InfBench):
    metric: ClassVar[str] = "em"
    instruction: ClassVar[str] = INFBENCH_MC_INSTRUCTION
    scorer: ClassVar[str] = "helmet_mc"
    choice: ClassVar[bool] = True
    release: ClassVar[str] = f"{INFBENCH_REPO}/longbook_choice_eng.jsonl"

    def __init__(self) -> None:
        super().__init__(
            "infbench_mc",
            "InfiniteBench MC: choose the right option to a question about a book (HELMET "
            "long QA; exact match)",
            10,
            65_536,
        )


def longqa_tasks() -> list[Task]:
    return [NarrativeQA(), InfBenchQA(), InfBenchMC()]
