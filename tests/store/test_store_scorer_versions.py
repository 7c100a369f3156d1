"""Scorer versions in the store: every score row and rubric point carries the version of
the rules that made it, migration 8 marks older rows as made before versions (and
published or error rows as made by no scorer), Parquet carries the versions, and the
reads find exactly the scores an older version made."""

from __future__ import annotations

import time
from pathlib import Path

import duckdb
import pytest

from helpers.lifbench_data import write_csv
from helpers.outdated_runs import bump, stored_versions
from helpers.unscored_runs import gold_run
from lctui.core.types import Generation, GenerationStatus
from lctui.engine.rescore import find_targets, rescore_targets
from lctui.scoring import error_score
from lctui.scoring.versions import SCORER_VERSIONS, current_versions
from lctui.store import Store, open_store
from lctui.store.outdated import OutdatedScores, outdated_scores
from lctui.store.rescoring import score_targets
from lctui.store.transfer import export_parquet, import_parquet
from lctui.suites.lifbench.importer import import_lifbench_scores

QA_HEADER = ("model", "ins_id", "param_id", "length", "correct", "format", "total_score")


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A gold run (niah_single_1 and vt at 1K, 3 each) and two published LIFBench
    responses of a model `m`, in one file."""
    root = tmp_path_factory.mktemp("scorer-versions")
    db = root / "gold.duckdb"
    gold_run(db)
    folder = root / "published"
    folder.mkdir()
    write_csv(
        folder / "onedoc-qa.csv",
        QA_HEADER,
        [("m", 0, 0, 3, 1.0, 1.0, 1.0), ("m", 1, 0, 3, 0.0, 1.0, 0.4)],
    )
    with open_store(db) as store:
        import_lifbench_scores(store, folder)
    return db


@pytest.fixture
def db(template: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "gold.duckdb"
    copy.write_bytes(template.read_bytes())
    return copy


def _rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_each_score_and_point_carries_its_scorers_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(SCORER_VERSIONS, "recall", 7)  # read when scoring, not a constant
    db = tmp_path / "gold.duckdb"
    gold_run(db, 2)
    assert stored_versions(db) == {("recall", 7, True): 4}
    assert stored_versions(db, "rubric_points") == {("recall", 7, True): 12}
    assert _rows(db, "SELECT DISTINCT scorer_version FROM results") == [(7,)]
    assert _rows(db, "SELECT DISTINCT scorer_version FROM results_core") == [(7,)]
    assert _rows(db, "SELECT DISTINCT scorer_version FROM rubric") == [(7,)]
    assert "scorer_version" in {r[0] for r in _rows(db, "DESCRIBE judge_scores")}


def test_published_scores_and_errors_carry_no_version(db: Path) -> None:
    published = _rows(
        db,
        "SELECT DISTINCT s.scorer, s.scorer_version FROM scores AS s "
        "JOIN generations AS g USING (generation_id) WHERE g.run_id LIKE 'lifbench-%'",
    )
    assert published == [("lifeval", None)]
    assert _rows(db, "SELECT count(*) FROM rubric WHERE scorer_version IS NULL") == [(4,)]
    with open_store(db) as store:
        _add_failed_generation(store)
    assert _rows(db, "SELECT scorer_version FROM scores WHERE status = 'error'") == [(None,)]


def _add_failed_generation(store: Store) -> None:
    """A request that failed, with its error score, written like the engine writes one."""
    cur = store.cursor()
    row = cur.execute(
        "SELECT run_id, model_id, example_id FROM generations WHERE task = 'vt' LIMIT 1"
    ).fetchone()
    assert row is not None
    run_id, model_id, example_id = row
    cur.close()
    failed = Generation(
        "failed-1", "key-failed-1", run_id, model_id, example_id, "", GenerationStatus.ERROR,
        "", 0, 0, None, 0.1, None, "connection refused", time.time(),
    )  # fmt: skip
    store.add_generation(failed, {})
    store.add_score("failed-1", error_score("connection refused"))


def _downgrade_to_7(db: Path) -> None:
    """The file as lctui wrote it at schema 7: no scorer versions."""
    con = duckdb.connect(str(db))
    try:
        con.execute("DELETE FROM schema_version WHERE version > 7")
        for table in ("scores", "rubric_points"):
            con.execute(f"ALTER TABLE {table} DROP COLUMN scorer_version")
        con.execute("ALTER TABLE generations DROP COLUMN example_hash")  # migration 11
        con.execute("ALTER TABLE generations DROP COLUMN calls")  # migration 12
        con.execute("DROP TABLE run_reused")  # migration 13
    finally:
        con.close()


def test_migration_8_marks_older_rows_as_before_versions(db: Path) -> None:
    with open_store(db) as store:
        _add_failed_generation(store)
    _downgrade_to_7(db)
    with open_store(db) as store:
        assert store.migrated_from == 7
    by_run = (
        "SELECT g.run_id LIKE 'lifbench-%' AS published, s.status, s.scorer_version, "
        "count(*) FROM scores AS s JOIN generations AS g USING (generation_id) "
        "GROUP BY ALL ORDER BY ALL"
    )
    assert _rows(db, by_run) == [
        (False, "error", None, 1),  # a failed request: no scorer's rules made it
        (False, "ok", 0, 6),  # made before versions were recorded
        (True, "ok", None, 2),  # the original's published numbers
    ]
    points = "SELECT scorer, scorer_version, count(*) FROM rubric_points GROUP BY ALL ORDER BY 1"
    assert _rows(db, points) == [("lifeval", None, 4), ("recall", 0, 18)]
    # Older than every current version, so flagged; the published ones never are.
    with open_store(db, read_only=True) as store:
        found = outdated_scores(store, current_versions())
    assert {(r.task, r.scorer, r.version, r.count) for r in found} == {
        ("niah_single_1", "recall", 0, 3),
        ("vt", "recall", 0, 3),
    }


def test_parquet_round_trip_keeps_the_versions(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    newer = bump(monkeypatch)
    with open_store(db) as store:  # three scores of vt made again: old rows superseded
        rescore_targets(store, find_targets(store, "outdated", tasks=["vt"]))
    before = stored_versions(db)
    assert before[("recall", newer, True)] == 3 and before[("recall", newer - 1, False)] == 3
    with open_store(db, read_only=True) as store:
        export_parquet(store, tmp_path / "export")
    target = tmp_path / "target.duckdb"
    with open_store(target) as store:
        import_parquet(store, tmp_path / "export")
    assert stored_versions(target) == before
    assert stored_versions(target, "rubric_points") == stored_versions(db, "rubric_points")
    assert ("lifeval", None, True) in before  # the published ones stay without a version


def test_parquet_from_before_versions_is_marked_so(db: Path, tmp_path: Path) -> None:
    with open_store(db, read_only=True) as store:
        export_parquet(store, tmp_path / "export")
    con = duckdb.connect()
    for table in ("scores", "rubric_points"):  # as an lctui before schema 8 wrote them
        path = tmp_path / "export" / f"{table}.parquet"
        con.execute(
            f"COPY (SELECT * EXCLUDE (scorer_version) FROM read_parquet('{path}')) "
            f"TO '{path}.old' (FORMAT parquet)"
        )
        (tmp_path / "export" / f"{table}.parquet.old").replace(path)
    con.close()
    target = tmp_path / "target.duckdb"
    with open_store(target) as store:
        import_parquet(store, tmp_path / "export")
    assert stored_versions(target) == {("recall", 0, True): 6, ("lifeval", None, True): 2}
    assert stored_versions(target, "rubric_points") == {
        ("recall", 0, True): 18,
        ("lifeval", None, True): 4,
    }


def test_outdated_scores_are_counted_per_run_and_cell(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with open_store(db, read_only=True) as store:
        assert outdated_scores(store, current_versions()) == []
        newer = bump(monkeypatch)
        found = outdated_scores(store, current_versions())
        (run_id,) = {r.run_id for r in found}
        assert found == [
            OutdatedScores(run_id, "gold", "niah_single_1", 1024, "recall", newer - 1, newer, 3),
            OutdatedScores(run_id, "gold", "vt", 1024, "recall", newer - 1, newer, 3),
        ]
        versions = current_versions()
        assert [r.task for r in outdated_scores(store, versions, tasks=["vt"])] == ["vt"]
        assert outdated_scores(store, versions, run_id="another-run") == []
        assert outdated_scores(store, versions, with_reference=False) == []  # gold is one
        assert outdated_scores(store, versions, scorers=["lifeval"]) == []
        # The published scores are never older than anything, whatever lifeval's version.
        bump(monkeypatch, "lifeval")
        assert outdated_scores(store, current_versions(), scorers=["lifeval"]) == []


def test_targets_of_outdated_are_exactly_the_older_scores(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bump(monkeypatch)
    with open_store(db) as store:
        versions = current_versions()
        assert score_targets(store, "outdated") == []  # without versions nothing is older
        outdated = score_targets(store, "outdated", versions=versions)
        assert len(outdated) == 6 and all(t.outdated for t in outdated)
        summary = rescore_targets(store, [t for t in outdated if t.task == "vt"])
        assert summary.complete
        left = score_targets(store, "outdated", versions=versions)
        assert {t.task for t in left} == {"niah_single_1"} and len(left) == 3
        assert score_targets(store, "missing", versions=versions) == []
        assert {t.generation_id for t in score_targets(store, "stale", versions=versions)} == {
            t.generation_id for t in left
        }
        # Every generation that succeeded, but never the published scores (no output).
        everything = score_targets(store, "all", versions=versions)
        assert len(everything) == 6 and {t.model for t in everything} == {"gold"}
        with pytest.raises(ValueError, match="which must be one of"):
            score_targets(store, "some")  # type: ignore[arg-type]
