"""HELMET's re-ranking task has HELMET's structure: helmet_rerank_structure.jsonl holds
what HELMET's own loader (data.py load_msmarco_rerank, scripts/parity/helmet_rerank.py)
built from the same fixture files, and lctui's examples must match it row by row.

Compared per row: the passage ids in the order the prompt shows them, the reference
ranking, the labels the metric reads (qrels), and the two demonstrations with their
rankings, in order (HELMET's seeded shuffle; case "all": only the asked query left out
of the demo pool; case "few": five test rows, so the demo file holds over twice as many
and every test query is left out). At 8K the fixture rows hold fewer passages than the
length takes, so lctui shows all of them, as HELMET's k14 prompt does.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest

from helpers.helmet_data import HELMET_FIXTURES, RERANK_DEMOS, RERANK_TEST, copy_fixtures
from helpers.parity_fixtures import load_fixture
from lctui.core.types import Example
from lctui.tasks import get_task
from lctui.tasks.datasets import DataSource, read_records
from lctui.tasks.helmet.msmarco import read_rerank_rows
from lctui.tasks.tokenizers import reference_tokenizer

FIXTURE = load_fixture("helmet_rerank_structure")
PASSAGE_ID = re.compile(r"\[ID: (\d+)\] Document")
DEMO = re.compile(r"Query: (.*)\nRanking: (.*)\n")
BY_CASE: dict[str, list[dict[str, object]]] = defaultdict(list)
for _row in FIXTURE.rows:
    BY_CASE[str(_row["case"])].append(_row)


def _release(case: str, tmp_path: Path) -> Path:
    if case == "all":
        return HELMET_FIXTURES
    copy_fixtures(tmp_path)
    path = tmp_path / RERANK_TEST
    path.write_text("\n".join(path.read_text().splitlines()[: len(BY_CASE[case])]) + "\n")
    return tmp_path


@pytest.mark.parametrize("case", sorted(BY_CASE))
def test_passages_rankings_and_demos_are_those_helmets_loader_builds(
    case: str, tmp_path: Path
) -> None:
    task = get_task("msmarco_rerank").with_data(DataSource(folder=_release(case, tmp_path)))
    tokenizer = reference_tokenizer("o200k_base")
    rows = BY_CASE[case]
    examples: dict[int, Example] = {}
    for index in range(len(rows)):
        example = task.generate(8192, 0, index, tokenizer)
        examples[int(example.metadata["data_line"])] = example
    assert sorted(examples) == sorted(int(str(row["line"])) for row in rows)
    for row in rows:
        line = int(str(row["line"]))
        example = examples[line]
        assert example.metadata["passages_exhausted"] and not example.metadata["cut_passage"]
        assert example.metadata["row_key"] == row["qid"]
        assert PASSAGE_ID.findall(example.context) == row["ids"], line
        assert example.gold == (row["answer"],), line
        assert example.metadata["qrels"] == row["qrel"], line
        assert [list(d) for d in DEMO.findall(example.preamble)] == _demos(row), line


def test_the_fixture_covers_both_ways_helmet_filters_the_demo_pool() -> None:
    assert {case: len(rows) for case, rows in BY_CASE.items()} == {"all": 9, "few": 5}
    demos, _ = read_rerank_rows(read_records(HELMET_FIXTURES / RERANK_DEMOS))
    query_of = {d.key: d.query for d in demos}
    asked = {str(row["qid"]) for row in BY_CASE["few"]}
    shown = {str(d[0]) for row in BY_CASE["few"] for d in _demos(row)}
    assert shown == {query for key, query in query_of.items() if key not in asked}
    shown_all = {str(d[0]) for row in BY_CASE["all"] for d in _demos(row)}
    assert query_of["1100000"] in shown_all  # another test query may be a demonstration


def _demos(row: dict[str, object]) -> list[list[str]]:
    demos = row["demos"]
    assert isinstance(demos, list)
    return demos
