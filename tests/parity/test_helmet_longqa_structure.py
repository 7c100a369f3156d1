"""HELMET's long-document QA tasks have HELMET's structure: helmet_longqa_structure.jsonl
holds what HELMET's own loaders (data.py load_narrativeqa, load_infbench;
scripts/parity/helmet_longqa.py) built from the same fixture files, and lctui's
examples must match it row by row.

With seed 42 (HELMET's), lctui's example i asks HELMET's i-th test question. Compared
per row: the question and its row, the golds (all NarrativeQA answers; InfiniteBench
MC's letter and "letter. option"), the options as `A. ...` lines after the question, the
demonstrations (InfiniteBench: the same rows in the same order, with their options and
answers; NarrativeQA: two train questions with their first answer, which HELMET draws
unseeded, so only their kind is compared), the story placeholder in each InfiniteBench
demonstration and none in NarrativeQA's, the story cut at the end with a note after
it, the order of the prompt's parts and the answer prefix.
"""

from __future__ import annotations

import re
from typing import Any

import pyarrow.parquet as pq
import pytest

from helpers.longqa_data import LONGQA_FIXTURES, NARRATIVEQA, NQA_TRAIN
from helpers.parity_fixtures import load_fixture
from lctui.core.types import Example
from lctui.tasks import get_task
from lctui.tasks.datasets import DataSource
from lctui.tasks.helmet.longqa import CUT_NOTE, PLACEHOLDER
from lctui.tasks.tokenizers import reference_tokenizer

FIXTURE = load_fixture("helmet_longqa_structure")
TASKS = {"narrativeqa": "narrativeqa", "qa": "infbench_qa", "choice": "infbench_mc"}
QA_DEMO = re.compile(r"Question: (.*)\nAnswer: (.*)")
MC_DEMO = re.compile(r"Question: (.*)\nOptions:\n((?:.*\n){4})Answer: (.*)")
# lctui's prompt: preamble (instruction, demonstrations), context (the story), question
# (then the options): HELMET's fields in that order.
LCTUI_FIELDS = ["demo", "context", "question"]
_BUILT: dict[tuple[str, int], Example] = {}


def _example(dataset: str, order: int) -> Example:
    if (dataset, order) not in _BUILT:
        task = (
            get_task(TASKS[dataset])
            .with_data(DataSource(folder=LONGQA_FIXTURES))
            .with_params({"min_document_tokens": 1000})
        )
        tokenizer = reference_tokenizer("o200k_base")
        _BUILT[dataset, order] = task.generate(2048, 42, order, tokenizer)
    return _BUILT[dataset, order]


def _train_pairs() -> set[tuple[str, str]]:
    rows = pq.read_table(LONGQA_FIXTURES / "hub" / NARRATIVEQA / NQA_TRAIN).to_pylist()
    return {(r["question"]["text"], r["answers"][0]["text"]) for r in rows}


def test_every_dataset_and_row_of_the_fixture_is_compared() -> None:
    counts = {d: sum(1 for r in FIXTURE.rows if r["dataset"] == d) for d in TASKS}
    assert counts == {"narrativeqa": 9, "qa": 6, "choice": 6}


@pytest.mark.parametrize("row", FIXTURE.rows, ids=lambda r: f"{r['dataset']}-{r['order']}")
def test_questions_golds_demos_and_cut_are_those_helmets_loader_builds(
    row: dict[str, Any],
) -> None:
    dataset = str(row["dataset"])
    example = _example(dataset, int(row["order"]))
    meta = example.metadata
    choice = dataset == "choice"
    # The same question in the same place of the order, with the same golds.
    assert example.question.startswith(f"\n\nQuestion: {row['question']}")
    if row["id"] is not None:
        assert meta["row_key"] == str(row["id"])
    assert list(example.gold) == row["answer"]
    if choice:
        assert example.question.endswith(f"\nOptions:\n{row['options']}")
    # The demonstrations.
    found = [list(m.groups()) for m in (MC_DEMO if choice else QA_DEMO).finditer(example.preamble)]
    assert len(found) == len(row["demos"]) == 2
    assert example.preamble.count(PLACEHOLDER) == row["placeholders"]
    if dataset == "narrativeqa":
        train = _train_pairs()
        assert all((q, a) in train for q, a in row["demos"])
        assert all((d[0], d[-1]) in train for d in found)
    else:
        assert [[d[0], d[-1]] for d in found] == row["demos"]
        if choice:
            assert [d[1] for d in found] == row["demo_options"]
    # The story: its start, cut at the end, a note after the cut.
    assert meta["truncated"] is row["truncated"]
    assert row["starts_document"] and meta["document_tokens"]["kept"] > 0
    assert example.context.endswith(CUT_NOTE) is row["note_after_cut"]
    assert row["fields"] == LCTUI_FIELDS + (["options"] if choice else [])
    assert example.user_text == example.preamble + example.context + example.question
    assert example.answer_prefix == row["answer_prefix"]
