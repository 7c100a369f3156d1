"""A/B comparison on two real gold runs in one file, with rows altered to differ."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

from helpers.gold_runs import alter
from lctui.analysis import stats
from lctui.analysis.compare import compare, output_diff, side_by_side, side_notes
from lctui.core.errors import UserInputError
from lctui.resources import sample_runs_dir
from lctui.store import Store, open_store
from lctui.store.derived import refresh_derived
from lctui.store.read.runs import compare_sides
from lctui.store.samples import sample_run_ids
from lctui.store.transfer import import_parquet


@pytest.fixture
def altered(
    two_gold_runs_db: tuple[Path, str, str], tmp_path: Path
) -> Iterator[tuple[Store, str, str, list[str]]]:
    db, run_a, run_b = two_gold_runs_db
    copy = tmp_path / "ab.duckdb"
    shutil.copy(db, copy)
    examples = alter(copy, run_a, run_b)
    with open_store(copy) as store:
        yield store, f"run:{run_a}", f"run:{run_b}", examples


def test_pairs_only_shared_examples_and_counts_the_rest(
    altered: tuple[Store, str, str, list[str]],
) -> None:
    store, a, b, _ = altered
    result = compare(store, a, b)
    assert (result.only_a, result.only_b, result.errors_a, result.errors_b) == (2, 0, 0, 1)
    (cell,) = result.cells
    assert (cell.task, cell.length, cell.n) == ("niah_single_1", 1024, 5)
    assert cell.mean_a == pytest.approx(4 / 5) and cell.mean_b == pytest.approx(2 / 5)
    assert cell.diff == pytest.approx(0.4)
    assert cell.test == "mcnemar"
    assert cell.p == pytest.approx(sps.binomtest(3, 4, 0.5).pvalue)
    # e7 both passed, e3-e5 only A, e6 only B: Newcombe's interval of that table
    expected = stats.newcombe_interval(stats.PairTable(both=1, a_only=3, b_only=1, neither=0))
    assert cell.ci.method == "newcombe"
    assert cell.ci.pair() == pytest.approx([expected.low, expected.high])
    assert cell.ci.low is not None and cell.ci.high is not None
    assert -1.0 <= cell.ci.low < cell.diff < cell.ci.high <= 1.0
    assert (cell.a_better, cell.b_better) == (3, 1)


def test_a_newer_failed_attempt_is_the_one_compared(
    altered: tuple[Store, str, str, list[str]],
) -> None:
    """B re-ran e7 in the same run and failed: B's latest generation of e7 is the error,
    so the pair is left out as an error, not scored with the older attempt's score."""
    store, a, b, examples = altered
    cur = store.cursor()
    row = cur.execute(
        "SELECT generation_id FROM generations WHERE run_id = ? AND example_id = ?",
        [b.removeprefix("run:"), examples[7]],
    ).fetchone()
    assert row is not None
    cur.execute(
        "INSERT INTO generations SELECT * REPLACE ('retry-e7' AS generation_id, "
        "started_at + INTERVAL 1 HOUR AS started_at, 'error' AS status, NULL AS gen_hash) "
        "FROM generations WHERE generation_id = ?",
        [row[0]],
    )
    cur.execute(
        "INSERT INTO scores SELECT * REPLACE ('retry-e7' AS generation_id, NULL AS value, "
        "'error' AS status, NULL AS gen_hash) FROM scores WHERE generation_id = ?",
        [row[0]],
    )
    refresh_derived(cur)  # rows written by hand: what the writer does after a flush
    result = compare(store, a, b)
    assert (result.only_a, result.only_b, result.errors_a, result.errors_b) == (2, 0, 0, 2)
    (cell,) = result.cells
    assert cell.n == 4 and cell.mean_b == pytest.approx(1 / 4)


def test_changed_pairs_carry_both_generations_and_open_side_by_side(
    altered: tuple[Store, str, str, list[str]],
) -> None:
    store, a, b, examples = altered
    result = compare(store, a, b)
    changed = {c.example_id: c for c in result.changed}
    assert set(changed) == set(examples[3:7])
    assert [changed[e].a_better for e in examples[3:7]] == [True, True, True, False]
    view = side_by_side(store, changed[examples[3]])
    assert view.a.generation_id == changed[examples[3]].generation_a
    assert view.b.output == "no idea at all"
    assert view.a.scores and view.b.scores
    assert any(span.kind != "equal" for span in view.diff)
    assert "".join(s.b for s in view.diff) == "no idea at all"


