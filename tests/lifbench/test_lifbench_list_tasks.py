"""LIFBench List tasks: reference answers score 1.0 everywhere, prompts fit, determinism."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from lctui.backends.gold import reference_answer
from lctui.cli import main
from lctui.core.types import ScoreStatus
from lctui.scoring import score_example
from lctui.scoring.lifeval_points import LIFEVAL_TASKS
from lctui.tasks import select_tasks
from lctui.tasks.budget import Budget
from lctui.tasks.lifbench import LIST_TASKS
from lctui.tasks.lifbench.list_context import parse_list
from lctui.tasks.lifbench.list_tasks import ListTask
from lctui.tasks.tokenizers import reference_tokenizer

NAMES = [f"lifbench_{spec.name}" for spec in LIST_TASKS]


@pytest.fixture(scope="module")
def o200k():  # type: ignore[no-untyped-def]
    return reference_tokenizer("o200k_base")


def _task(name: str) -> ListTask:
    (task,) = select_tasks(name)
    assert isinstance(task, ListTask)
    return task


def _covering_indices(task: ListTask) -> list[int]:
    """Indices whose examples use every expression and every variable sample."""
    n_expr, n_var = len(task.spec.expressions), len(task.spec.variables)
    return [k * n_expr + (k % n_expr) for k in range(max(n_expr, n_var))]


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
    name: str, length: int, o200k
) -> None:  # type: ignore[no-untyped-def]
    task = _task(name)
    seen: set[tuple[int, int]] = set()
    for index in _covering_indices(task):
        example = task.generate(length, seed=3, index=index, tokenizer=o200k)
        meta = example.metadata
        assert (meta["expression"], meta["variable"]) == task.choice(index)
        seen.add((meta["expression"], meta["variable"]))
        assert meta["scenario"] == "list" and meta["scorer"] == "lifeval"
        score = score_example(example, reference_answer(example))
        assert score.status is ScoreStatus.OK and score.value == 1.0, score.explanation
        spec = LIFEVAL_TASKS[task.spec.name]
        assert [p.name for p in score.points] == [p.name for p in spec.points]
        assert [p.weight for p in score.points] == [p.weight for p in spec.points]
        assert [p.capabilities for p in score.points] == [p.capabilities for p in spec.points]
        assert all(p.earned == 1.0 for p in score.points)
        real = o200k.count(example.user_text) + example.max_new_tokens
        tolerance = Budget(length, example.max_new_tokens).tolerance
        assert length - tolerance <= real <= length
        items = parse_list(example.context)
        assert len(items) == meta["list_size"] == len(set(items))
        for position, element in zip(meta["expected_positions"], meta["expected"], strict=True):
            assert items[position - 1] == element
    assert {e for e, _ in seen} == set(range(len(task.spec.expressions)))
    assert {v for _, v in seen} == set(range(len(task.spec.variables)))


@pytest.mark.parametrize("name", NAMES)
def test_items_are_uuids_or_short_sentences_and_queries_sit_in_head_middle_tail(
    name: str, o200k
) -> None:  # type: ignore[no-untyped-def]
    task = _task(name)
    example = task.generate(6144, seed=0, index=0, tokenizer=o200k)
    items = parse_list(example.context)
    uuids = [i for i in items if len(i) == 32 and all(c in "0123456789abcdef" for c in i)]
    sentences = [i for i in items if i not in uuids]
    assert uuids and sentences
    assert all(5 <= len(s.split()) <= 40 for s in sentences)
    for index in _covering_indices(task):
        meta = task.generate(6144, seed=0, index=index, tokenizer=o200k).metadata
        size = meta["list_size"]
        for p in [meta.get("pivot"), *meta["expected_positions"]]:
            if p is not None:
                assert p <= 11 or p >= size - 11 or abs(p - size / 2) < size / 10, (p, size)


@pytest.mark.parametrize("name", NAMES)
def test_deterministic_per_seed(name: str, o200k) -> None:  # type: ignore[no-untyped-def]
    task = _task(name)
    a = task.generate(3072, seed=5, index=4, tokenizer=o200k)
    b = task.generate(3072, seed=5, index=4, tokenizer=o200k)
    c = task.generate(3072, seed=6, index=4, tokenizer=o200k)
    assert a == b
    assert a.example_id == task.example_id(3072, 5, 4, "o200k_base", 0)
    assert c.context != a.context and c.metadata["reference"] != a.metadata["reference"]


def test_gold_run_through_the_cli_scores_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "lif.duckdb"
    args = ["run", "--model", "gold", "--tasks", "lifbench", "--lengths", "3k", "--n", "2"]
    assert main([*args, "--db", str(db)]) == 0
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute("SELECT task, score, status FROM results").fetchall()
    con.close()
    assert len(rows) == len(select_tasks("lifbench")) * 2
    assert all(score == 1.0 and status == "ok" for _, score, status in rows), rows
    capsys.readouterr()
