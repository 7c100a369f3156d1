"""LIFBench List tasks: reference answers score 1.0 everywhere, prompts fit, determinism."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.lifbench_checks import (
    check_covers_every_sample,
    check_deterministic_per_seed,
    check_fits,
    check_gold_run_scores_one,
    check_reference_score,
    covering_indices,
)
from lctui.backends.gold import reference_answer
from lctui.suites.lifbench.tasks import LIST_TASKS
from lctui.suites.lifbench.tasks.list_context import parse_list
from lctui.suites.lifbench.tasks.list_tasks import ListTask
from lctui.tasks import select_tasks
from lctui.tasks.tokenizers import TiktokenTokenizer

NAMES = [f"lifbench_{spec.name}" for spec in LIST_TASKS]


def _task(name: str) -> ListTask:
    (task,) = select_tasks(name)
    assert isinstance(task, ListTask)
    return task


def test_the_six_list_tasks_come_first_under_lifbench() -> None:
    assert [t.name for t in select_tasks("lifbench")][: len(NAMES)] == NAMES
    for name in NAMES:
        task = _task(name)
        assert task.category == task.suite == "lifbench"
        assert len(task.spec.expressions) >= 5 and task.spec.variables
        assert task.max_new_tokens == (512 if "multi" in name else 100)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("length", [3072, 6144])
def test_reference_scores_one_for_every_expression_and_variable(
    name: str, length: int, o200k: TiktokenTokenizer
) -> None:
    task = _task(name)
    seen: set[tuple[int, int]] = set()
    for index in covering_indices(task):
        example = task.generate(length, seed=3, index=index, tokenizer=o200k)
        meta = example.metadata
        assert (meta["expression"], meta["variable"]) == task.choice(index)
        seen.add((meta["expression"], meta["variable"]))
        assert meta["scenario"] == "list" and meta["scorer"] == "lifeval"
        score = check_reference_score(example, reference_answer(example), task.spec.name)
        assert all(p.earned == 1.0 for p in score.points)
        check_fits(example, o200k)
        items = parse_list(example.context)
        assert len(items) == meta["list_size"] == len(set(items))
        for position, element in zip(meta["expected_positions"], meta["expected"], strict=True):
            assert items[position - 1] == element
    check_covers_every_sample(task, seen)


@pytest.mark.slow
@pytest.mark.parametrize("length", [13312, 28672, 61440, 122880])
def test_reference_scores_one_at_the_longer_lifbench_lengths(
    length: int, o200k: TiktokenTokenizer
) -> None:
    for name in NAMES:
        task = _task(name)
        for index in covering_indices(task):
            example = task.generate(length, seed=1, index=index, tokenizer=o200k)
            check_reference_score(example, reference_answer(example), task.spec.name)


@pytest.mark.parametrize("name", NAMES)
def test_items_are_uuids_or_short_sentences_and_queries_sit_in_their_region(
    name: str, o200k: TiktokenTokenizer
) -> None:
    task = _task(name)
    example = task.generate(6144, seed=0, index=0, tokenizer=o200k)
    items = parse_list(example.context)
    uuids = [i for i in items if len(i) == 32 and all(c in "0123456789abcdef" for c in i)]
    sentences = [i for i in items if i not in uuids]
    assert uuids and sentences
    assert all(5 <= len(s.split()) <= 40 for s in sentences)
    regions = {"head": (2, 11), "middle": (12, -10), "tail": (-9, -1)}
    for index in covering_indices(task):
        meta = task.generate(6144, seed=0, index=index, tokenizer=o200k).metadata
        size = meta["list_size"]
        if "pivot" not in meta:  # multi_query_id: anywhere in the list
            assert all(1 <= p <= size for p in meta["expected_positions"])
            continue
        low, high = (b if b > 0 else size + b for b in regions[meta["region"]])
        assert low <= meta["pivot"] <= high, (meta["region"], meta["pivot"], size)
        step = {"after": 1, "before": -1}.get(meta.get("direction", ""), 0)
        assert meta["expected_positions"] == [meta["pivot"] + step]


@pytest.mark.parametrize("name", NAMES)
def test_deterministic_per_seed(name: str, o200k: TiktokenTokenizer) -> None:
    a, c = check_deterministic_per_seed(_task(name), o200k)
    assert c.metadata["reference"] != a.metadata["reference"]


def test_gold_run_through_the_cli_scores_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    check_gold_run_scores_one(
        tmp_path / "lif.duckdb", "lifbench", len(select_tasks("lifbench")) * 2
    )
    capsys.readouterr()
