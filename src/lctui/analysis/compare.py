"""A/B comparison of two models, checkpoints or runs, paired by example.

A side is a model name (or fingerprint), `run:RUN_ID`, or `run:RUN_ID@MODEL` when the
run holds several models. Each side keeps its latest generation per example and metric
(latest start; ties broken by a hash of the generation id) with its latest score; only
examples both sides have are compared. Scores follow the per-cell rules of
store/read/: unparsed counts as 0; errors, cancelled generations and generations
without a score (missing, never paired as a 0) are left out and counted. One DuckDB
query (store/read/pairs.py) aligns the pairs and returns per-cell counts, the counts of
each paired difference and the changed pairs; numpy/scipy compute the statistics per
task x length cell from those. A side scored (in part) by an older version of a
scorer is compared all the same, and the result says so (`outdated_a`, `outdated_b`).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from lctui.analysis import stats
from lctui.analysis.outdated import find_outdated, outdated_runs
from lctui.analysis.pairing import NoPairs, Side, explain_no_pairs
from lctui.core.errors import UserInputError
from lctui.core.lengths import format_length
from lctui.store import pairing as pairing_reads
from lctui.store.db import Store
from lctui.store.outdated import OutdatedScores
from lctui.store.read import generations, pairs
from lctui.store.read.catalog import EXAMPLE_RUNS
from lctui.store.read.pairs import ChangedExample  # a changed pair, as the query found it
from lctui.store.read.source import Source
from lctui.store.samples import SAMPLE_NOTE, is_sample, run_label

CHANGED_THRESHOLD = 0.5  # |A - B| at or above this makes a pair "changed"
CHANGED_LIMIT = 1000  # changed pairs fetched (the counts cover all of them)


@dataclass(frozen=True)
class CompareCell:
    """One task x length (x metric) cell: n pairs, means, A - B with its interval (none
    below stats.MIN_INTERVAL_PAIRS pairs: `ci.too_few`), test."""

    task: str
    length: int
    metric: str
    label: str  # the task, with the metric when the task has several
    n: int
    mean_a: float
    mean_b: float
    diff: float
    ci: stats.Interval
    test: str  # mcnemar | wilcoxon
    p: float | None
    reason: str | None  # why p is missing
    a_better: int  # pairs with A - B >= the changed threshold
    b_better: int
    only_a: int
    only_b: int
    errors_a: int  # pairs left out because A's generation failed or was cancelled
    errors_b: int
    unscored_a: int  # pairs left out because A's generation has no score
    unscored_b: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "task": self.label,
            "length": self.length,
            "n": self.n,
            "mean_a": self.mean_a,
            "mean_b": self.mean_b,
            "diff": self.diff,
            "ci": self.ci.pair(),
            "test": self.test,
            "p": self.p,
        }


@dataclass
class CompareResult:
    a: Side
    b: Side
    cells: list[CompareCell]
    only_a: int  # examples only A has
    only_b: int
    errors_a: int
    errors_b: int
    unscored_a: int  # examples left out: A's generation has no score (lctui rescore)
    unscored_b: int
    threshold: float
    changed: list[ChangedExample] = field(default_factory=list)  # the first CHANGED_LIMIT
    # Scores of each side that an older version of their scorer made (analysis/outdated.py)
    outdated_a: list[OutdatedScores] = field(default_factory=list)
    outdated_b: list[OutdatedScores] = field(default_factory=list)
    # Examples where both sides hold the very same generation (a model and its own run)
    same_generations: int = 0

    @property
    def same_model(self) -> str | None:
        """The model's name when both sides are the one model, else None."""
        if set(self.a.model_ids) != set(self.b.model_ids):
            return None
        return self.b.model if self.b.run_id is not None else self.a.model

    @property
    def a_better(self) -> int:
        return sum(c.a_better for c in self.cells)

    @property
    def b_better(self) -> int:
        return sum(c.b_better for c in self.cells)

    def as_dict(self) -> dict[str, Any]:
        """The JSON of `lctui compare --format json`; `outdated` (scores per side and
        run that an older scorer version made) only when a side has any."""
        out = {
            "a": self.a.spec,
            "b": self.b.spec,
            "unmatched": {
                "only_a": self.only_a,
                "only_b": self.only_b,
                "errors_a": self.errors_a,
                "errors_b": self.errors_b,
                "unscored_a": self.unscored_a,
                "unscored_b": self.unscored_b,
            },
            "cells": [c.as_dict() for c in self.cells],
        }
        if self.outdated_a or self.outdated_b:
            out["outdated"] = {
                side: outdated_runs(rows)
                for side, rows in (("a", self.outdated_a), ("b", self.outdated_b))
            }
        return out


