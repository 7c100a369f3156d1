"""RULER's qa_1 and qa_2 have RULER's structure: ruler_qa_structure.jsonl holds what RULER's
own qa.py built from the same invented fixture files (scripts/parity/ruler_qa_structure.py),
and lctui's examples (seed 0, RULER's seed 42) must match it row by row.

Compared per example: the question asked (file order), its answers, the answer prefix,
the question's own documents (the same texts; at RULER's document count, at RULER's
places), the SQuAD article's other paragraphs listed, no document twice, and RULER's
string_match_part on outputs we wrote. The number of documents differs by our wording
and lctui's filling to the length: within `COUNT_TOLERANCE` of RULER's, except where
RULER stepped back ten documents for a question that overflowed its first count.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from functools import cache
from typing import Any

import pytest

from helpers.parity_fixtures import load_fixture
from helpers.ruler_qa_data import RULER_QA_FIXTURES
from lctui.core.types import Example, ScoreStatus
from lctui.scoring import score_example
from lctui.suites.ruler.tasks.qa import RULER_SEED, RulerQA, shuffled
from lctui.tasks import get_task
from lctui.tasks.datasets import DataSource
from lctui.tasks.tokenizers import reference_tokenizer

FIXTURE = load_fixture("ruler_qa_structure")
FILES = FIXTURE.rows[0]["files"]
ROWS = FIXTURE.rows[1:]
COUNT_TOLERANCE = 3  # documents, whole ones (lctui's cut last document not counted)
STEP = 10  # RULER's qa.py steps back this many documents when a question overflows
_MOST: dict[tuple[str, int], int] = defaultdict(int)
for _row in ROWS:
    _cell = (str(_row["task"]), int(_row["length"]))
    _MOST[_cell] = max(_MOST[_cell], int(_row["num_documents"]))


def _id(row: dict[str, Any]) -> str:
    return f"{row['task']}-{row['length']}-{row['sample']}"


def _task(name: str) -> RulerQA:
    task = get_task(name).with_data(DataSource(folder=RULER_QA_FIXTURES))
    assert isinstance(task, RulerQA)
    return task


@cache
def _example(task: str, length: int, index: int) -> Example:
    return _task(task).generate(length, 0, index, reference_tokenizer("o200k_base"))


def _sha1(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def test_the_fixture_is_rulers_on_the_committed_fixture_files() -> None:
    assert FIXTURE.repository == "NVIDIA/RULER"
    assert FIXTURE.commit == "c3f5e3b4f87f97e048793bb510a3a6b19a46bf3a"
    for name, digest in FILES.items():
        assert hashlib.sha1((RULER_QA_FIXTURES / name).read_bytes()).hexdigest() == digest
    assert {(r["task"], r["length"]) for r in ROWS} == {
        (t, n) for t in ("qa_1", "qa_2") for n in (2048, 4096, 8192)
    }
    # RULER's seed is 42 at lctui's seed 0; RULER's step back is in the table.
    assert {r["seed"] for r in ROWS} == {RULER_SEED}
    assert any(r["num_documents"] < _MOST[r["task"], r["length"]] for r in ROWS)


@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_each_example_asks_the_same_question_with_the_same_documents(row: dict[str, Any]) -> None:
    example = _example(row["task"], row["length"], row["sample"])
    meta = example.metadata
    assert meta["question_key"] == row["question_key"]  # file order, as RULER reads it
    assert list(example.gold) == list(dict.fromkeys(row["answers"]))
    assert example.answer_prefix == row["answer_prefix"].strip()
    assert example.max_new_tokens == row["max_new_tokens"]
    blocks = {
        int(s.label): example.context[s.start : s.end].split(":\n", 1)[1]
        for s in example.spans
        if s.kind == "passage"
    }
    own = sorted(_sha1(blocks[n]) for n in meta["question_documents"])
    assert own == sorted(row["question_document_sha1"])
    _, corpus = _task(row["task"]).corpus()
    asked = corpus.questions[row["sample"]]
    listed = set(blocks.values())
    assert sum(corpus.documents[i] in listed for i in asked.related) == row["related_listed"]
    assert row["repeated_documents"] == 0
    whole = meta["num_documents"] - meta["cut_document"]
    assert len(set(list(blocks.values())[:whole])) == whole


@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_rulers_places_are_its_shuffle_of_the_first_documents_as_in_lctui(
    row: dict[str, Any],
) -> None:
    """RULER's question documents sit where `random.Random(42).shuffle` of a list of its
    length puts the first ones: lctui's `shuffled`, so equal counts give equal places."""
    count, own = row["num_documents"], len(row["question_documents"])
    order = shuffled(range(count), row["seed"])
    assert row["question_documents"] == [order.index(k) + 1 for k in range(own)]
    example = _example(row["task"], row["length"], row["sample"])
    whole = example.metadata["num_documents"] - example.metadata["cut_document"]
    if whole == count:
        assert example.metadata["question_documents"] == sorted(row["question_documents"])


@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_the_document_count_is_rulers_within_the_tolerance(row: dict[str, Any]) -> None:
    example = _example(row["task"], row["length"], row["sample"])
    whole = example.metadata["num_documents"] - example.metadata["cut_document"]
    most = _MOST[row["task"], row["length"]]
    ruler = row["num_documents"]
    if ruler == most:
        assert abs(whole - ruler) <= COUNT_TOLERANCE, (whole, ruler)
    else:
        # RULER's first count overflowed with this question's documents: it listed ten
        # (or twenty, ...) fewer, about as many tokens fewer under the length.
        assert (most - ruler) % STEP == 0 and whole > ruler
        assert row["budget_tokens"] < example.length - 0.1 * example.length
    assert row["budget_tokens"] <= example.length


@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_string_match_part_equals_rulers_on_our_outputs(row: dict[str, Any]) -> None:
    example = _example(row["task"], row["length"], row["sample"])
    for case in row["outputs"]:
        score = score_example(example, case["output"])
        assert score.value is not None
        assert round(score.value * 100, 2) == case["score_x100"], case["case"]
        if case["null"]:
            assert score.status is ScoreStatus.UNPARSED, case["case"]
