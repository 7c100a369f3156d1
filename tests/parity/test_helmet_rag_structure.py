"""HELMET's RAG tasks have HELMET's structure: helmet_rag_structure.jsonl holds what HELMET's
own loader (data.py load_qa, scripts/parity/helmet_rag.py) built from the same fixture
files, and lctui's examples must match it row by row.

Compared per row of each file: which rows are kept (PopQA's popularity cut), the
passages in the order the prompt shows them (the gold at the file's position, the
negatives in file order), and the two demonstrations, in order (HELMET's seeded shuffle,
the asked PopQA row never among them). At 8K the fixture rows hold fewer passages than
the length takes, so lctui shows all of them, as HELMET's k20 prompt does.
"""

from __future__ import annotations

import re
from collections import defaultdict

import pytest

from helpers.helmet_data import HELMET_FIXTURES
from helpers.parity_fixtures import load_fixture
from lctui.core.types import Example
from lctui.tasks import get_task
from lctui.tasks.datasets import DataSource
from lctui.tasks.tokenizers import reference_tokenizer

FIXTURE = load_fixture("helmet_rag_structure")
TITLE = re.compile(r"Document \(Title: (.*?)\): ")
DEMO_QUESTION = re.compile(r"Question: (.*)\n")
BY_TASK: dict[str, list[dict[str, object]]] = defaultdict(list)
for _row in FIXTURE.rows:
    BY_TASK[str(_row["task"])].append(_row)


def _examples_by_line(task: str) -> dict[int, Example]:
    bound = get_task(task).with_data(DataSource(folder=HELMET_FIXTURES))
    tokenizer = reference_tokenizer("o200k_base")
    examples = [bound.generate(8192, 0, i, tokenizer) for i in range(len(BY_TASK[task]))]
    return {int(e.metadata["data_line"]): e for e in examples}


@pytest.mark.parametrize("task", sorted(BY_TASK))
def test_rows_passages_and_demos_are_those_helmets_loader_builds(task: str) -> None:
    examples = _examples_by_line(task)
    expected = {int(str(row["line"])): row for row in BY_TASK[task]}
    assert sorted(examples) == sorted(expected)  # the same rows kept, each read once
    for line, row in expected.items():
        example = examples[line]
        assert example.metadata["passages_exhausted"] and not example.metadata["cut_passage"]
        assert TITLE.findall(example.context) == row["titles"], line
        assert DEMO_QUESTION.findall(example.preamble) == row["demo_questions"], line


def test_the_fixture_covers_every_rag_task_and_the_popqa_cut() -> None:
    assert sorted(BY_TASK) == ["kilt_hotpotqa", "kilt_nq", "kilt_popqa", "kilt_triviaqa"]
    popqa = HELMET_FIXTURES / "kilt/popqa_test_1000_k20_dep6.jsonl"
    assert len(popqa.read_text().splitlines()) == 12 and len(BY_TASK["kilt_popqa"]) == 9
