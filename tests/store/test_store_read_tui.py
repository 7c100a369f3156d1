"""The reads the TUI makes apart from cell scores and generations, on a real file: the
heatmap's cells and change stamp, the launch screen's timings, the compare screen's
sides, a cell's examples and the SQL console's catalog."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from helpers.store_factories import (
    GOLD,
    make_example,
    make_generation,
    make_score,
    write_tiny_run,
)
from lctui.core.types import GenerationStatus
from lctui.store import Store
from lctui.store.read.catalog import ColumnInfo, count_generations, view_columns
from lctui.store.read.examples import cell_examples
from lctui.store.read.heat import ChangeStamp, HeatCellCounts, change_stamp, heat_cells
from lctui.store.read.runs import CompareSide, RunTiming, compare_sides, run_timings


def _fill(store: Store) -> None:
    """run-1, tiny @ 4096: 1.0, 0.5, unparsed, one error; @ 8192: 1.0. run-2: gold @ 4096."""
    write_tiny_run(store)
    store.add_model(GOLD, "fp-gold", "o200k_base", 0)
    store.start_run("run-2", {"argv": ["run"]})
    example = make_example(0)
    gold = make_generation(example, "k-gold", "g-gold", run_id="run-2", model_id="fp-gold")
    store.add_generation(gold, {})
    store.add_score("g-gold", make_score(1.0))
    store.finish_run("run-2", "finished")
    store.flush(force=True)


def test_heat_cells_count_apart_what_the_mean_leaves_out(store: Store) -> None:
    _fill(store)
    cells = {(c.model, c.length): c for c in heat_cells(store)}
    assert set(cells) == {("tiny", 4096), ("tiny", 8192), ("gold", 4096)}
    cell = cells[("tiny", 4096)]
    assert isinstance(cell, HeatCellCounts) and cell.task == "niah_single"
    assert cell.mean_score == pytest.approx(0.5)  # (1 + 0.5 + 0) / 3
    assert (cell.n_scored, cell.n_unparsed, cell.n_error, cell.n_unscored) == (3, 1, 1, 0)
    assert (cell.reference, cells[("gold", 4096)].reference) == (False, True)
    assert cell.n_outdated == 0


def test_change_stamp_changes_when_a_score_is_written(store: Store) -> None:
    empty = change_stamp(store)
    assert empty == ChangeStamp(0, None, 0, None)
    _fill(store)
    before = change_stamp(store)
    assert (before.generations, before.scores) == (6, 6)
    store.add_score("g-8192-0", make_score(0.5))
    store.flush(force=True)
    after = change_stamp(store)
    assert after != before and after.scores == 7


def test_run_timings_sum_the_runs_made_on_one_machine(store: Store) -> None:
    """Per model and run of machine m1: its generations that succeeded (x: length, y:
    latency), their span and the load time its command recorded; run-1 (recorded no
    machine, as runs imported from elsewhere) and run-3 (another machine) are left out."""
    _fill(store)
    store.add_model(GOLD, "fp-gold", "o200k_base", 0)
    for run, machine, load in (("run-m1", "m1", 2.5), ("run-3", "m2", 1.0)):
        store.start_run(run, {"timing": {"machine": machine, "load_s": {"gold": load}}})
        for i, (length, latency) in enumerate([(1024, 1.0), (2048, 3.0), (2048, 2.0)]):
            example = make_example(i, length=length)
            generation = make_generation(
                example, f"k-{run}-{i}", f"g-{run}-{i}", run_id=run, model_id="fp-gold",
                started_at=1000.0 + 10 * i,
            )  # fmt: skip
            store.add_example(example)
            store.add_generation(dataclasses.replace(generation, latency_s=latency), {})
        store.finish_run(run, "finished")
    failed = make_generation(
        make_example(9), "k-bad", "g-bad", GenerationStatus.ERROR, run_id="run-m1",
        model_id="fp-gold",
    )  # fmt: skip
    store.add_generation(failed, {})
    store.flush(force=True)
    (timing,) = run_timings(store, "m1")
    assert isinstance(timing, RunTiming)
    assert (timing.model, timing.backend, timing.run_id, timing.n) == ("gold", "gold", "run-m1", 3)
    assert (timing.sum_x, timing.sum_y) == (5120, 6.0)
    assert timing.sum_xy == 1024 * 1.0 + 2048 * 3.0 + 2048 * 2.0
    assert timing.span_s == pytest.approx(22.0)  # from 1000 to 1020 + 2.0
    assert timing.load_s == 2.5
    assert run_timings(store, "elsewhere") == []


def test_compare_sides_lists_models_then_runs_oldest_first(store: Store) -> None:
    _fill(store)
    sides = compare_sides(store)
    assert all(isinstance(s, CompareSide) for s in sides)
    assert [(s.kind, s.spec, s.label) for s in sides] == [
        ("model", "gold", "gold"),
        ("model", "tiny", "tiny"),
        ("run", "run:run-1", "tiny"),
        ("run", "run:run-2", "gold"),
    ]


def test_cell_examples_filter_limit_and_shorten_the_output(store: Store) -> None:
    _fill(store)
    cell: dict[str, Any] = {"model": "tiny", "task": "niah_single", "length": 4096}
    every = cell_examples(store, **cell, limit=10, head_chars=60)
    assert [r.generation_id for r in every] == [f"g-4096-{i}" for i in range(4)]
    assert every[0].head == "4217." and every[3].head.startswith("error: TimeoutError")
    failures = cell_examples(store, **cell, which="failures", limit=10, head_chars=60)
    assert [r.status for r in failures] == ["ok", "unparsed"]  # 0.5, then the unparsed
    errors = cell_examples(store, **cell, which="errors", limit=10, head_chars=3)
    assert [(r.status, r.head) for r in errors] == [("error", "err")]
    assert len(cell_examples(store, **cell, limit=2, head_chars=60)) == 2
    at_depth = cell_examples(store, **cell, depth=40.0, limit=10, head_chars=60)
    assert len(at_depth) == 4  # every example's needle is at 42.5 %
    assert cell_examples(store, **cell, depth=90.0, limit=10, head_chars=60) == []


def test_view_columns_and_count_generations(store: Store) -> None:
    assert count_generations(store) == 0
    _fill(store)
    assert count_generations(store) == 6
    columns = view_columns(store, ["runs", "nope"])
    assert columns[0] == ColumnInfo("runs", "run_id", "VARCHAR")
    assert {c.table for c in columns} == {"runs"}
