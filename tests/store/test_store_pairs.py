"""`paired_scores` (store/read/pairs.py): the faster A/B query answers exactly what the
query before it answered (kept as `reference=True`) on any store: retries, re-runs in
other runs, failed and unscored generations, generations without their example,
several metrics per generation, re-scores, and sides that overlap."""

from __future__ import annotations

import itertools
import math
import tempfile
from pathlib import Path
from typing import Any

import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers.store_factories import make_example, make_generation
from lctui.core.types import GenerationStatus, ModelSpec, Score, ScoreStatus
from lctui.store import Store, open_store
from lctui.store.read.pairs import PairedScores, SideKey, paired_scores

EXAMPLES = [make_example(i, task=t, length=n) for i, (t, n) in enumerate(
    itertools.product(("niah", "vt"), (4096, 8192)))]  # fmt: skip
# One metric per scorer: two latest scores of one generation never share a metric (the
# key of a side's pick would tie, and either query may take either score).
SCORERS = {"recall": "recall", "f1": "f1", "judge": "judge"}
SIDES = (
    SideKey(("fp-0",), None),
    SideKey(("fp-1",), None),
    SideKey(("fp-0",), "run-0"),
    SideKey(("fp-1",), "run-1"),
    SideKey(("fp-1",), "run-0"),
    SideKey(("fp-0", "fp-1"), "run-1"),
)

scores = st.tuples(
    st.sampled_from(tuple(SCORERS)),
    st.sampled_from((0.0, 0.25, 0.5, 1.0, 0.3)),
    st.sampled_from(tuple(ScoreStatus)),
)
# ("gen", model, example, variant, run, status, with its example, its scores)
generation_ops = st.tuples(
    st.just("gen"),
    st.integers(0, 1),
    st.integers(0, len(EXAMPLES) - 1),
    st.integers(0, 1),
    st.integers(0, 1),
    st.sampled_from(tuple(GenerationStatus)),
    st.booleans(),
    st.lists(scores, max_size=2, unique_by=lambda s: s[0]),
)
ops = st.lists(
    st.one_of(
        generation_ops,
        generation_ops,
        st.tuples(st.just("rescore"), st.integers(0, 50), scores),
        st.tuples(st.just("example"), st.integers(0, len(EXAMPLES) - 1)),
    ),
    max_size=30,
)


def _score(scorer: str, value: float, status: ScoreStatus) -> Score:
    kept = None if status is ScoreStatus.ERROR else value
    return Score(scorer, SCORERS[scorer], kept, status, (), "")


def write(store: Store, steps: list[tuple[Any, ...]]) -> None:
    """Applies the ops through the store's writer, as the engine and rescore do; every
    generation starts at its own second (a tie of two starts is the arbitrary case)."""
    for i, spec in enumerate(
        (ModelSpec(name="m0", backend="hf"), ModelSpec(name="m1", backend="hf"))
    ):
        store.add_model(spec, f"fp-{i}", "o200k_base", 8192)
    clock = itertools.count(1_700_000_000)
    written: list[str] = []
    for op in steps:
        if op[0] == "gen":
            _, model, example, variant, run, status, with_example, made = op
            gid = f"g{len(written)}"
            if with_example:
                store.add_example(EXAMPLES[example])
            generation = make_generation(
                EXAMPLES[example], f"k-{model}-{example}-{variant}", gid, status,
                started_at=float(next(clock)), run_id=f"run-{run}", model_id=f"fp-{model}",
            )  # fmt: skip
            store.add_generation(generation, {})
            written.append(gid)
            for score in made:
                store.add_score(gid, _score(*score))
        elif op[0] == "rescore" and written:
            store.add_score(written[op[1] % len(written)], _score(*op[2]))
        elif op[0] == "example":
            store.add_example(EXAMPLES[op[1]])
    store.flush(force=True)


def _sorted_diffs(diffs: pa.Table) -> list[dict[str, Any]]:
    return sorted(diffs.to_pylist(), key=lambda r: (r["task"], r["length"], r["metric"], r["d"]))


