"""lctui's citation tasks have the structure HELMET's own ALCE loader builds on the same
files (tests/parity/helmet_cite_structure.jsonl, scripts/parity/helmet_cite_structure.py):
per row, the question, the documents numbered from 1 in retrieval order with their
titles and texts, and the demonstrations HELMET's seeded draws pick."""

from __future__ import annotations

import hashlib
from functools import cache
from typing import Any

import pytest

from helpers.parity_fixtures import load_fixture
from lctui.core.types import Example
from lctui.tasks import get_task
from lctui.tasks.tokenizers import reference_tokenizer

ROWS = load_fixture("helmet_cite_structure").rows
ROWS_PER_FILE = 12


@cache
def _examples(dataset: str) -> dict[int, Example]:
    """One example per row of the fixture file (the seed's row order visits each once)."""
    task = get_task(f"alce_{dataset}")
    tokenizer = reference_tokenizer("o200k_base")
    built = [task.generate(2048, 0, i, tokenizer) for i in range(ROWS_PER_FILE)]
    return {e.metadata["data_line"]: e for e in built}


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:12]


@pytest.mark.parametrize("row", ROWS, ids=[f"{r['dataset']}-line{r['data_line']}" for r in ROWS])
def test_documents_and_demos_are_those_helmets_loader_builds(row: dict[str, Any]) -> None:
    example = _examples(row["dataset"])[row["data_line"]]
    assert example.metadata["asked_text"] == row["question"]
    assert example.metadata["demo_questions"] == row["demo_questions"]
    ours = [
        [number, example.context[t0:t1], _digest(example.context[x0:x1])]
        for number, (t0, t1, x0, x1) in enumerate(example.metadata["documents"], 1)
    ]
    theirs = row["docs"]
    assert len(theirs) == 40 and len(ours) < len(theirs)
    whole = len(ours) - (2 if example.metadata["cut_doc"] else 0)
    assert ours[:whole] == theirs[:whole]
    # The cut documents keep their numbers and titles.
    assert [d[:2] for d in ours] == [d[:2] for d in theirs[: len(ours)]]


def test_every_row_of_both_files_is_checked() -> None:
    assert {(r["dataset"], r["data_line"]) for r in ROWS} == {
        (d, line) for d in ("asqa", "qampari") for line in range(1, ROWS_PER_FILE + 1)
    }
    assert all(len(_examples(d)) == ROWS_PER_FILE for d in ("asqa", "qampari"))
