"""LIFEval's MultiDoc and OneDoc points equal the original's on every fixture row.

The fixtures (tests/parity/lifeval_<task>.jsonl, made by scripts/parity/lifeval_docs.py
with LIFBench's own evaluation code) hold, per row, an lctui example (task, length,
seed, index, tokenizer, its id and a digest of its prompt), an output written to reach
a branch of the original's rules, and the point fractions and total the original
computed. Rows
marked `original_error` are outputs the original crashes on; their numbers are the
original's with the crash-free readings lctui uses (see lifeval_docs_original.py).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from functools import cache
from typing import Any

import pytest

from helpers.parity_fixtures import load_fixture
from lctui.core.types import Example
from lctui.scoring import score_example
from lctui.suites.lifbench.tasks.shared import LifbenchTask
from lctui.tasks import get_task
from lctui.tasks.tokenizers import reference_tokenizer

TASKS = ("batch_label", "find_dup_text", "repeat", "extract", "qa")
TOLERANCE = 1e-9


@cache
def _example(task: str, length: int, seed: int, index: int, tokenizer: str) -> Example:
    return get_task(f"lifbench_{task}").generate(
        length, seed, index, reference_tokenizer(tokenizer)
    )


def _mismatch(row: dict[str, Any]) -> str | None:
    example = _example(row["task"], row["length"], row["seed"], row["index"], row["tokenizer"])
    digest = hashlib.sha256(example.user_text.encode("utf-8")).hexdigest()[:16]
    assert (example.example_id, digest) == (row["example_id"], row["prompt_sha256"]), (
        "the example changed since the fixture was made: run scripts/parity/lifeval_docs.py"
    )
    score = score_example(example, row["output"])
    ours = {p.name: p.earned for p in score.points}
    theirs: dict[str, float] = row["points"]
    value = score.value or 0.0
    if set(ours) != set(theirs):
        return f"points {sorted(ours)} vs {sorted(theirs)}"
    wrong = {k: (ours[k], v) for k, v in theirs.items() if abs(ours[k] - v) > TOLERANCE}
    if wrong or abs(value - row["total"]) > TOLERANCE:
        where = f"{row['case']} @ {row['length']}/{row['index']}"
        return f"{where}: {wrong} total {value} vs {row['total']}"
    return None


@pytest.mark.parametrize("task", TASKS)
def test_every_point_equals_the_originals(task: str) -> None:
    fixture = load_fixture(f"lifeval_{task}")
    assert fixture.repository == "SheldonWu0327/LIFBench-2024"
    assert "scripts/parity/lifeval_docs.py" in fixture.command
    mismatches = [m for m in map(_mismatch, fixture.rows) if m]
    assert not mismatches, f"{len(mismatches)} of {len(fixture.rows)} rows differ: {mismatches[:5]}"


@pytest.mark.parametrize("task", TASKS)
def test_fixtures_cover_lengths_wordings_variables_and_cases(task: str) -> None:
    rows = load_fixture(f"lifeval_{task}").rows
    lctui_task = get_task(f"lifbench_{task}")
    assert isinstance(lctui_task, LifbenchTask)
    spec = lctui_task.spec
    assert {r["length"] for r in rows} == {3072, 6144, 13312}
    choices = {lctui_task.choice(r["index"]) for r in rows}
    assert {e for e, _ in choices} == set(range(len(spec.expressions)))
    assert {v for _, v in choices} == set(range(len(spec.variables)))
    cases = Counter(r["case"] for r in rows)
    assert {"reference", "empty", "over_long"} <= set(cases)
    references = [r for r in rows if r["case"] == "reference"]
    assert references and all(r["total"] == 1.0 for r in references)
