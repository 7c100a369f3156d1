"""`result_cells` (store/result_cells.py): the pivot kept on write answers what the full
query over `results_core` answers, after any sequence of writes, retries, re-scores,
late examples and imports; migration 10 fills it for an older file; rows written
around the writer make the readers take the full query."""

from __future__ import annotations

import dataclasses
import itertools
import math
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers.store_factories import make_example, make_generation
from lctui.core.types import GenerationStatus, ModelSpec, Score, ScoreStatus
from lctui.store import Store, open_store
from lctui.store.read.cells import cell_scores
from lctui.store.read.heat import heat_cells
from lctui.store.result_cells import cells_current
from lctui.store.transfer import export_parquet, import_parquet

VERSIONS = {"recall": 2, "judge": 1}
MODELS = (ModelSpec(name="m0", backend="hf"), ModelSpec(name="m1", backend="hf"))
EXAMPLES = [make_example(i, task=t, length=n) for i, (t, n) in enumerate(
    itertools.product(("niah", "vt"), (4096, 8192)))]  # fmt: skip

# The judge's and the citation scores stand beside a generation's own: never in a cell.
scores = st.tuples(
    st.sampled_from(("recall", "judge", "alce_citations")),
    st.sampled_from(("recall", "f1")),
    st.sampled_from((0.0, 0.25, 0.5, 1.0, 0.3)),
    st.sampled_from(tuple(ScoreStatus)),
    st.sampled_from((1, 2)),
)
# ("gen", model, example, variant, run, status, with its example, score or None)
generation_ops = st.tuples(
    st.just("gen"),
    st.integers(0, 1),
    st.integers(0, len(EXAMPLES) - 1),
    st.integers(0, 1),
    st.integers(0, 1),
    st.sampled_from(tuple(GenerationStatus)),
    st.booleans(),
    st.none() | scores,
)
ops = st.lists(
    st.one_of(
        generation_ops,
        st.tuples(st.just("rescore"), st.integers(0, 50), scores),
        st.tuples(st.just("example"), st.integers(0, len(EXAMPLES) - 1)),
        st.tuples(st.just("flush")),
        st.tuples(st.just("import")),
    ),
    max_size=25,
)


class Writes:
    """Applies ops to a store through its writer, as the engine and rescore do."""

    def __init__(self, store: Store, prefix: str) -> None:
        self.store = store
        self.prefix = prefix
        self.generations: list[str] = []
        self.clock = itertools.count(1_700_000_000)
        for i, spec in enumerate(MODELS):
            store.add_model(spec, f"fp-{i}", "o200k_base", 8192)

    def apply(self, op: tuple[Any, ...], imported: Path | None) -> None:
        kind = op[0]
        if kind == "gen":
            _, model, example, variant, run, status, with_example, score = op
            gid = f"{self.prefix}-g{len(self.generations)}"
            if with_example:
                self.store.add_example(EXAMPLES[example])
            generation = make_generation(
                EXAMPLES[example], f"k-{model}-{example}-{variant}", gid, status,
                started_at=float(next(self.clock)), run_id=f"run-{run}", model_id=f"fp-{model}",
            )  # fmt: skip
            self.store.add_generation(generation, {})
            self.generations.append(gid)
            if score is not None:
                self.store.add_score(gid, _score(*score))
        elif kind == "rescore" and self.generations:
            self.store.add_score(self.generations[op[1] % len(self.generations)], _score(*op[2]))
        elif kind == "example":
            self.store.add_example(EXAMPLES[op[1]])
        elif kind == "flush":
            self.store.flush(force=True)
        elif kind == "import" and imported is not None:
            import_parquet(self.store, imported)


def _score(scorer: str, metric: str, value: float, status: ScoreStatus, version: int) -> Score:
    kept = None if status is ScoreStatus.ERROR else value
    return Score(scorer, metric, kept, status, (), "", scorer_version=version)


def _same(table: Sequence[Any], full: Sequence[Any]) -> None:
    """Equal field by field; means and standard errors to rounding."""
    assert len(table) == len(full)
    for ours, theirs in zip(table, full, strict=True):
        a, b = dataclasses.asdict(ours), dataclasses.asdict(theirs)
        for name in ("mean_score", "stderr"):
            x, y = a.pop(name), b.pop(name)
            assert (x is None) == (y is None), (name, ours, theirs)
            if x is not None:
                assert math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12), (name, ours, theirs)
        assert a == b


def _heat_key(cell: Any) -> tuple[str, str, int]:
    return (cell.model, cell.task, cell.length)


def assert_table_answers_as_the_full_query(store: Store) -> None:
    with store.cursor() as cur:
        assert cells_current(cur)  # the readers below read the table, not the fallback
    for versions in (None, VERSIONS):
        for run in (None, "run-0", "run-1"):
            ours = cell_scores(store, run_id=run, versions=versions)
            _same(ours, cell_scores(store, run_id=run, versions=versions, through_views=True))
        heat = sorted(heat_cells(store, versions), key=_heat_key)
        _same(heat, sorted(heat_cells(store, versions, through_views=True), key=_heat_key))
    where: dict[str, Any] = {"models": ["fp-1"], "tasks": ["vt"], "lengths": [8192]}
    _same(cell_scores(store, **where), cell_scores(store, **where, through_views=True))


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(other=ops, steps=ops)
def test_result_cells_answer_as_the_full_query_after_any_writes(
    other: list[tuple[Any, ...]], steps: list[tuple[Any, ...]]
) -> None:
    with tempfile.TemporaryDirectory(prefix="lctui-cells-") as tmp:
        folder = Path(tmp)
        with open_store(folder / "other.duckdb") as source:
            writes = Writes(source, "o")
            for op in other:
                writes.apply(op, None)
            source.flush(force=True)
            export_parquet(source, folder / "export")
        with open_store(folder / "main.duckdb") as store:
            writes = Writes(store, "m")
            for op in steps:
                writes.apply(op, folder / "export")
            store.flush(force=True)
            assert_table_answers_as_the_full_query(store)
        with open_store(folder / "main.duckdb", read_only=True) as store:
            assert_table_answers_as_the_full_query(store)


