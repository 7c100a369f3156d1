"""HELMET's summarization tasks have HELMET's structure: helmet_summ_structure.jsonl holds
what HELMET's own loaders (data.py load_infbench, load_multi_lexsum; scripts/parity/
helmet_summ.py) built from the same fixture files, and lctui's examples must match it
row by row at seed 42 (HELMET's seed). Multi-LexSum was asked for fewer rows than its pool,
so that HELMET shuffles it as it does a real pool of over 100 (lctui always shuffles).

Compared per row, in HELMET's order: which row is asked (the length filter with the
fixture's `min_tokens`, Multi-LexSum's short-summary filter, the seeded shuffle of
shuffle), the pool of rows the filters keep, the reference
summary, the whole document (its sha256; the length is one no document fills), the
InfiniteBench demonstrations in order and, for Multi-LexSum, the long summary the
judge's precision call reads. Multi-LexSum's demonstrations are drawn unseeded by
HELMET: only that they are training cases' short summaries is compared.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict

import pytest

from helpers.helmet_data import HELMET_FIXTURES
from helpers.parity_fixtures import load_fixture
from lctui.tasks import get_task
from lctui.tasks.datasets import DataSource, read_records
from lctui.tasks.tokenizers import reference_tokenizer

FIXTURE = load_fixture("helmet_summ_structure")
SUMM = DataSource(folder=HELMET_FIXTURES / "summ")
LENGTH = 16384  # more than any fixture document with its prompt: nothing is cut
DEMO_SUMMARY = re.compile(r"Summary: (.*)")
BY_CASE: dict[str, list[dict[str, object]]] = defaultdict(list)
for _row in FIXTURE.rows:
    BY_CASE[str(_row["case"])].append(_row)


@pytest.mark.parametrize("case", sorted(BY_CASE))
def test_rows_order_references_documents_and_demos_are_those_helmets_loader_builds(
    case: str,
) -> None:
    rows = BY_CASE[case]
    task = (
        get_task(case).with_data(SUMM).with_params({"min_document_tokens": rows[0]["min_tokens"]})
    )
    tokenizer = reference_tokenizer("o200k_base")
    train = read_records(
        HELMET_FIXTURES / "summ/hub/allenai/multi_lexsum/v20230518/train/0000.parquet"
    )
    shorts = {r["summary/short"] for r in train.rows if r["summary/short"]}
    for row in rows:
        example = task.generate(LENGTH, 42, int(str(row["position"])), tokenizer)
        assert example.metadata["row_key"] == row["id"]
        answer = row["answer"]
        assert example.gold == (tuple(answer) if isinstance(answer, list) else (answer,))
        assert not example.metadata["truncated"]
        assert hashlib.sha256(example.context.encode()).hexdigest() == row["document_sha256"]
        assert len(example.context) == row["document_chars"]
        demos = DEMO_SUMMARY.findall(example.preamble)
        helmet_demos = [str(d) for d in row["demos"]]  # type: ignore[attr-defined]
        if case == "infbench_sum":
            assert demos == helmet_demos
            assert example.metadata["reference_summary"] == example.gold[0]
        else:
            assert len(demos) == len(helmet_demos) == 2
            assert set(demos) <= shorts and set(helmet_demos) <= shorts
            assert example.metadata["reference_summary"] == row["summary_long"]
    # The pool holds exactly the rows HELMET's filters keep.
    pool = [str(p) for p in rows[0]["pool"]]  # type: ignore[attr-defined]
    asked = {task.generate(LENGTH, 42, i, tokenizer).metadata["row_key"] for i in range(len(pool))}
    assert sorted(asked) == pool


def test_the_fixture_exercises_both_filters_and_the_shuffle() -> None:
    asked = {case: [str(r["id"]) for r in rows] for case, rows in BY_CASE.items()}
    books = [
        str(r["id"])
        for r in read_records(
            HELMET_FIXTURES / "summ/hub/xinrongzhang2022/infinitebench/longbook_sum_eng.jsonl"
        ).rows
    ]
    # Short books dropped by the length filter, the rest not in file order.
    assert set(asked["infbench_sum"]) < set(books)
    assert asked["infbench_sum"] != sorted(asked["infbench_sum"])
    cases = read_records(
        HELMET_FIXTURES / "summ/hub/allenai/multi_lexsum/v20230518/validation/0000.parquet"
    ).rows
    no_short = {str(c["id"]) for c in cases if c["summary/short"] is None}
    pool = [str(p) for p in BY_CASE["multi_lexsum"][0]["pool"]]  # type: ignore[attr-defined]
    assert no_short and not no_short & set(pool)
    assert len(pool) < len(cases) - len(no_short)  # some too short
    assert asked["multi_lexsum"] != pool[: len(asked["multi_lexsum"])]  # shuffled
