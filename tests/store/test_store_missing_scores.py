"""A generation whose score row is missing is `unscored`: never a 0, never `ok`, left out
of every mean and counted apart (issue 15, item 2), on a real gold run's file."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from helpers.unscored_runs import delete_scores, gold_run
from lctui.core.errors import StoreError
from lctui.store import cell_scores, get_generation, list_runs, open_store, run_summary


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """gold on niah_single_1 and vt at 1K, 3 examples each: every score 1.0."""
    db = tmp_path_factory.mktemp("unscored-template") / "gold.duckdb"
    gold_run(db)
    return db


@pytest.fixture
def db(template: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "gold.duckdb"
    shutil.copy(template, copy)
    return copy


def _statuses(db: Path) -> list[tuple[str, str, float | None]]:
    with open_store(db, read_only=True) as store:
        cur = store.cursor()
        rows = cur.execute(
            "SELECT task, status, score FROM results ORDER BY task, status"
        ).fetchall()
        cur.close()
    return [(str(t), str(s), v) for t, s, v in rows]


def test_results_say_unscored_with_no_score_not_ok(db: Path) -> None:
    delete_scores(db, "task = 'vt'")
    rows = _statuses(db)
    assert rows == [("niah_single_1", "ok", 1.0)] * 3 + [("vt", "unscored", None)] * 3
    with open_store(db, read_only=True) as store:
        cur = store.cursor()
        core = cur.execute(
            "SELECT status, count(*) FROM results_core WHERE task = 'vt' GROUP BY ALL"
        ).fetchall()
        cur.close()
    assert core == [("unscored", 3)]


def test_cell_scores_leave_missing_scores_out_of_the_mean(db: Path) -> None:
    """Every score of vt deleted, one of niah_single_1: gold still reads 1.0 where it
    has scores and no mean where it has none, with the missing ones counted."""
    delete_scores(db, "task = 'vt'")
    with duckdb.connect(str(db)) as con:
        first = con.execute(
            "SELECT min(generation_id) FROM generations WHERE task = 'niah_single_1'"
        ).fetchone()
    assert first is not None
    delete_scores(db, "generation_id = ?", [first[0]])
    with open_store(db, read_only=True) as store:
        niah, vt = cell_scores(store)
    assert (niah.task, niah.mean_score, niah.n_scored, niah.n_unscored) == (
        "niah_single_1",
        1.0,
        2,
        1,
    )
    assert (vt.task, vt.mean_score, vt.stderr, vt.n_scored, vt.n_ok) == ("vt", None, None, 0, 0)
    assert (vt.n_unscored, vt.n_error, vt.n_cancelled) == (3, 0, 0)


def test_run_summary_counts_missing_scores_apart(db: Path) -> None:
    delete_scores(db, "task = 'vt'")
    with open_store(db, read_only=True) as store:
        summary = run_summary(store)
        listed = list_runs(store)
    assert summary is not None and listed == [summary]
    assert (summary.generations, summary.ok, summary.unscored, summary.errors) == (6, 3, 3, 0)
    assert summary.mean_score == 1.0  # over the three scored generations, not (3 + 0) / 6


def test_every_score_deleted_leaves_no_mean_at_all(db: Path) -> None:
    delete_scores(db)
    with open_store(db, read_only=True) as store:
        cells = cell_scores(store)
        summary = run_summary(store)
    assert [(c.mean_score, c.n_scored, c.n_unscored) for c in cells] == [(None, 0, 3)] * 2
    assert summary is not None and summary.mean_score is None and summary.unscored == 6


def test_get_generation_says_not_scored(db: Path) -> None:
    delete_scores(db, "task = 'vt'")
    with open_store(db, read_only=True) as store:
        cur = store.cursor()
        row = cur.execute("SELECT generation_id FROM generations WHERE task = 'vt'").fetchone()
        cur.close()
        assert row is not None
        record = get_generation(store, str(row[0]))
    assert record is not None
    assert (record.status, list(record.scores), record.score) == ("ok", [], None)
    assert (record.score_status, record.result_status) == (None, "unscored")


def test_score_targets_find_the_generations_without_a_score(db: Path) -> None:
    from lctui.store.rescoring import score_targets  # new with `lctui rescore`

    delete_scores(db, "task = 'vt'")
    with open_store(db, read_only=True) as store:
        missing = score_targets(store)
        everything = score_targets(store, "all")
        only_niah = score_targets(store, tasks=["niah_single_1"])
        other_run = score_targets(store, run_id="no-such-run")
        by_model = score_targets(store, models=["gold"], lengths=[1024])
    assert [(t.model, t.task, t.length) for t in missing] == [("gold", "vt", 1024)] * 3
    assert len(everything) == 6 and by_model == missing
    assert only_niah == [] and other_run == []


def test_an_older_file_shows_the_new_status_once_upgraded(db: Path) -> None:
    """A file written before `unscored` existed (schema 5, its views without the
    status): read-only it is refused with what to do (a later migration adds columns),
    and once opened read-write its views are the current ones."""
    delete_scores(db, "task = 'vt'")
    with duckdb.connect(str(db)) as con:
        con.execute("DELETE FROM schema_version WHERE version > 5")
        for view in ("results", "results_core"):  # as an older lctui made them
            con.execute(f"CREATE OR REPLACE VIEW {view} AS SELECT 'ok' AS status, NULL AS score")
        for table in ("examples", "generations", "scores", "rubric_points"):
            con.execute(f"ALTER TABLE {table} DROP COLUMN repaired")
        con.execute("ALTER TABLE runs DROP COLUMN pid")
        con.execute("ALTER TABLE generations DROP COLUMN example_hash")
        con.execute("ALTER TABLE generations DROP COLUMN calls")  # migration 12
        con.execute("DROP TABLE run_reused")  # migration 13
        for table in ("scores", "rubric_points"):
            con.execute(f"ALTER TABLE {table} DROP COLUMN scorer_version")
    with pytest.raises(StoreError, match="open it once read-write"):
        open_store(db, read_only=True)
    with open_store(db) as store:
        assert store.migrated_from == 5
    assert ("vt", "unscored", None) in _statuses(db)
    with open_store(db, read_only=True) as store:
        assert {c.task: c.n_unscored for c in cell_scores(store)} == {"niah_single_1": 0, "vt": 3}
