"""Spearman across models on the published LIFBench scores (20 models x 11 tasks)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
from scipy import stats as sps

from helpers.lifbench_data import read_published
from lctui.analysis.correlation import correlate, synthetic_vs_downstream
from lctui.core.errors import UserInputError
from lctui.store import Store


def task_means(published_scores: Path, length: int | None) -> dict[str, dict[str, float]]:
    """task -> model -> score, straight from the CSVs: the mean total_score of each
    (model, task, length), then (without a length) the mean over lengths."""
    cells: dict[tuple[str, str, int], list[float]] = defaultdict(list)
    for task, rows in read_published(published_scores).items():
        for row in rows:
            if row["model"] != "standard":
                cells[task, row["model"], int(row["length"])].append(float(row["total_score"]))
    per_length: dict[tuple[str, str], list[float]] = defaultdict(list)
    for (task, model, n), values in cells.items():
        if length is None or n == length:
            per_length[task, model].append(sum(values) / len(values))
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for (task, model), means in per_length.items():
        # Means equal up to float noise must tie in the ranking, as they do in lctui.
        out[task][model] = round(sum(means) / len(means), 12)
    return out


@pytest.mark.parametrize("length", [None, 28])
def test_rho_equals_scipy_on_independent_task_means(
    published_store: Store, published_scores: Path, length: int | None
) -> None:
    expected = task_means(published_scores, length)
    matrix = correlate(published_store, length=None if length is None else length * 1024)
    assert matrix.labels == sorted(expected)
    assert len(matrix.models) == 20 and "standard" not in matrix.models
    models = matrix.models
    for i, x in enumerate(matrix.labels):
        for j, y in enumerate(matrix.labels):
            ref = sps.spearmanr([expected[x][m] for m in models], [expected[y][m] for m in models])
            cell = matrix.cells[i][j]
            assert cell.n == 20
            assert cell.rho == pytest.approx(float(ref.statistic), abs=1e-9), (x, y)
            assert cell.p == pytest.approx(float(ref.pvalue), rel=1e-6, abs=1e-12), (x, y)


def test_json_shape_and_scatter(published_store: Store, published_scores: Path) -> None:
    matrix = correlate(published_store, length=3 * 1024)
    out = matrix.as_dict()
    assert list(out) == ["by", "length", "models", "labels", "rho", "p", "n"]
    assert (out["by"], out["length"]) == ("task", 3072)
    k = len(out["labels"])
    assert k == 11
    for key in ("rho", "p", "n"):
        assert len(out[key]) == k and all(len(row) == k for row in out[key])
    assert out["rho"][0][0] == pytest.approx(1.0)
    points = matrix.scatter("qa", "repeat")
    expected = task_means(published_scores, 3)
    assert [p.model for p in points] == matrix.models
    for p in points:
        assert (p.x, p.y) == pytest.approx((expected["qa"][p.model], expected["repeat"][p.model]))


def test_too_few_models_is_refused_with_a_message(published_store: Store) -> None:
    four = ["Qwen2.5-7B", "Qwen2.5-14B", "Qwen2.5-32B", "Qwen2.5-72B"]
    with pytest.raises(UserInputError, match=r"only 4 model.*needs at least 5"):
        correlate(published_store, models=four)
    small = correlate(published_store, models=four, min_models=3)
    assert small.cells[0][1].n == 4 and small.cells[0][1].rho is not None
    with pytest.raises(UserInputError, match="cannot correlate by 'suite'"):
        correlate(published_store, by="suite")


def test_categories_and_synthetic_vs_downstream_say_what_is_missing(published_store: Store) -> None:
    by_category = correlate(published_store, by="category").as_dict()
    assert by_category["labels"] == ["lifbench"]
    assert by_category["rho"] == [[pytest.approx(1.0)]]
    summary = synthetic_vs_downstream(published_store)
    assert summary.overall.rho is None
    assert summary.overall.reason is not None and "no scores in synthetic" in summary.overall.reason