def assert_same(ours: PairedScores, reference: PairedScores) -> None:
    """Equal row for row; the means to rounding (sums in another order)."""
    key = lambda c: (c.task, c.length, c.metric)  # noqa: E731
    assert len(ours.cells) == len(reference.cells)
    for a, b in zip(sorted(ours.cells, key=key), sorted(reference.cells, key=key), strict=True):
        for name in ("mean_a", "mean_b"):
            x, y = getattr(a, name), getattr(b, name)
            assert (x is None) == (y is None), (name, a, b)
            if x is not None:
                assert math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-15), (name, a, b)
        assert (a.task, a.length, a.metric, a.binary) == (b.task, b.length, b.metric, b.binary)
        assert (a.only_a, a.only_b, a.errors_a, a.errors_b, a.unscored_a, a.unscored_b) == (
            b.only_a, b.only_b, b.errors_a, b.errors_b, b.unscored_a, b.unscored_b,
        )  # fmt: skip
    assert _sorted_diffs(ours.diffs) == _sorted_diffs(reference.diffs)
    assert ours.changed == reference.changed


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    steps=ops,
    sides=st.tuples(st.sampled_from(SIDES), st.sampled_from(SIDES)),
    threshold=st.sampled_from((0.0, 0.5, 1.0)),
    limit=st.sampled_from((2, 1000)),
)
def test_the_faster_query_answers_as_the_reference_query(
    steps: list[tuple[Any, ...]],
    sides: tuple[SideKey, SideKey],
    threshold: float,
    limit: int,
) -> None:
    a, b = sides
    with (
        tempfile.TemporaryDirectory(prefix="lctui-pairs-") as tmp,
        open_store(Path(tmp) / "ab.duckdb") as store,
    ):
        write(store, steps)
        found = {
            reference: paired_scores(
                store, a, b, threshold=threshold, limit=limit, reference=reference
            )
            for reference in (False, True)
        }
        assert_same(found[False], found[True])


def test_both_queries_pair_retries_failures_and_missing_scores(tmp_path: Path) -> None:
    """One store with each case the property test draws, so that a failure names it."""
    ok, error = GenerationStatus.OK, GenerationStatus.ERROR
    okay, unparsed = ScoreStatus.OK, ScoreStatus.UNPARSED
    steps: list[tuple[Any, ...]] = [
        ("gen", 0, 0, 0, 0, ok, True, [("recall", 1.0, okay)]),
        ("gen", 1, 0, 0, 1, ok, True, [("recall", 0.0, okay), ("f1", 0.5, okay)]),
        ("gen", 0, 1, 0, 0, error, True, []),  # A failed
        ("gen", 1, 1, 0, 1, ok, True, [("recall", 1.0, okay)]),
        ("gen", 0, 2, 0, 0, ok, True, []),  # A unscored
        ("gen", 1, 2, 0, 1, ok, True, [("recall", 1.0, unparsed)]),
        ("gen", 0, 3, 0, 0, ok, False, [("recall", 1.0, okay)]),  # no example: task '?'
        ("gen", 1, 3, 0, 1, ok, False, [("recall", 0.25, okay)]),
        ("gen", 0, 0, 1, 1, ok, True, [("recall", 0.0, okay)]),  # a later retry of A
        ("rescore", 1, ("recall", 1.0, okay)),
    ]
    with open_store(tmp_path / "ab.duckdb") as store:
        write(store, steps)
        a, b = SideKey(("fp-0",), None), SideKey(("fp-1",), None)
        ours = paired_scores(store, a, b, threshold=0.5, limit=10)
        assert_same(ours, paired_scores(store, a, b, threshold=0.5, limit=10, reference=True))
        assert [(c.example_id, c.score_a, c.score_b) for c in ours.changed] == [
            (EXAMPLES[0].example_id, 0.0, 1.0),  # A's retry against B's re-score
            (EXAMPLES[3].example_id, 1.0, 0.25),
        ]
        assert ours.changed[0].generation_a == "g8"
        cells = {(c.task, c.length, c.metric): c for c in ours.cells}
        failed, unscored = cells["niah", 8192, "recall"], cells["vt", 4096, "recall"]
        assert (failed.errors_a, failed.unscored_a, unscored.errors_a, unscored.unscored_a) == (
            1, 0, 0, 1,
        )  # fmt: skip
