"""HELMET's passage re-ranking category (MS MARCO), in our own wording, on the user's copy
of HELMET's re-ranking files.

The structure is HELMET's: an instruction with the answer format, two solved queries
with their own passages and ideal rankings, then the asked query's passages as
`[ID: id] Document: text` blocks, the query and the answer prefix `Ranking:`; 200 new
tokens; NDCG@10 of the parsed ranking against the passages' graded labels (the
`helmet_rerank` scorer).

Where HELMET picks a file per length (k = 14 ... 1000 passages), lctui fits the number
of passages to the length from the largest file present. The passages are units, each
tokenised once per tokenizer (tasks/budget.py's piece cache), taken in an order that
keeps the row's mix of relevance grades at every count (the j-th passage of a grade
with N passages comes at j/N, so the first units hold one passage of every grade), and
shown in the file's order. The gap under the length that whole passages leave is
filled with the start of the next passage (it keeps its id and label), so every
prompt lands within the synthetic tasks' tolerance.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import ClassVar

from lctui.core.errors import UserInputError
from lctui.core.protocols import Tokenizer
from lctui.core.types import ParamSpec
from lctui.tasks.base import Draft, Task
from lctui.tasks.budget import Budget, fit_to_budget, longest_fitting, piece_counts, prefix_sums
from lctui.tasks.datasets import DataProblem, read_records
from lctui.tasks.helmet.kilt import choose_demos, passage_spans, row_order
from lctui.tasks.helmet.msmarco import (
    RankedPassage,
    RerankRow,
    format_ranked_passage,
    read_rerank_rows,
)
from lctui.tasks.helmet.release import ReleaseTask
from lctui.tasks.params import int_param

# The passage counts of HELMET's re-ranking files, largest first: the largest present is the pool.
FILE_PASSAGES = (1000, 600, 285, 130, 50, 14)
DEMO_FILE = "msmarco/test_reranking_data_k10_dep3.jsonl"
SHOTS = 2
MAX_NEW_TOKENS = 200
SEPARATOR = "\n\n"

INSTRUCTION = (
    "Below are documents, each marked with a numeric ID, and a query after them. Order all "
    "of the documents from the one that best answers the query to the one that answers it "
    "least, leaving none out. Reply with one line of IDs joined by '>', for example:\n"
    "Ranking: 12 > 4 > 7"
)
QUERY_LABEL = "Query:"
ANSWER_PREFIX = "Ranking:"


def release_path(passages: int) -> str:
    return f"msmarco/test_reranking_data_k{passages}_dep3.jsonl"


def unit_order(passages: Sequence[RankedPassage]) -> list[int]:
    """The order passages are added in as the length grows: every relevance grade keeps
    its share of the row at every count, the file's order within a grade."""
    by_label: dict[int, list[int]] = defaultdict(list)
    for i, passage in enumerate(passages):
        by_label[passage.label].append(i)
    keyed = [
        (j / len(members), -label, i)
        for label, members in by_label.items()
        for j, i in enumerate(members)
    ]
    return [i for _, _, i in sorted(keyed)]


def _demo_text(demo: RerankRow) -> str:
    passages = SEPARATOR.join(format_ranked_passage(p) for p in demo.passages)
    return (
        f"{passages}{SEPARATOR}{QUERY_LABEL} {demo.query}\n{ANSWER_PREFIX} {demo.ideal_ranking()}"
    )


@dataclass(frozen=True)
class _Loaded:
    test_path: str
    rows: tuple[RerankRow, ...]
    demos: tuple[RerankRow, ...]
    # HELMET leaves every test qid out of a demo file over twice the test set's size.
    demos_exclude_all_test_rows: bool
    problems: tuple[DataProblem, ...]


