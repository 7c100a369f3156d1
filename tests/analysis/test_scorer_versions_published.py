"""The published LIFBench scores are the original's own numbers: they carry no lctui
scorer version, so they are never flagged as made by an older one, never re-scored,
and stay next to lctui's own lifeval scores, which are flagged when their rules change."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helpers.outdated_runs import bump, run_ids
from lctui.analysis.outdated import find_outdated, outdated_line
from lctui.cli import main
from lctui.engine.rescore import find_targets
from lctui.scoring.versions import current_versions
from lctui.store import open_store
from lctui.suites.lifbench.analysis.metrics import lifbench_reports


@pytest.fixture
def db(published_db: Path, tmp_path: Path) -> Path:
    """The 20 published models and a gold run of lifbench_qa, in one file."""
    copy = tmp_path / "published.duckdb"
    shutil.copy(published_db, copy)
    run = ["run", "--model", "gold", "--tasks", "lifbench_qa", "--lengths", "2k", "--n", "2"]
    assert main([*run, "--db", str(copy)]) == 0
    return copy


def test_published_scores_are_never_outdated_nor_rescored(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gold_run = run_ids(db)[-1]
    with open_store(db, read_only=True) as store:
        published = {r.model: r.ars for r in lifbench_reports(store)}
        assert len(published) == 22  # 20 models, `standard` and gold
        by_model = store.cursor().execute(
            "SELECT model = 'gold', scorer_version, count(*) FROM results GROUP BY ALL ORDER BY 1"
        )
        (published_rows, gold_rows) = by_model.fetchall()
        assert published_rows[:2] == (False, None) and published_rows[2] > 1000
        assert gold_rows == (True, current_versions()["lifeval"], 2)
    bump(monkeypatch, "lifeval")
    with open_store(db) as store:
        found = find_outdated(store)
        assert {(r.run_id, r.model, r.count) for r in found} == {(gold_run, "gold", 2)}
        line = outdated_line(found)
        assert line is not None and "lifbench-" not in line
        # Whatever is asked, only gold's outputs are scored again: the published rows
        # have no output, and their numbers are the original's.
        for which in ("outdated", "stale", "all"):
            targets = find_targets(store, which)
            assert {t.model for t in targets} == {"gold"} and len(targets) == 2, which
    assert main(["rescore", "--all", "--db", str(db)]) == 0
    with open_store(db, read_only=True) as store:
        assert find_outdated(store) == []
        after = {r.model: r.ars for r in lifbench_reports(store)}
    # Every published ARS as it was, gold still 1.0: equal up to the order in which
    # DuckDB's parallel aggregate adds the responses (the last bit of a float).
    assert after == pytest.approx(published, rel=1e-12, abs=0)
