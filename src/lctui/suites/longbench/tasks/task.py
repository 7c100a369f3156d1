"""LongBench v2's three modes as tasks: `longbench_v2` (direct answer),
`longbench_v2_cot` (chain of thought: a second call reads the reasoning and answers)
and `longbench_v2_no_context` (the question alone).

With seed 0 (the default), example `index` asks the index-th question of the file in
its order (of those the `domain`, `difficulty` and `bucket` parameters keep), as the
original asks them; another seed asks them in a shuffled order (numpy's permutation of
that seed), so that n under 503 samples other questions. A
context longer than the length is cut in its middle as the original cuts its prompt:
the prompt keeps its first and last halves of the budget, so the context keeps
half the budget minus the instruction before it, and half minus the question after
it (suites/longbench/tasks/middle.py, which never tokenises a whole multi-million-word
context). The length is the whole budget (prompt, template allowance and answer), so
at a model's window the prompt and answer fit it. Sampling at temperature 0.1 with 128
new tokens (1,024 for the reasoning call), as the original.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

from lctui.core.errors import UserInputError
from lctui.core.protocols import Tokenizer
from lctui.core.types import FOLLOW_UP, Example, FollowUp, ParamSpec
from lctui.suites.longbench.tasks.data import (
    BUCKETS,
    DIFFICULTIES,
    DOMAINS,
    DOWNLOAD,
    LETTERS,
    RELEASE_PATHS,
    LongBenchRow,
    LongBenchSet,
    read_longbench,
)
from lctui.suites.longbench.tasks.middle import MiddleCut, keep_ends
from lctui.suites.longbench.tasks.prompts import (
    Prompt,
    answer_call,
    direct_prompt,
    no_context_prompt,
    reasoning_prompt,
    reference_answer,
)
from lctui.tasks.base import Draft, Task
from lctui.tasks.budget import Budget
from lctui.tasks.datasets import HUB_CACHE_ONLY, DataProblem, DataSource
from lctui.tasks.helmet.kilt import shuffled
from lctui.tasks.params import choice_param
from lctui.tasks.reach import Reach, any_length, by_document, estimate_tokens

SCORER = "longbench"
METRIC = "accuracy"
ANSWER_TOKENS = 128
REASONING_TOKENS = 1024
TEMPERATURE = 0.1
# Tokens kept free below the budget: the decoded cut may tokenise a token or two longer
# at its join than the head + tail the original counts.
CUT_ROOM = 8
ALL = "all"
MODES = ("direct", "cot", "no_context")


class LongBenchV2(Task):
    """One mode of LongBench v2 over the user's copy of its 503 questions."""

    category: ClassVar[str] = "multichoice"
    suite: ClassVar[str] = "longbench"
    metric: ClassVar[str] = METRIC
    needs_data: ClassVar[bool] = True
    fills_budget: ClassVar[bool] = False  # a short context stays whole
    temperature: ClassVar[float] = TEMPERATURE
    param_specs: ClassVar[tuple[ParamSpec, ...]] = (
        choice_param("domain", "ask only this domain's questions", ALL, *DOMAINS),
        choice_param("difficulty", "ask only easy or only hard questions", ALL, *DIFFICULTIES),
        choice_param("bucket", "ask only the short, medium or long contexts", ALL, *BUCKETS),
    )

    def __init__(self, name: str, description: str, mode: str) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown LongBench v2 mode {mode!r}")
        self.mode = mode
        answer = REASONING_TOKENS if mode == "cot" else ANSWER_TOKENS
        super().__init__(
            name,
            description,
            answer,
            "",
            {"domain": ALL, "difficulty": ALL, "bucket": ALL},
        )

    # Data ---------------------------------------------------------------------------

    @property
    def source(self) -> DataSource:
        return self.data if self.data is not None else HUB_CACHE_ONLY

    def _found(self) -> tuple[str, Any] | None:
        for release_path in RELEASE_PATHS:
            path = self.source.locate(release_path)
            if path is not None:
                return release_path, path
        return None

    def unavailable(self) -> str | None:
        if self._found() is not None:
            return None
        label = self.source.label if self.data is not None else "the hub cache (no --data)"
        return f"{label} has no LongBench v2 data ({', '.join(RELEASE_PATHS)}); get it: {DOWNLOAD}"

    def loaded(self) -> LongBenchSet:
        found = self._found()
        if found is None:
            raise UserInputError(f"task {self.name}: {self.unavailable()}")
        return read_longbench(found[1])

    def data_problems(self) -> tuple[DataProblem, ...]:
        return () if self._found() is None else self.loaded().problems

    def data_files(self) -> tuple[Path, ...]:
        found = self._found()
        return () if found is None else (Path(found[1]),)

    def data_reach(self, lengths: Sequence[int]) -> Reach:
        """A question fills a length when its context has that many tokens (estimated
        from characters); a shorter context stays whole, so its prompt is shorter."""
        if self.mode == "no_context":
            return any_length(lengths, "no document: the question alone, at any length")
        tokens, measured = estimate_tokens([row.context for row in self.questions()])
        how = (
            f"a question fills a length when its context has that many tokens, estimated "
            f"at {measured}; a longer one is cut in its middle, a shorter one stays whole"
        )
        return by_document(lengths, tokens, 0, how)

    def questions(self) -> list[LongBenchRow]:
        """The rows this task asks, in the file's order."""
        wanted = {k: v for k, v in self.params.items() if v != ALL}
        return [
            row
            for row in self.loaded().rows
            if wanted.get("domain", row.domain) == row.domain
            and wanted.get("difficulty", row.difficulty) == row.difficulty
            and wanted.get("bucket", row.bucket) == row.bucket
        ]

    def _identity(self, length: int, seed: int, index: int, tokenizer: str) -> tuple[object, ...]:
        found = self._found()
        return (*super()._identity(length, seed, index, tokenizer), found and found[0])

    # Examples -----------------------------------------------------------------------

    def build(self, rng: random.Random, budget: Budget, tokenizer: Tokenizer, index: int) -> Draft:
        rows = self.questions()
        if not rows:
            raise UserInputError(
                f"task {self.name}: no question of the data matches {dict(self.params)}"
            )
        # Seed 0 asks in the file's order, as the original; another seed in a shuffled
        # one (a different sample when n is under the 503 questions).
        order = shuffled(len(rows), budget.seed) if budget.seed else range(len(rows))
        row = rows[order[index % len(rows)]]
        prompt = self._prompt(row)
        pieces = tokenizer.count_batch([prompt.preamble, prompt.question])
        metadata = {**row_metadata(row, self.mode), "data_line": row.line}
        if self.mode == "cot":
            before, after = answer_call(row.question, row.choices)
            metadata[FOLLOW_UP] = FollowUp(before, after, ANSWER_TOKENS).as_dict()
        if self.mode == "no_context":
            return Draft("", "", prompt.question, (row.answer,), pieces[1], metadata=metadata)
        context = row.context.strip()
        head, tail = self._halves(budget.target, pieces[0], pieces[1], row.id)
        cut = keep_ends(context, tokenizer, head, tail)
        metadata["context_chars"] = len(context)
        metadata["cut"] = cut_metadata(cut)
        tokens = pieces[0] + cut.kept_tokens + pieces[1]
        return Draft(
            prompt.preamble, cut.text, prompt.question, (row.answer,), tokens, metadata=metadata
        )

    def generate(self, length: int, seed: int, index: int, tokenizer: Tokenizer) -> Example:
        example = super().generate(length, seed, index, tokenizer)
        cut = example.metadata.get("cut")
        return replace(example, truncated=isinstance(cut, dict) and bool(cut.get("cut")))

    def _halves(self, room: int, before: int, after: int, question: object) -> tuple[int, int]:
        """The context's head and tail tokens when the prompt keeps the first and the
        last half of `room` tokens: the text `before` and `after` it come out of its
        halves. A question longer than half the room is never cut: the head gives way."""
        keep = room - CUT_ROOM
        head, tail = keep // 2 - before, keep - keep // 2 - after
        if tail < 0:
            head, tail = head + tail, 0
        if head < 0:
            raise UserInputError(
                f"task {self.name}: question {question} needs {before + after} tokens without "
                f"its document, more than the {room} the length leaves; choose a longer length"
            )
        return head, tail

    def _prompt(self, row: LongBenchRow) -> Prompt:
        if self.mode == "direct":
            return direct_prompt(row.question, row.choices)
        if self.mode == "cot":
            return reasoning_prompt(row.question, row.choices)
        return no_context_prompt(row.question, row.choices)

    def truncate(self, example: Example, max_prompt_tokens: int, tokenizer: Tokenizer) -> Example:
        """`--truncate` cuts the middle, as the original cuts every over-long prompt."""
        if example.prompt_tokens <= max_prompt_tokens or not example.context:
            return example
        pieces = tokenizer.count_batch([example.preamble, example.question])
        room = max_prompt_tokens - example.template_overhead
        head, tail = self._halves(room, pieces[0], pieces[1], example.metadata.get("longbench_id"))
        cut = keep_ends(example.context, tokenizer, head, tail)
        tokens = pieces[0] + cut.kept_tokens + pieces[1] + example.template_overhead
        return replace(
            example,
            example_id=f"{example.example_id}-t{max_prompt_tokens}",
            context=cut.text,
            prompt_tokens=tokens,
            truncated=True,
            metadata={
                **example.metadata,
                "truncated_from": example.prompt_tokens,
                "cut": cut_metadata(cut),
            },
        )


