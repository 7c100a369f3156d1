"""Analyses over results whose score rows are missing: compare never pairs a missing
score (as 0 or at all) and says how many it left out; curves, correlation, the run
report and the LIFEval metrics leave missing scores out and count them."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from helpers.gold_runs import two_gold_runs
from helpers.unscored_runs import delete_scores, gold_run
from lctui.analysis.compare import compare
from lctui.analysis.correlation import correlate
from lctui.analysis.curves import effective_lengths, length_curves
from lctui.analysis.pairing import NoPairs
from lctui.analysis.report_md import render
from lctui.analysis.report_run import run_blocks
from lctui.store import Store, open_store
from lctui.store.derived import refresh_derived
from lctui.suites.lifbench.analysis.metrics import lifbench_reports, lifbench_responses

MODEL = "Qwen2.5-7B"  # one of the published LIFBench models
OF_MODEL = "model_id IN (SELECT model_id FROM models WHERE name = ?)"


@pytest.fixture(scope="module")
def ab_template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """Two gold runs on the same 4 examples: every pair scores 1.0 on both sides."""
    return two_gold_runs(tmp_path_factory.mktemp("unscored-ab"), 4)


@pytest.fixture
def ab(ab_template: tuple[Path, str, str], tmp_path: Path) -> tuple[Path, str, str]:
    db, run_a, run_b = ab_template
    copy = tmp_path / "ab.duckdb"
    shutil.copy(db, copy)
    return copy, run_a, run_b


def _first_examples(db: Path, n: int) -> list[str]:
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("SELECT example_id FROM examples ORDER BY 1 LIMIT ?", [n]).fetchall()
    return [str(r[0]) for r in rows]


def _compare(db: Path, run_a: str, run_b: str) -> object:
    with open_store(db, read_only=True) as store:
        return compare(store, f"run:{run_a}", f"run:{run_b}")


def test_compare_pairs_no_missing_score_and_counts_them(ab: tuple[Path, str, str]) -> None:
    db, run_a, run_b = ab
    e0, e1 = _first_examples(db, 2)
    delete_scores(db, "run_id = ? AND example_id IN (?, ?)", [run_b, e0, e1])
    with open_store(db, read_only=True) as store:
        result = compare(store, f"run:{run_a}", f"run:{run_b}")
    (cell,) = result.cells
    assert (cell.n, cell.mean_a, cell.mean_b) == (2, 1.0, 1.0)  # not (4, 1.0, 0.5)
    assert (cell.unscored_a, cell.unscored_b, cell.errors_b) == (0, 2, 0)
    assert (result.only_a, result.only_b, result.errors_a, result.errors_b) == (0, 0, 0, 0)
    assert result.as_dict()["unmatched"]["unscored_b"] == 2


def test_compare_with_missing_scores_on_both_sides(ab: tuple[Path, str, str]) -> None:
    """A lacks a score on e0, B on e1, both on e2; on e3 A failed and B's score is
    missing: no pair left, each left-out counted once on its side."""
    db, run_a, run_b = ab
    e0, e1, e2, e3 = _first_examples(db, 4)
    delete_scores(db, "run_id = ? AND example_id IN (?, ?)", [run_a, e0, e2])
    delete_scores(db, "run_id = ? AND example_id IN (?, ?, ?)", [run_b, e1, e2, e3])
    with duckdb.connect(str(db)) as con:
        failed = "(SELECT generation_id FROM generations WHERE run_id = ? AND example_id = ?)"
        con.execute(
            f"UPDATE generations SET status = 'error' WHERE generation_id = {failed}", [run_a, e3]
        )
        con.execute(
            f"UPDATE scores SET status = 'error', value = NULL WHERE generation_id = {failed}",
            [run_a, e3],
        )
        # rows changed by hand: what the writer keeps on write (store/result_cells.py)
        refresh_derived(con)
    with open_store(db, read_only=True) as store, pytest.raises(NoPairs) as refused:
        compare(store, f"run:{run_a}", f"run:{run_b}")
    # Every example has a side without a score: no comparison, and each left-out is
    # counted once on its side in the reason.
    why = str(refused.value)
    assert "share 4 example(s), but none was scored on both sides" in why
    assert f"1 failed on run:{run_a}, 2 not scored on run:{run_a}" in why
    assert f"3 not scored on run:{run_b}" in why and "lctui rescore" in why


def test_compare_of_sides_without_any_score_has_no_cell(ab: tuple[Path, str, str]) -> None:
    db, run_a, run_b = ab
    delete_scores(db, "run_id = ?", [run_b])
    with open_store(db, read_only=True) as store, pytest.raises(NoPairs) as refused:
        compare(store, f"run:{run_a}", f"run:{run_b}")
    why = str(refused.value)
    assert f"(4 not scored on run:{run_b}): lctui rescore scores the missing ones" in why
    assert "failed" not in why


@pytest.fixture
def gold_db(tmp_path: Path) -> Path:
    db = tmp_path / "gold.duckdb"
    gold_run(db)
    return db


def test_curves_and_run_report_show_missing_scores_as_missing(gold_db: Path) -> None:
    delete_scores(gold_db, "task = 'vt'")
    with open_store(gold_db, read_only=True) as store:
        curves = {c.task: c for c in length_curves(store)}
        report = render(run_blocks(store), "md")
    (niah,) = curves["niah_single_1"].points
    (vt,) = curves["vt"].points
    assert (niah.mean, niah.n, niah.n_unscored) == (1.0, 3, 0)
    assert (vt.mean, vt.n, vt.n_unscored, vt.n_error) == (None, 0, 3, 0)
    assert "| gold (reference) | vt | - n=0 not scored=3 |" in report
    # the per-task table counts them apart too: n 0, not scored 3, no mean
    assert "| gold (reference) | vt | 1 | 0 | 0 | 0 | 0 | 0 | 3 | 0 | - |" in report
    assert "3 ok, 0 unparsed, 0 errors, 0 cancelled, 3 not scored; mean score 1.000" in report
    assert "0.00" not in report


@pytest.fixture
def published(_published_lifbench_template: Path, tmp_path: Path) -> Iterator[Store]:
    """A copy of the published LIFBench scores per test (the tests delete rows)."""
    db = tmp_path / "published.duckdb"
    shutil.copy(_published_lifbench_template, db)
    with open_store(db) as store:
        yield store


def _generations(store: Store, where: str, params: list[object]) -> int:
    cur = store.cursor()
    try:
        row = cur.execute(f"SELECT count(*) FROM generations WHERE {where}", params).fetchone()
    finally:
        cur.close()
    assert row is not None
    return int(row[0])


def test_correlation_leaves_a_model_without_scores_out_of_that_task(published: Store) -> None:
    assert published.path is not None
    before = correlate(published, length=3 * 1024)
    qa, repeat = before.labels.index("qa"), before.labels.index("repeat")
    assert before.cells[qa][repeat].n == 20
    delete_scores(published.path, f"{OF_MODEL} AND task = 'qa' AND length = 3072", [MODEL])
    after = correlate(published, length=3 * 1024)
    assert after.cells[qa][repeat].n == 19  # the model's missing qa scores are no 0
    assert MODEL not in [p.model for p in after.scatter("qa", "repeat")]


def test_lifeval_metrics_leave_responses_without_a_score_out(published: Store) -> None:
    assert published.path is not None
    total = _generations(published, OF_MODEL, [MODEL])
    qa = delete_scores(published.path, f"{OF_MODEL} AND task = 'qa'", [MODEL])
    assert 0 < qa < total
    (report,) = lifbench_reports(published, [MODEL])
    assert (report.responses, report.unscored) == (total - qa, qa)
    assert "qa" not in report.ars_by_task
    assert report.as_dict()["unscored"] == qa
    assert len(lifbench_responses(published, [MODEL])) == total - qa
    standard = lifbench_reports(published, ["standard"])[0].as_dict()
    assert "unscored" not in standard  # said only when some score is missing


def test_effective_length_skips_a_length_whose_scores_are_missing(gold_db: Path) -> None:
    """gold is a reference, so it is left out; a copy named as a model is not."""
    delete_scores(gold_db, "task = 'vt'")
    with duckdb.connect(str(gold_db)) as con:
        con.execute("UPDATE models SET reference = false")
    with open_store(gold_db, read_only=True) as store:
        (effective,) = effective_lengths(length_curves(store))
    assert effective.means == {1024: 1.0}  # vt's missing scores are not a 0 in the mean
