"""Synthetic vs downstream with HELMET's real categories (analysis/correlation.py):
downstream is HELMET's real-data categories, computed as HELMET does (judge-scored
long QA included), and no other suite's category, once any of them has scores."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.helmet_runs import write_helmet_run
from lctui.analysis.correlation import DOWNSTREAM_HELMET, synthetic_vs_downstream
from lctui.store import Store, open_store

L = 8192
# Four models: synthetic (json_kv) ascending, RAG and judged long QA descending, and a
# LIFBench task ascending that a downstream mean must not count.
SCORES = {
    "json_kv": [0.1, 0.2, 0.3, 0.4],
    "kilt_nq": [0.9, 0.7, 0.5, 0.3],
    "narrativeqa": [0.8, 0.6, 0.4, 0.2],
    "lifbench_repeat": [0.0, 0.4, 0.8, 1.0],
}


def write_models(store: Store, tasks: list[str]) -> None:
    for i in range(4):
        write_helmet_run(store, f"m{i}", {(t, L): [SCORES[t][i]] for t in tasks})
    store.flush(force=True)


def test_downstream_is_helmets_real_categories_when_present(tmp_path: Path) -> None:
    with open_store(tmp_path / "c.duckdb") as store:
        write_models(store, list(SCORES))
        result = synthetic_vs_downstream(store, min_models=3)
    assert result.downstream == f"{DOWNSTREAM_HELMET} (rag, longqa)"
    assert list(result.per_category) == ["rag", "longqa"]  # HELMET's order, no lifbench
    assert result.per_category["longqa"].rho == pytest.approx(-1.0)  # judge scores count
    assert result.overall.rho == pytest.approx(-1.0)
    assert [p.y for p in result.points] == pytest.approx([0.85, 0.65, 0.45, 0.25])


def test_without_helmet_categories_every_other_category_is_downstream(tmp_path: Path) -> None:
    with open_store(tmp_path / "c.duckdb") as store:
        write_models(store, ["json_kv", "lifbench_repeat"])
        result = synthetic_vs_downstream(store, min_models=3)
    assert result.downstream == "every category but synthetic"
    assert list(result.per_category) == ["lifbench"]
    assert result.overall.rho == pytest.approx(1.0)