def row_metadata(row: LongBenchRow, mode: str) -> dict[str, Any]:
    """What an example of `row` asked in `mode` records of its question, however it was
    made (built here, read from the original's inputs, or imported from its results)."""
    return {
        "scorer": SCORER,
        "gold_mode": "exact",
        "reference": reference_answer(row.answer),
        "longbench_id": row.id,
        "domain": row.domain,
        "sub_domain": row.sub_domain,
        "difficulty": row.difficulty,
        "length_bucket": row.bucket,
        "mode": mode,
        "choices": dict(zip(LETTERS, row.choices, strict=True)),
    }


def cut_metadata(cut: MiddleCut) -> dict[str, Any]:
    """What an example records of its middle cut (`at`: the cut's offset in the context)."""
    return {
        "cut": cut.cut,
        "head_tokens": cut.head_tokens,
        "tail_tokens": cut.tail_tokens,
        "at": cut.head_chars if cut.cut else None,
        "whole_tokens": cut.whole_tokens,
    }


def longbench_tasks() -> list[Task]:
    return [
        LongBenchV2(
            "longbench_v2",
            "LongBench v2: 503 hard four-option questions over long documents, answered directly",
            "direct",
        ),
        LongBenchV2(
            "longbench_v2_cot",
            "LongBench v2 with chain of thought: reasoning first, then a second call answers",
            "cot",
        ),
        LongBenchV2(
            "longbench_v2_no_context",
            "LongBench v2 without the document: what the model knows already",
            "no_context",
        ),
    ]