def test_graded_scores_use_wilcoxon_and_a_bootstrap_interval(
    altered: tuple[Store, str, str, list[str]],
) -> None:
    store, a, b, examples = altered
    cur = store.cursor()
    cur.execute(
        "UPDATE scores SET value = 0.5 WHERE generation_id IN (SELECT generation_id FROM "
        "generations WHERE run_id = ? AND example_id = ?)",
        [a.removeprefix("run:"), examples[7]],
    )
    cur.close()
    result = compare(store, a, b, seed=3)
    (cell,) = result.cells
    assert cell.test == "wilcoxon"
    # e7: A 0.5, B 1; so d = A - B is 1, 1, 1, -1, -0.5: five non-zero differences.
    d = np.array([1, 1, 1, -1, -0.5])
    assert cell.p == pytest.approx(float(sps.wilcoxon(d).pvalue)) and cell.reason is None
    assert (cell.a_better, cell.b_better) == (3, 2)
    assert cell.ci.method == "bootstrap" and cell.ci.low is not None and cell.ci.high is not None
    assert cell.ci.low <= cell.diff <= cell.ci.high
    assert compare(store, a, b, seed=3).cells[0].ci == cell.ci


def test_as_dict_is_the_issue_json(altered: tuple[Store, str, str, list[str]]) -> None:
    store, a, b, _ = altered
    out = compare(store, a, b).as_dict()
    assert set(out) == {"a", "b", "unmatched", "cells"}
    assert (out["a"], out["b"]) == (a, b)
    (cell,) = out["cells"]
    assert list(cell) == ["task", "length", "n", "mean_a", "mean_b", "diff", "ci", "test", "p"]
    assert len(cell["ci"]) == 2


def test_sides_resolve_with_clear_errors(altered: tuple[Store, str, str, list[str]]) -> None:
    store, a, b, _ = altered
    assert compare(store, f"{a}@gold", b).cells[0].n == 5
    with pytest.raises(UserInputError, match=r"no model 'nope'.*models: gold"):
        compare(store, "nope", b)
    with pytest.raises(UserInputError, match="no generations of run 'missing'"):
        compare(store, "run:missing", b)
    with pytest.raises(UserInputError, match="has no model 'other'"):
        compare(store, f"{a}@other", b)
    with pytest.raises(UserInputError, match="same generations"):
        compare(store, a, a)


def test_output_diff_keeps_text_and_marks_changes() -> None:
    spans = output_diff("the key is 42.", "the key is 17.")
    assert "".join(s.a for s in spans) == "the key is 42."
    assert "".join(s.b for s in spans) == "the key is 17."
    assert [s.kind for s in spans if s.kind != "equal"] == ["replace"]


def test_one_model_on_both_sides_is_said_and_its_own_generations_are_refused(
    altered: tuple[Store, str, str, list[str]],
) -> None:
    """gold's latest generation of an example is run B's, except e0 and e1, which B
    lacks: gold against A shares those two generations, gold against B all of them."""
    store, a, b, _ = altered
    runs = compare(store, a, b)
    assert runs.same_model == "gold" and runs.same_generations == 0
    assert side_notes(runs)[0].startswith("both sides are gold:")
    model = compare(store, "gold", a)
    assert model.same_model == "gold" and model.same_generations == 2
    assert "2 example(s) are the same generation on both sides" in " ".join(side_notes(model))
    with pytest.raises(UserInputError, match=r"are the same generations: every example"):
        compare(store, "gold", b)


def test_a_sample_run_is_named_so_and_never_compared_with_its_own_model(
    tmp_path: Path,
) -> None:
    with open_store(tmp_path / "samples.duckdb") as store:
        assert import_parquet(store, sample_runs_dir() / "smollm2-synthetic") > 0
        (run,) = sample_run_ids()
        sides = compare_sides(store)
        assert [(s.spec, s.sample) for s in sides] == [
            ("smollm2-135m", False),
            (f"run:{run}", True),
        ]
        with pytest.raises(UserInputError) as refused:
            compare(store, "smollm2-135m", f"run:{run}")
    message = str(refused.value)
    assert f"run:{run} (sample run) are the same generations" in message
    assert "compare two models, or two runs of smollm2-135m" in message
