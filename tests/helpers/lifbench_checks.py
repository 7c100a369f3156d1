"""Checks the LIFBench scenario tests (List, OneDoc, MultiDoc) share."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from lctui.cli import main
from lctui.core.types import Example, Score, ScoreStatus
from lctui.scoring import score_example
from lctui.suites.lifbench.scoring.point_specs import LIFEVAL_TASKS
from lctui.tasks.budget import Budget


def covering_indices(task: Any) -> list[int]:
    """Indices whose examples use every expression and every variable sample."""
    n_expr, n_var = len(task.spec.expressions), len(task.spec.variables)
    return [k * n_expr + (k % n_expr) for k in range(max(n_expr, n_var))]


def check_covers_every_sample(task: Any, seen: set[tuple[int, int]]) -> None:
    """`seen` (expression, variable) pairs use every expression and every variable."""
    assert {e for e, _ in seen} == set(range(len(task.spec.expressions)))
    assert {v for _, v in seen} == set(range(len(task.spec.variables)))


def earned_points(score: Score) -> dict[str, float]:
    return {p.name: p.earned for p in score.points}


def check_fits(example: Example, o200k: Any) -> None:
    """The prompt (with its template allowance) and the answer fill the example's length
    within the budget's tolerance."""
    length = example.length
    real = o200k.count(example.user_text) + example.template_overhead + example.max_new_tokens
    tolerance = Budget(length, example.max_new_tokens).tolerance
    assert length - tolerance <= real <= length, (length, real, tolerance)


def check_reference_score(example: Example, answer: str, task_name: str) -> Score:
    """`answer` scores 1.0 with the points of LIFEval's rubric for `task_name`."""
    score = score_example(example, answer)
    assert score.status is ScoreStatus.OK and score.value == 1.0, score.explanation
    spec = LIFEVAL_TASKS[task_name]
    assert [p.name for p in score.points] == [p.name for p in spec.points]
    assert [p.weight for p in score.points] == [p.weight for p in spec.points]
    assert [p.capabilities for p in score.points] == [p.capabilities for p in spec.points]
    return score


def check_deterministic_per_seed(task: Any, o200k: Any) -> tuple[Example, Example]:
    """The same seed gives the same example, another seed another context: (seed 5, seed 6)."""
    a = task.generate(3072, seed=5, index=4, tokenizer=o200k)
    b = task.generate(3072, seed=5, index=4, tokenizer=o200k)
    c = task.generate(3072, seed=6, index=4, tokenizer=o200k)
    assert a == b
    assert a.example_id == task.example_id(3072, 5, 4, "o200k_base")
    assert c.context != a.context
    return a, c


def check_gold_run_scores_one(db: Path, tasks: str, generations: int) -> None:
    """`lctui run` of the gold model on `tasks` (3k, n=2) stores that many 1.0 scores."""
    args = ["run", "--model", "gold", "--tasks", tasks, "--lengths", "3k", "--n", "2"]
    assert main([*args, "--db", str(db)]) == 0
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute("SELECT score, status FROM results").fetchall()
    con.close()
    assert len(rows) == generations
    assert all(score == 1.0 and status == "ok" for score, status in rows), rows