def resolve_side(src: Source, spec: str) -> Side:
    """A model name or fingerprint, `run:RUN_ID` or `run:RUN_ID@MODEL`."""
    if spec.startswith("run:"):
        run_id, _, model = spec[4:].partition("@")
        in_run = pairs.run_models(src, run_id)
        if not in_run:
            raise UserInputError(
                f"no generations of run {run_id!r}; list the runs with "
                f'`lctui query "{EXAMPLE_RUNS}"`'
            )
        chosen = [m.model_id for m in in_run if not model or model in (m.model_id, m.name)]
        names = ", ".join(m.name for m in in_run)
        if not chosen:
            raise UserInputError(f"run {run_id} has no model {model!r}; it has {names}")
        if len(chosen) > 1:
            raise UserInputError(
                f"run {run_id} holds several models ({names}); pick one: run:{run_id}@MODEL"
            )
        name = next(m.name for m in in_run if m.model_id == chosen[0])
        return Side(spec, (chosen[0],), run_id, name, is_sample(run_id))
    ids = pairs.model_ids_named(src, spec)
    if not ids:
        known = pairs.model_names(src)
        shown = ", ".join(known[:20]) + (", ..." if len(known) > 20 else "")
        raise UserInputError(
            f"no model {spec!r} in the database (models: {shown or 'none'}); a side is a "
            "model name, run:RUN_ID or run:RUN_ID@MODEL"
        )
    return Side(spec, ids, None, spec)


def compare(
    store: Store,
    a: str,
    b: str,
    *,
    threshold: float = CHANGED_THRESHOLD,
    resamples: int = stats.BOOTSTRAP_RESAMPLES,
    level: float = 0.95,
    seed: int = 0,
    changed_limit: int = CHANGED_LIMIT,
) -> CompareResult:
    """Compare side `a` with side `b` (A - B), cell by cell.

    Raises NoPairs, saying why, when no example was scored on both sides.
    """
    cur = store.cursor()
    try:
        side_a, side_b = resolve_side(cur, a), resolve_side(cur, b)
        if (side_a.model_ids, side_a.run_id) == (side_b.model_ids, side_b.run_id):
            raise UserInputError(f"{a!r} and {b!r} are the same generations; compare two sides")
        same = _same_generations(cur, side_a, side_b)
        found = pairs.paired_scores(
            cur,
            pairs.SideKey(side_a.model_ids, side_a.run_id),
            pairs.SideKey(side_b.model_ids, side_b.run_id),
            threshold=threshold,
            limit=changed_limit,
        )
    finally:
        cur.close()
    diffs: dict[tuple[str, int, str], list[tuple[float, int]]] = {}
    for r in found.diffs.to_pylist():
        diffs.setdefault((r["task"], r["length"], r["metric"]), []).append((r["d"], r["count"]))
    metrics_per_task: dict[str, set[str]] = {}
    for c in found.cells:
        if c.metric:  # '': generations without a score row, never a compared cell
            metrics_per_task.setdefault(c.task, set()).add(c.metric)
    cells: list[CompareCell] = []
    totals = dict.fromkeys(
        ("only_a", "only_b", "errors_a", "errors_b", "unscored_a", "unscored_b"), 0
    )
    for index, c in enumerate(sorted(found.cells, key=lambda c: (c.task, c.length, c.metric))):
        counts = {name: int(getattr(c, name)) for name in totals}
        for name, value in counts.items():
            totals[name] += value
        cell_key: tuple[str, int, str] = (c.task, c.length, c.metric)
        if cell_key not in diffs:
            continue  # no pair both sides scored
        task, length, metric = cell_key
        label = task if len(metrics_per_task.get(task, ())) <= 1 else f"{task} ({metric})"
        values, weights = zip(*sorted(diffs[cell_key]), strict=True)
        d = np.repeat(np.asarray(values, dtype=np.float64), np.asarray(weights, dtype=np.int64))
        rng = np.random.default_rng([seed, index])
        cells.append(
            _cell(
                task, length, metric, label, d, c, counts,
                threshold=threshold, resamples=resamples, level=level, rng=rng,
            )
        )  # fmt: skip
    changed = list(found.changed)
    if not cells:  # nothing to compare: say why instead of an empty comparison
        errors = (totals["errors_a"], totals["errors_b"])
        unscored = (totals["unscored_a"], totals["unscored_b"])
        raise NoPairs(explain_no_pairs(store, side_a, side_b, errors, unscored))
    outdated = [
        find_outdated(store, models=side.model_ids, run_id=side.run_id, every_attempt=True)
        for side in (side_a, side_b)
    ]
    return CompareResult(
        side_a,
        side_b,
        cells,
        same_generations=same,
        threshold=threshold,
        changed=changed,
        outdated_a=outdated[0],
        outdated_b=outdated[1],
        **totals,
    )


def _same_generations(cur: Source, a: Side, b: Side) -> int:
    """How many examples are one generation on both sides (0 when the sides cannot
    share one: different models or different runs). Refuses sides where every shared
    example is: the comparison would pit each generation against itself."""
    if not set(a.model_ids) & set(b.model_ids):
        return 0
    if a.run_id is not None and b.run_id is not None and a.run_id != b.run_id:
        return 0
    shared, same = pairing_reads.same_generations(
        cur, (a.model_ids, a.run_id), (b.model_ids, b.run_id)
    )
    if shared and same == shared:
        run = a.run_id or b.run_id
        model = b.model if b.run_id is not None else a.model
        raise UserInputError(
            f"{a.label} and {b.label} are the same generations: every example both have is "
            f"the same generation of {model} on both sides (run {run_label(run or '')} holds "
            f"all of them); compare two models, or two runs of {model}"
        )
    return same


