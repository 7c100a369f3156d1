"""Score vs length curves, RULER's effective length and depth x length grids."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lctui.analysis.curves import (
    depth_grids,
    effective_length,
    effective_lengths,
    length_curves,
    ruler_tasks,
)
from lctui.core.errors import UserInputError
from lctui.resources import sample_runs_dir
from lctui.store import Store, open_store
from lctui.store.derived import fill_derived
from lctui.store.transfer import import_parquet

# model -> length -> scores of its 10 examples at depths 0, 10, ..., 90 (None: error).
SCORES: dict[str, dict[int, list[float] | list[float | None]]] = {
    "steady": {
        4096: [1.0] * 10,
        8192: [1.0] * 9 + [None],  # the error is left out: mean 1.0
        16384: [1.0] * 5 + [0.0] * 5,
    },
    "dipping": {
        4096: [1.0] * 9 + [0.0],
        8192: [1.0] * 8 + [0.0] * 2,  # 0.8: not above 0.856, so it ends at 4k
        16384: [1.0] * 10,
    },
}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with open_store(tmp_path / "curves.duckdb") as opened:
        cur = opened.cursor()
        for m, (model, by_length) in enumerate(SCORES.items()):
            cur.execute(
                "INSERT INTO models (model_id, name, backend, created_at) "
                "VALUES (?, ?, 'test', now())",
                [f"id-{model}", model],
            )
            for length, scores in by_length.items():
                for i, score in enumerate(scores):
                    example, gen = f"e-{length}-{i}", f"g-{m}-{length}-{i}"
                    cur.execute(
                        "INSERT INTO examples (example_id, task, category, length, depth) "
                        "VALUES (?, 'niah_single_1', 'synthetic', ?, ?) ON CONFLICT DO NOTHING",
                        [example, length, 10.0 * i + 0.4],
                    )
                    status = "error" if score is None else "ok"
                    cur.execute(
                        "INSERT INTO generations (generation_id, gen_key, run_id, model_id, "
                        "example_id, status, started_at) VALUES (?, ?, 'r', ?, ?, ?, now())",
                        [gen, gen, f"id-{model}", example, status],
                    )
                    cur.execute(
                        "INSERT INTO scores (generation_id, scorer, metric, value, status, "
                        "scored_at) VALUES (?, 's', 'm', ?, ?, now())",
                        [gen, score, status],
                    )
        fill_derived(cur)  # rows inserted by hand, not by the writer
        cur.close()
        yield opened


def test_curves_follow_the_cell_rules(store: Store) -> None:
    curves = {c.model: c for c in length_curves(store)}
    steady = curves["steady"]
    assert [p.length for p in steady.points] == [4096, 8192, 16384]
    assert [p.mean for p in steady.points] == pytest.approx([1.0, 1.0, 0.5])
    assert [(p.n, p.n_error) for p in steady.points] == [(10, 0), (9, 1), (10, 0)]


def test_effective_length_stops_at_the_first_length_not_above_the_threshold(
    store: Store,
) -> None:
    found = {e.model: e for e in effective_lengths(length_curves(store))}
    assert found["steady"].length == 8192
    assert found["dipping"].length == 4096  # 16k recovers, but 8k already failed
    assert found["dipping"].means == pytest.approx({4096: 0.9, 8192: 0.8, 16384: 1.0})
    strict = {e.model: e for e in effective_lengths(length_curves(store), threshold=0.9)}
    assert strict["dipping"].length is None  # 0.9 is not above 0.9
    assert strict["dipping"].reason is not None and "4k" in strict["dipping"].reason


def test_effective_length_definition_and_scale() -> None:
    assert effective_length({4096: 0.9, 8192: 0.86, 16384: 0.7}) == 8192
    assert effective_length({4096: 0.856}) is None
    assert effective_length({}) is None
    with pytest.raises(UserInputError, match=r"0-1 score scale.*0\.856"):
        effective_length({4096: 0.9}, threshold=85.6)


def test_depth_grid_buckets_depths_per_length(store: Store) -> None:
    grids = {g.model: g for g in depth_grids(store)}
    dipping = grids["dipping"]
    assert dipping.task == "niah_single_1"
    assert dipping.depths == [10.0 * i for i in range(10)]  # 0.4 % rounds to its bucket
    assert dipping.lengths == [4096, 8192, 16384]
    assert dipping.mean[9] == [0.0, 0.0, 1.0]
    assert dipping.mean[8] == [1.0, 0.0, 1.0]
    assert dipping.mean[0] == [1.0, 1.0, 1.0]
    steady = grids["steady"]
    assert steady.mean[9][1] is None and steady.n[9][1] == 0  # only an error there
    coarse = {g.model: g for g in depth_grids(store, bucket=50)}["steady"]
    assert coarse.depths == [0.0, 50.0, 100.0]
    assert coarse.n[0] == [3, 3, 3]  # depths 0.4, 10.4, 20.4 round to 0


def test_effective_length_is_over_rulers_tasks_alone(tmp_path: Path) -> None:
    """The sample runs hold RULER's synthetic tasks and HELMET's json_kv: RULER's
    effective length averages RULER's tasks only (json_kv, 0 at every length there,
    once pulled the 1K mean from 0.559 to 0.513)."""
    with open_store(tmp_path / "samples.duckdb") as store:
        assert import_parquet(store, sample_runs_dir() / "smollm2-synthetic") > 0
        curves = length_curves(store)
    tasks = {c.task for c in curves}
    assert "json_kv" in tasks and {"niah_single_1", "vt", "cwe"} <= tasks
    ruler = [c for c in curves if c.task in ruler_tasks()]
    assert "json_kv" not in ruler_tasks() and len(ruler) == len(curves) - 1
    (effective,) = effective_lengths(curves)
    for length, mean in effective.means.items():
        means = [p.mean for c in ruler for p in c.points if p.length == length]
        scored = [m for m in means if m is not None]
        assert mean == pytest.approx(sum(scored) / len(scored))
    assert effective.tasks == tuple(sorted(c.task for c in ruler))
    assert effective.tasks_shown == f"{len(ruler)}/{len(ruler_tasks())}"
    # Only other suites' curves: no effective length at all.
    assert effective_lengths([c for c in curves if c.task not in ruler_tasks()]) == []
