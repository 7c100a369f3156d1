"""LIFEval's points on records of LIFBench's released format, read by the `lifbench` input
kind, equal LIFBench's own judges' on every fixture row.

The fixture (tests/parity/lifbench_inputs.jsonl, made by scripts/parity/lifbench_inputs.py
with LIFBench's evaluation code) holds, per row, a record of
tests/helpers/lifbench_inputs.py's files (file and place, a digest of its prompt), an
output, and the point fractions and total the original's judge gave it reading the
record as it is. Here the kind reads the same files and lctui's scorer scores the
output with the metadata the kind made of the record.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from helpers.lifbench_inputs import FILES, write_lifbench
from helpers.parity_fixtures import load_fixture
from lctui.core.types import Example
from lctui.scoring import score_example
from lctui.tasks.inputs import parse_inputs_arg, read_inputs

TOLERANCE = 1e-9


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, int], Example]:
    root = write_lifbench(tmp_path_factory.mktemp("lifbench"), records=3)
    found = {}
    for example in read_inputs(parse_inputs_arg(f"lifbench:{root}")).examples:
        source: Any = example.metadata["inputs"]
        found[Path(source["file"]).stem, int(source["line"])] = example
    return found


def _mismatch(example: Example, row: dict[str, Any]) -> str | None:
    digest = hashlib.sha256(example.user_text.encode("utf-8")).hexdigest()[:16]
    assert digest == row["prompt_sha256"], (
        "the records changed since the fixture was made: run scripts/parity/lifbench_inputs.py"
    )
    score = score_example(example, row["output"])
    ours = {p.name: p.earned for p in score.points}
    theirs: dict[str, float] = row["points"]
    if set(ours) != set(theirs):
        return f"points {sorted(ours)} vs {sorted(theirs)}"
    wrong = {k: (ours[k], v) for k, v in theirs.items() if abs(ours[k] - v) > TOLERANCE}
    if wrong or abs((score.value or 0.0) - row["total"]) > TOLERANCE:
        where = f"{row['file']}:{row['line']} {row['case']}"
        return f"{where}: {wrong} total {score.value} vs {row['total']}"
    return None


def test_every_point_equals_the_original_judges(examples: dict[tuple[str, int], Example]) -> None:
    fixture = load_fixture("lifbench_inputs")
    assert fixture.repository == "SheldonWu0327/LIFBench-2024"
    # Every task's file, every record, and cases the judges score differently.
    assert {row["file"] for row in fixture.rows} == set(FILES.values())
    assert len({(row["file"], row["line"]) for row in fixture.rows}) == 3 * len(FILES)
    assert len({row["total"] for row in fixture.rows}) > 20
    failures = [
        m for row in fixture.rows if (m := _mismatch(examples[row["file"], row["line"]], row))
    ]
    assert not failures, f"{len(failures)} of {len(fixture.rows)} differ:\n" + "\n".join(
        failures[:10]
    )


def test_the_fixture_reaches_each_judges_branches() -> None:
    rows = load_fixture("lifbench_inputs").rows
    per_file = Counter(row["file"] for row in rows if 0 < row["total"] < 1)
    # Partial credit for some output of every task: the points are compared, not just 0 and 1.
    assert set(per_file) == set(FILES.values())