def side_notes(result: CompareResult) -> list[str]:
    """What the sides are when that changes how to read the table: one model on both
    sides, generations shared by both, a shipped sample run."""
    notes = []
    model = result.same_model
    if model is not None:
        notes.append(
            f"both sides are {model}: the differences are between its runs or settings, "
            "not between two models"
        )
    if result.same_generations:
        notes.append(
            f"{result.same_generations} example(s) are the same generation on both sides "
            "(a model and its own run): their difference is 0 by construction"
        )
    for name, side in (("A", result.a), ("B", result.b)):
        if side.sample:
            notes.append(
                f"{name} is a {SAMPLE_NOTE} shipped with lctui (imported on first launch), "
                "not a run of yours"
            )
    return notes


def _cell(
    task: str,
    length: int,
    metric: str,
    label: str,
    d: npt.NDArray[np.float64],
    row: pairs.PairCell,
    counts: dict[str, int],
    *,
    threshold: float,
    resamples: int,
    level: float,
    rng: np.random.Generator,
) -> CompareCell:
    """Statistics of one cell from its paired differences d = A - B (the functions of
    stats.py take pairs; (d, 0) is the same pair difference)."""
    assert row.mean_a is not None and row.mean_b is not None  # a cell with pairs has means
    mean_a, mean_b = float(row.mean_a), float(row.mean_b)
    n = len(d)
    test: stats.McNemarResult | stats.WilcoxonResult
    table = None
    if row.binary:
        a_only, b_only = int(np.count_nonzero(d == 1.0)), int(np.count_nonzero(d == -1.0))
        test = stats.mcnemar_from_counts(a_only, b_only, n)
        # A's passes are the pairs both passed and those only A passed (mean_a * n of
        # them, an integer up to rounding).
        both = min(max(0, round(mean_a * n) - a_only), n - a_only - b_only)
        table = stats.PairTable(both, a_only, b_only, n - both - a_only - b_only)
        reason = None
    else:
        test = stats.wilcoxon_signed_rank(d, np.zeros_like(d))
        reason = test.reason
    ci = stats.difference_interval(d, table, resamples=resamples, level=level, seed=rng)
    return CompareCell(
        task=task,
        length=length,
        metric=metric,
        label=label,
        n=n,
        mean_a=mean_a,
        mean_b=mean_b,
        diff=mean_a - mean_b,
        ci=ci,
        test=test.test,
        p=test.p,
        reason=reason,
        a_better=int(np.count_nonzero(d >= threshold)),
        b_better=int(np.count_nonzero(-d >= threshold)),
        **counts,
    )


def interval_notes(result: CompareResult) -> list[str]:
    """What the interval column cannot say itself: the cells with too few pairs for an
    interval, and those whose bootstrap gave way to a t interval."""
    too_few = [c for c in result.cells if c.ci.too_few]
    notes = []
    if too_few:
        cells = ", ".join(f"{c.label} @ {format_length(c.length)} (n = {c.n})" for c in too_few)
        notes.append(
            f"{stats.TOO_FEW_PAIRS}: no interval below {stats.MIN_INTERVAL_PAIRS} pairs, "
            f"for {cells}"
        )
    notes += [
        f"interval of {c.label} @ {format_length(c.length)}: {c.ci.reason}"
        for c in result.cells
        if c.ci.reason and not c.ci.too_few
    ]
    return notes


@dataclass(frozen=True)
class DiffSpan:
    """A run of the two outputs: `equal`, or text only in A (`delete`), only in B
    (`insert`), or different (`replace`)."""

    kind: str
    a: str
    b: str


@dataclass(frozen=True)
class SideBySide:
    """Both generations of a changed pair (with their scores and rubric points) and the
    word-level diff of their outputs."""

    a: generations.GenerationRecord
    b: generations.GenerationRecord
    diff: list[DiffSpan]


_WORDS = re.compile(r"\s+|[^\s]+")


def output_diff(a: str, b: str) -> list[DiffSpan]:
    """Word-level differences of two texts; whitespace is kept so spans join back up."""
    words_a, words_b = _WORDS.findall(a), _WORDS.findall(b)
    matcher = difflib.SequenceMatcher(None, words_a, words_b, autojunk=False)
    return [
        DiffSpan(kind, "".join(words_a[i1:i2]), "".join(words_b[j1:j2]))
        for kind, i1, i2, j1, j2 in matcher.get_opcodes()
    ]


def side_by_side(store: Store, changed: ChangedExample) -> SideBySide:
    """What the side-by-side view shows for one changed pair."""
    gen_a = generations.get_generation(store, changed.generation_a)
    gen_b = generations.get_generation(store, changed.generation_b)
    if gen_a is None or gen_b is None:
        raise UserInputError(f"a generation of example {changed.example_id} is no longer stored")
    return SideBySide(gen_a, gen_b, output_diff(gen_a.output or "", gen_b.output or ""))