class MsmarcoRerank(ReleaseTask):
    category: ClassVar[str] = "rerank"
    metric: ClassVar[str] = "ndcg@10"
    file_counts: ClassVar[tuple[int, ...]] = FILE_PASSAGES
    prompt_format: ClassVar[str] = "plain"  # HELMET: use_chat_template False
    param_specs: ClassVar[tuple[ParamSpec, ...]] = (
        int_param("shots", "solved queries (with their own passages) before the asked one", 0, 5),
    )

    def __init__(self) -> None:
        super().__init__(
            "msmarco_rerank",
            "MS MARCO: rank retrieved passages by relevance to a query (HELMET re-ranking)",
            MAX_NEW_TOKENS,
            ANSWER_PREFIX,
            {"shots": SHOTS},
        )

    def test_path(self, count: int) -> str:
        return release_path(count)

    @property
    def demo_path(self) -> str:
        return DEMO_FILE

    def load_problems(self) -> _Loaded:
        return self._load()

    def _load(self) -> _Loaded:
        test_release, test_file, demo_file = self.release_files()
        loaded_test, loaded_demo = read_records(test_file), read_records(demo_file)
        rows, row_problems = read_rerank_rows(loaded_test)
        demos, demo_problems = read_rerank_rows(loaded_demo)
        problems = (*loaded_test.problems, *row_problems, *loaded_demo.problems, *demo_problems)
        if not rows:
            raise UserInputError(f"task {self.name}: {test_file} holds no usable query")
        exclude_all = len(demos) > 2 * len(rows)
        if exclude_all:
            asked = {r.key for r in rows}
            demos = tuple(d for d in demos if d.key not in asked)
        return _Loaded(test_release, rows, demos, exclude_all, tuple(problems))

    def build(self, rng: random.Random, budget: Budget, tokenizer: Tokenizer, index: int) -> Draft:
        loaded = self._load()
        order = row_order("helmet-rerank-rows", loaded.test_path, len(loaded.rows), budget.seed)
        row = loaded.rows[order[index % len(loaded.rows)]]
        shots = int(self.params["shots"])
        demos = choose_demos(row, loaded.demos, shots, not loaded.demos_exclude_all_test_rows)
        preamble = INSTRUCTION + SEPARATOR + "".join(_demo_text(d) + SEPARATOR for d in demos)
        question = f"{SEPARATOR}{QUERY_LABEL} {row.query}"
        passages = row.passages
        units = unit_order(passages)
        texts = [format_ranked_passage(p) for p in passages]
        # Each passage is counted with the separator after it, as it reads in the list.
        unit_counts = piece_counts(tokenizer).counts([texts[i] + SEPARATOR for i in units])
        prefix = prefix_sums(unit_counts)
        fixed = tokenizer.count(preamble + question)
        # Which passage a cut text belongs to, and whether it stands in for the last
        # whole passage (when the gap is too small for the next one's id and title).
        owners: dict[tuple[int, str], tuple[int, bool]] = {}

        def arrange(n: int, tail: str) -> list[tuple[int, str]]:
            """The passages of the prompt in the file's order, as (file index, text)."""
            owner, replaces_last = owners[n, tail] if tail else (-1, False)
            items = [(i, texts[i]) for i in units[: n - 1 if replaces_last else n]]
            if tail:
                items.append((owner, tail))
            return sorted(items)

        def build_text(n: int, tail: str) -> str:
            return preamble + SEPARATOR.join(t for _, t in arrange(n, tail)) + question

        def cut(index: int, room: int) -> tuple[str, int]:
            head = format_ranked_passage(replace(passages[index], text=""))
            words = passages[index].text.split(" ")
            text, tokens = longest_fitting(
                lambda k: SEPARATOR + head + " ".join(words[:k]),
                len(words),
                room,
                tokenizer,
            )
            return (text[len(SEPARATOR) :], tokens) if text else ("", 0)

        def partial(n: int, room: int) -> tuple[str, int]:
            text, tokens = cut(units[n], room)
            if text:
                owners[n, text] = (units[n], False)
                return text, tokens
            if n == 0:
                return "", 0
            # The gap is too small for the next passage's id and title: it stands in
            # for the last whole passage, cut to the gap plus that passage's room.
            text, tokens = cut(units[n], room + unit_counts[n - 1])
            if not text:
                return "", 0
            owners[n, text] = (units[n], True)
            return text, tokens - unit_counts[n - 1]

        fitted = fit_to_budget(
            build_text, prefix, fixed, budget, tokenizer, tail=partial, what="passage list"
        )
        items = arrange(fitted.units, fitted.tail)
        shown = [passages[i] for i, _ in items]
        context = SEPARATOR.join(t for _, t in items)
        spans = list(passage_spans([t for _, t in items], [p.id for p in shown], SEPARATOR))
        for span, passage in zip(list(spans), shown, strict=True):
            if passage.label > 0:
                spans.append(replace(span, kind="needle", label=f"relevance {passage.label}"))
        ideal = " > ".join(p.id for p in sorted(shown, key=lambda p: p.label, reverse=True))
        return Draft(
            preamble=preamble,
            context=context,
            question=question,
            gold=(ideal,),
            tokens=fitted.tokens,
            spans=tuple(spans),
            metadata={
                "scorer": "helmet_rerank",
                "qrels": {p.id: p.label for p in shown},
                "gold_mode": "any",  # one gold: the ideal ranking
                "asked_text": question,
                "data_file": loaded.test_path,
                "data_line": row.line,
                "row_key": row.key,
                "num_passages": len(items),
                "relevant_passages": sum(1 for p in shown if p.label > 0),
                "cut_passage": bool(fitted.tail) and fitted.tail not in texts,
                # The row ran out of passages before the length was reached (a file
                # with fewer passages than the length needs): the prompt is shorter.
                "passages_exhausted": fitted.units == len(passages),
                "demo_keys": [d.key for d in demos],
            },
        )


def rerank_tasks() -> list[Task]:
    return [MsmarcoRerank()]
