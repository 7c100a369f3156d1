"""HELMET's table (analysis/helmet.py) over a real DuckDB file: category = plain mean of
its entries, overall = mean of the seven categories, on HELMET's 0-100 scale; what is
missing is marked, never averaged as 0."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.helmet_runs import HELMET_TASKS, write_helmet_run
from lctui.analysis.helmet import CATEGORIES, ENTRIES, helmet_category, helmet_table, tasks_of
from lctui.store import open_store

L8K, L16K = 8192, 16384


def _complete(value: float, length: int = L8K) -> dict[tuple[str, int], list[float]]:
    return {(task, length): [value] for task in HELMET_TASKS}


def test_every_stored_metric_is_one_the_scorers_write() -> None:
    from lctui.scoring.citations import PRECISION_METRIC, RECALL_METRIC
    from lctui.scoring.helmet_alce import REC_TOP5_METRIC, STR_EM_METRIC
    from lctui.scoring.helmet_scorers import EM_METRIC, NDCG_METRIC, ROUGE_METRIC
    from lctui.scoring.judge import METRICS
    from lctui.tasks.registry import all_tasks

    written = {STR_EM_METRIC, REC_TOP5_METRIC, EM_METRIC, NDCG_METRIC, ROUGE_METRIC}
    written |= set(METRICS.values()) | {t.metric for t in all_tasks()}
    written |= {RECALL_METRIC, PRECISION_METRIC}  # the citation scorer's (HELMET's names)
    assert {e.metric for e in ENTRIES} <= written
    assert {e.task for e in ENTRIES} == set(HELMET_TASKS)
    assert (
        helmet_category("niah_multikey_2") == "recall" and helmet_category("niah_single_1") is None
    )
    assert tasks_of("recall") == [
        "json_kv",
        "niah_multikey_2",
        "niah_multikey_3",
        "niah_multivalue",
    ]


def test_categories_and_overall_as_helmet_computes_them(tmp_path: Path) -> None:
    values = _complete(1.0)
    values.update({("kilt_nq", L8K): [0.0, 1.0], ("kilt_popqa", L8K): [0.0]})  # rag: .5,1,1,0
    values[("alce_asqa", L8K)] = [0.4]  # all three ALCE metrics of asqa 0.4, qampari's 1.0
    with open_store(tmp_path / "h.duckdb") as store:
        write_helmet_run(store, "m1", values)
        store.flush(force=True)
        [row] = helmet_table(store)
    assert (row.model, row.length, row.partial) == ("m1", L8K, False)
    means = {k: c.value for k, c in row.categories.items()}
    assert list(means) == list(CATEGORIES)
    assert means["rag"] == pytest.approx(62.5)
    assert means["cite"] == pytest.approx((3 * 40 + 3 * 100) / 6)  # six entries, as HELMET
    assert means["recall"] == means["icl"] == means["summ"] == pytest.approx(100)
    assert row.overall == pytest.approx((5 * 100 + 62.5 + 70) / 7)


def test_missing_dataset_marks_partial_and_missing_category_is_not_zero(tmp_path: Path) -> None:
    values = {k: v for k, v in _complete(0.5).items() if k[0] not in tasks_of("summ")}
    del values[("kilt_hotpotqa", L8K)]
    values[("json_kv", L16K)] = [1.0]
    with open_store(tmp_path / "h.duckdb") as store:
        write_helmet_run(store, "m1", values)
        write_helmet_run(store, "m2", {("kilt_nq", L8K): [0.25]})
        store.flush(force=True)
        rows = helmet_table(store)
        assert [r.model for r in helmet_table(store, ["m2"])] == ["m2"]
    assert [(r.model, r.length) for r in rows] == [("m1", L8K), ("m1", L16K), ("m2", L8K)]
    m1 = rows[0]
    assert m1.categories["rag"].partial and m1.categories["rag"].missing == ("kilt_hotpotqa subem",)
    assert m1.categories["rag"].value == pytest.approx(50)
    assert m1.categories["summ"].value is None and not m1.categories["summ"].partial
    assert m1.partial and m1.overall == pytest.approx(50)  # six categories present, no 0
    only_recall = rows[1]
    assert only_recall.categories["recall"].value == pytest.approx(100)  # json_kv only
    assert only_recall.overall == pytest.approx(100) and only_recall.partial
    assert rows[2].categories["rag"].value == pytest.approx(25) and rows[
        2
    ].overall == pytest.approx(25)
