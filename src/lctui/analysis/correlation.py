"""Spearman rank correlation across models between tasks or categories (HELMET's
figures 3-5), the scatter behind one coefficient, and synthetic vs downstream.

A model's score on a task at one length is the mean of its cell (store/read/'s
rules: unparsed counts as 0, errors are left out); without a length it is the mean of
its cells over the lengths it has. A category's score is the plain mean of its tasks'
scores (store/read/correlation.py reads them). Reference pseudo-models (gold,
LIFBench's `standard`) are never counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from lctui.analysis import stats
from lctui.analysis.helmet import CATEGORIES, category_scores
from lctui.core.errors import UserInputError
from lctui.core.lengths import format_length
from lctui.store.db import Store
from lctui.store.read.correlation import LABELS, label_scores

BY = LABELS
SYNTHETIC = "synthetic"
RECALL = "recall"  # HELMET's synthetic category: not downstream
DOWNSTREAM_HELMET = "HELMET's real-data categories"
TIE_DECIMALS = 12  # scores equal to this many decimals rank as ties


@dataclass(frozen=True)
class ScatterPoint:
    model: str
    x: float
    y: float


@dataclass
class ModelScores:
    """Scores of each model (rows) on each label (columns); NaN where it has none."""

    by: str
    length: int | None
    models: list[str]
    labels: list[str]
    values: npt.NDArray[np.float64]

    def column(self, label: str) -> npt.NDArray[np.float64]:
        if label not in self.labels:
            raise UserInputError(f"no {self.by} {label!r} here; there are {', '.join(self.labels)}")
        return self.values[:, self.labels.index(label)]


@dataclass
class CorrelationMatrix:
    """Spearman rho, p and n for every pair of labels, in the order of `labels`."""

    scores: ModelScores
    cells: list[list[stats.SpearmanResult]]

    @property
    def labels(self) -> list[str]:
        return self.scores.labels

    @property
    def models(self) -> list[str]:
        return self.scores.models

    def cell(self, x: str, y: str) -> stats.SpearmanResult:
        return self.cells[self.labels.index(x)][self.labels.index(y)]

    def scatter(self, x: str, y: str) -> list[ScatterPoint]:
        """The two scores of every model that has both (HELMET's figure 4)."""
        return _scatter(self.scores.models, self.scores.column(x), self.scores.column(y))

    def as_dict(self) -> dict[str, Any]:
        """The JSON of `lctui correlate --format json` (None where undefined)."""
        return {
            "by": self.scores.by,
            "length": self.scores.length,
            "models": self.scores.models,
            "labels": self.labels,
            "rho": [[c.rho for c in row] for row in self.cells],
            "p": [[c.p for c in row] for row in self.cells],
            "n": [[c.n for c in row] for row in self.cells],
        }


def model_scores(
    store: Store,
    *,
    by: str = "task",
    length: int | None = None,
    models: list[str] | None = None,
) -> ModelScores:
    """One score per model and task (or category) at `length`, or over all lengths."""
    if by not in BY:
        raise UserInputError(f"cannot correlate by {by!r}: use one of {', '.join(BY)}")
    table = _fetch(store, by, length, models)
    model_names = sorted(set(table["model"]))
    labels = sorted(set(table["label"]))
    values = np.full((len(model_names), len(labels)), np.nan)
    rows = {m: i for i, m in enumerate(model_names)}
    cols = {x: j for j, x in enumerate(labels)}
    for model, label, score in zip(table["model"], table["label"], table["score"], strict=True):
        values[rows[model], cols[label]] = score
    # Equal means summed in another order differ in the last bits; rounding keeps such
    # ties tied, as ranks must (LIFBench has two models at exactly 0.7048611...).
    return ModelScores(by, length, model_names, labels, np.round(values, TIE_DECIMALS))


def _fetch(
    store: Store, by: str, length: int | None, models: list[str] | None
) -> dict[str, list[Any]]:
    rows = label_scores(store, by, length, models)
    return {
        "model": [r.model for r in rows],
        "label": [r.label for r in rows],
        "score": [r.score for r in rows],
    }


def correlate(
    store: Store,
    *,
    by: str = "task",
    length: int | None = None,
    models: list[str] | None = None,
    min_models: int = stats.MIN_SPEARMAN_N,
) -> CorrelationMatrix:
    """Spearman rank correlation across models between every pair of tasks or categories.

    Raises UserInputError when fewer than `min_models` models have scores at all; a
    pair that fewer models share gets no coefficient (None) and a reason.
    """
    scores = model_scores(store, by=by, length=length, models=models)
    if len(scores.models) < min_models:
        at = f" at {format_length(length)}" if length is not None else ""
        found = ", ".join(scores.models) or "none"
        raise UserInputError(
            f"only {len(scores.models)} model(s) have scores{at} ({found}; reference "
            f"pseudo-models such as gold are not counted); a rank correlation across models "
            f"needs at least {min_models}: evaluate more models"
            + (" or leave out --length" if length is not None else "")
        )
    # rho, p and n are symmetric in the two samples: compute each pair once.
    k = len(scores.labels)
    pairs = {
        (i, j): stats.spearman(scores.values[:, i], scores.values[:, j], min_n=min_models)
        for i in range(k)
        for j in range(i, k)
    }
    cells = [[pairs[min(i, j), max(i, j)] for j in range(k)] for i in range(k)]
    return CorrelationMatrix(scores, cells)


@dataclass
class SyntheticDownstream:
    """Each model's synthetic-category score against the mean of its downstream ones."""

    length: int | None
    points: list[ScatterPoint]  # x: synthetic, y: downstream mean
    overall: stats.SpearmanResult
    per_category: dict[str, stats.SpearmanResult]  # synthetic vs each downstream category
    # What downstream is: HELMET's real-data categories when any has scores
    # (DOWNSTREAM_HELMET), else every stored category but the synthetic one.
    downstream: str = ""


def synthetic_vs_downstream(
    store: Store,
    *,
    length: int | None = None,
    synthetic: str = SYNTHETIC,
    min_models: int = stats.MIN_SPEARMAN_N,
) -> SyntheticDownstream:
    """Does the synthetic score rank models as the downstream categories do?

    Downstream is HELMET's six real-data categories (RAG, Cite, Re-rank, ICL, LongQA,
    Summ, each computed as HELMET does: analysis/helmet.py) where any has scores, else
    every other stored category. A model's downstream score is the mean of the
    downstream categories it has scores on; `overall` correlates it with the synthetic
    score across models.
    """
    scores = model_scores(store, by="category", length=length)
    helmet = category_scores(store, length)
    real = [c for c in CATEGORIES if c != RECALL and any(c in v for v in helmet.values())]
    if real:
        label = f"{DOWNSTREAM_HELMET} ({', '.join(real)})"
        by_label = {
            c: np.round([helmet.get(m, {}).get(c, np.nan) for m in scores.models], TIE_DECIMALS)
            for c in real
        }
    else:
        label = "every category but synthetic"
        by_label = {c: scores.column(c) for c in scores.labels if c != synthetic}
    downstream = list(by_label)
    if synthetic not in scores.labels or not downstream:
        missing = synthetic if synthetic not in scores.labels else "a downstream category"
        reason = f"no scores in {missing}: the categories here are {', '.join(scores.labels)}"
        return SyntheticDownstream(
            length, [], stats.SpearmanResult(None, None, 0, reason), {}, label
        )
    x = scores.column(synthetic)
    columns = np.column_stack([by_label[c] for c in downstream])
    y = np.full(len(x), np.nan)
    present = ~np.all(np.isnan(columns), axis=1)
    y[present] = np.nanmean(columns[present], axis=1)
    return SyntheticDownstream(
        length=length,
        points=_scatter(scores.models, x, y),
        overall=stats.spearman(x, y, min_n=min_models),
        per_category={c: stats.spearman(x, by_label[c], min_n=min_models) for c in downstream},
        downstream=label,
    )


def _scatter(
    models: list[str], x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]
) -> list[ScatterPoint]:
    return [
        ScatterPoint(m, float(u), float(v))
        for m, u, v in zip(models, x, y, strict=True)
        if not (np.isnan(u) or np.isnan(v))
    ]
