"""LIFEval metrics on the published LIFBench scores of 20 models (+ `standard`)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from helpers.lifbench_data import read_published
from lctui.store import Store
from lctui.suites.lifbench.analysis.metrics import (
    LifbenchReport,
    lifbench_reports,
    lifbench_responses,
)
from lctui.suites.lifbench.importer import import_lifbench_scores
from lctui.suites.lifbench.scoring.point_specs import LIFEVAL_TASKS

TABLES = ("models", "runs", "examples", "generations", "scores", "rubric_points")


@pytest.fixture(scope="module")
def reports(published_store: Store) -> dict[str, LifbenchReport]:
    return {r.model: r for r in lifbench_reports(published_store)}


def test_csv_columns_match_the_point_table(published_scores: Path) -> None:
    for task, rows in read_published(published_scores).items():
        names = [p.name for p in LIFEVAL_TASKS[task].points]
        assert list(rows[0])[4:-1] == names, task


def test_every_model_is_imported_and_standard_is_the_reference(
    published_store: Store, reports: dict[str, LifbenchReport]
) -> None:
    assert len(reports) == 21
    cur = published_store.cursor()
    refs = cur.execute("SELECT name FROM models WHERE reference").fetchall()
    assert refs == [("standard",)]


def test_standard_scores_one_everywhere(reports: dict[str, LifbenchReport]) -> None:
    standard = reports["standard"]
    assert standard.ars == pytest.approx(1.0, abs=1e-12)
    assert set(standard.ars_by_task) == set(LIFEVAL_TASKS)
    assert all(v == pytest.approx(1.0, abs=1e-12) for v in standard.ars_by_task.values())
    assert list(standard.ars_by_length) == [3, 6, 13, 28, 60, 120]
    assert set(standard.ifp) == {"ori", "num", "spat", "fmt", "logic", "recog"}
    assert all(v == pytest.approx(1.0, abs=1e-12) for v in standard.ifp.values())
    assert all(v == pytest.approx(0.0, abs=1e-12) for v in standard.ifs.values())


def test_response_ars_equals_published_total_score(
    published_store: Store, published_scores: Path
) -> None:
    stored = {
        (r.model, r.task, int(r.expression or -1), int(r.variable or -1), r.length): r.ars
        for r in lifbench_responses(published_store)
    }
    count = 0
    for task, rows in read_published(published_scores).items():
        for row in rows:
            key = (row["model"], task, int(row["ins_id"]), int(row["param_id"]), int(row["length"]))
            assert stored[key] == pytest.approx(float(row["total_score"]), abs=1e-9), key
            count += 1
    assert count == len(stored)


def test_points_are_stored_as_published(published_store: Store, published_scores: Path) -> None:
    """Including the find_dup_text `ori` values above 1 and the list tasks' lone
    partial `format` whose response the original scored 0."""
    cur = published_store.cursor()
    over = cur.execute(
        "SELECT count(*), max(earned) FROM rubric WHERE task = 'find_dup_text' AND point = 'ori' "
        "AND earned > 1"
    ).fetchone()
    assert over == (27, 6.5)
    lone_format = cur.execute(
        "SELECT count(*) FROM rubric AS r JOIN latest_scores AS s USING (generation_id) "
        "WHERE r.point = 'format' AND r.earned = 0.2 AND s.value = 0 AND r.category = 'lifbench'"
    ).fetchone()
    assert lone_format == (3611,)


def test_overall_ars_matches_plain_python(
    published_scores: Path, reports: dict[str, LifbenchReport]
) -> None:
    scores: dict[tuple[str, str], list[float]] = defaultdict(list)
    for task, rows in read_published(published_scores).items():
        for row in rows:
            scores[row["model"], task].append(float(row["total_score"]))
    for model, report in reports.items():
        total = sum(t.total for t in LIFEVAL_TASKS.values())
        expected = (
            sum(
                t.total * sum(scores[model, name]) / len(scores[model, name])
                for name, t in LIFEVAL_TASKS.items()
            )
            / total
        )
        assert report.ars == pytest.approx(expected, abs=1e-9), model


def test_reimport_adds_nothing(published_store: Store, published_scores: Path) -> None:
    cur = published_store.cursor()
    before = {t: cur.execute(f"SELECT count(*) FROM {t}").fetchone() for t in TABLES}
    summary = import_lifbench_scores(published_store, published_scores)
    after = {t: cur.execute(f"SELECT count(*) FROM {t}").fetchone() for t in TABLES}
    assert summary.added == 0
    assert after == before


def test_lifeval_views_agree_with_the_report(
    published_store: Store, reports: dict[str, LifbenchReport]
) -> None:
    cur = published_store.cursor()
    try:
        ars = dict(cur.execute("SELECT model, ars FROM lifeval_ars").fetchall())
        ifp = cur.execute("SELECT model, capability, ifp FROM lifeval_ifp").fetchall()
        ifs = cur.execute("SELECT model, perspective, ifs FROM lifeval_ifs").fetchall()
        by_length = cur.execute("SELECT model, length, ars FROM lifeval_length_ars").fetchall()
    finally:
        cur.close()
    assert set(ars) == set(reports)
    for model, report in reports.items():
        assert ars[model] == pytest.approx(report.ars, abs=1e-12)
    assert len(ifp) == 6 * len(reports) and len(ifs) == 3 * len(reports)
    for model, capability, value in ifp:
        assert value == pytest.approx(reports[model].ifp[capability.lower()], abs=1e-12)
    for model, perspective, value in ifs:
        assert value == pytest.approx(reports[model].ifs[perspective], abs=1e-12)
    for model, length, value in by_length:
        assert value == pytest.approx(reports[model].ars_by_length[length // 1024], abs=1e-12)