OK_SCORE = ("recall", "recall", 1.0, ScoreStatus.OK, 1)
FLUSH = ("flush",)


@pytest.mark.parametrize(
    "steps",
    [
        # a generation written before its example: the example moves it to its cell
        [("gen", 0, 2, 0, 0, GenerationStatus.OK, False, OK_SCORE), FLUSH, ("example", 2)],
        # a re-score in a later flush replaces the score in its cell
        [("gen", 0, 1, 0, 0, GenerationStatus.OK, True, OK_SCORE), FLUSH,
         ("rescore", 0, ("recall", "recall", 0.0, ScoreStatus.UNPARSED, 2))],
        # a retry in a later flush (of another run) replaces the failed attempt
        [("gen", 1, 0, 0, 0, GenerationStatus.ERROR, True, None), FLUSH,
         ("gen", 1, 0, 0, 1, GenerationStatus.OK, True, OK_SCORE)],
        # an import adds a retry of a stored key and a score
        [("gen", 0, 0, 0, 1, GenerationStatus.ERROR, True, None), FLUSH, ("import",)],
        # a citation score (lctui cite-score) beside the generation's own changes no cell
        [("gen", 0, 1, 0, 0, GenerationStatus.OK, True, OK_SCORE), FLUSH,
         ("rescore", 0, ("alce_citations", "citation_rec", 0.5, ScoreStatus.OK, 1))],
    ],
    ids=["late-example", "rescore", "retry", "import", "citation-score"],
)  # fmt: skip
def test_result_cells_follow_each_kind_of_change(
    tmp_path: Path, steps: list[tuple[Any, ...]]
) -> None:
    with open_store(tmp_path / "other.duckdb") as source:
        Writes(source, "o").apply(("gen", 0, 0, 0, 0, GenerationStatus.OK, True, OK_SCORE), None)
        source.flush(force=True)
        export_parquet(source, tmp_path / "export")
    with open_store(tmp_path / "main.duckdb") as store:
        writes = Writes(store, "m")
        for op in steps:
            writes.apply(op, tmp_path / "export")
        store.flush(force=True)
        assert_table_answers_as_the_full_query(store)


def _write_a_few(store: Store) -> None:
    writes = Writes(store, "w")
    ok, error = GenerationStatus.OK, GenerationStatus.ERROR
    for op in (
        ("gen", 0, 0, 0, 0, ok, True, ("recall", "recall", 1.0, ScoreStatus.OK, 1)),
        ("gen", 0, 0, 0, 1, ok, True, ("recall", "recall", 0.5, ScoreStatus.OK, 2)),
        ("gen", 1, 3, 0, 0, error, True, None),
        ("gen", 1, 2, 0, 0, ok, False, None),
        ("gen", 1, 1, 1, 0, ok, True, ("recall", "recall", 0.0, ScoreStatus.UNPARSED, 1)),
    ):
        writes.apply(op, None)
    store.flush(force=True)


def test_migration_10_fills_result_cells_of_an_older_file(tmp_path: Path) -> None:
    db = tmp_path / "v9.duckdb"
    with open_store(db) as store:
        _write_a_few(store)
    # The same file as schema 9 left it: no result_cells.
    con = duckdb.connect(str(db))
    con.execute("DROP TABLE result_cells")
    con.execute("DROP TABLE result_cells_stamp")
    con.execute("DELETE FROM schema_version WHERE version >= 10")
    con.execute("ALTER TABLE generations DROP COLUMN example_hash")  # migration 11
    con.execute("ALTER TABLE generations DROP COLUMN calls")  # migration 12
    con.execute("DROP TABLE run_reused")  # migration 13
    con.close()
    with open_store(db) as store:
        assert store.migrated_from == 9
        assert_table_answers_as_the_full_query(store)
        outdated = [c.n_outdated for c in cell_scores(store, versions=VERSIONS)]
        assert outdated == [0, 1, 0, 0]  # the unparsed score of m1 @ niah 8192 is v1


def test_rows_written_around_the_writer_are_read_by_the_full_query(tmp_path: Path) -> None:
    with open_store(tmp_path / "hand.duckdb") as store:
        _write_a_few(store)
        before = cell_scores(store)
        with store.cursor() as cur:
            cur.execute(
                "INSERT INTO generations (generation_id, gen_key, run_id, model_id, example_id,"
                " status, started_at) SELECT 'hand', 'k-hand', 'run-0', 'fp-0', example_id,"
                " 'ok', TIMESTAMP '2030-01-01' FROM examples LIMIT 1"
            )
            assert not cells_current(cur)
        after = cell_scores(store)
        assert after != before
        assert after == cell_scores(store, through_views=True)
