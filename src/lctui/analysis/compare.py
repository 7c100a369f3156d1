"""A/B comparison of two models, checkpoints or runs, paired by example.

A side is a model name (or fingerprint), `run:RUN_ID`, or `run:RUN_ID@MODEL` when the
run holds several models. Each side keeps its latest generation per example and metric
(latest start; ties broken by a hash of the generation id) with its latest score; only
examples both sides have are compared. Scores follow the per-cell rules of
store/read/: unparsed counts as 0; errors, cancelled generations and generations
without a score (missing, never paired as a 0) are left out and counted. One DuckDB
query aligns the pairs and returns, as Arrow, per-cell counts, the counts of each
paired difference and the changed pairs; numpy/scipy compute the statistics per
task x length cell from those. A side scored (in part) by an older version of a
scorer is compared all the same, and the result says so (`outdated_a`, `outdated_b`).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field, fields
from typing import Any

import duckdb
import numpy as np
import numpy.typing as npt
import pyarrow.compute as pc

from lctui.analysis import stats
from lctui.analysis.outdated import find_outdated, outdated_runs
from lctui.analysis.pairing import NoPairs, Side, explain_no_pairs
from lctui.core.errors import UserInputError
from lctui.store.db import Store
from lctui.store.outdated import OutdatedScores
from lctui.store.read import arrow, generations

CHANGED_THRESHOLD = 0.5  # |A - B| at or above this makes a pair "changed"
CHANGED_LIMIT = 1000  # changed pairs fetched (the counts cover all of them)

# $1-$4: model ids and run (or NULL) of A and of B; $5: changed threshold; $6: limit.
_IN_A = "(list_contains($1, g.model_id) AND ($2 IS NULL OR g.run_id = $2))"
_IN_B = "(list_contains($3, g.model_id) AND ($4 IS NULL OR g.run_id = $4))"
# The latest generation of each side per example and metric, with its latest score
# (the `latest` flag of scores): one arg_max over an integer key (started_at, then the
# generation's hash for ties) is much cheaper here than window functions. Everything
# is carried as integers (store/derived.py: scores join on gen_hash, the task and
# length come with the generation); the ids of the changed pairs alone are looked up.
# (A modulo of the 128-bit hash costs ~3 s per 1M rows; its top 10 bits cost ~5 ms.)
_KEY = """
    epoch_us(coalesce(g.started_at, TIMESTAMP '1970-01-01')) * 1024
    + (g.gen_hash >> 118)::BIGINT
"""
_PAIRED = "score_a IS NOT NULL AND score_b IS NOT NULL"
_CHANGED_ORDER = "ORDER BY abs(score_a - score_b) DESC, task, length, example_id, metric"
# Why a side of a pair has no score: its generation failed or was cancelled (an error),
# or it succeeded without a score row (`unscored`: missing, never a 0; store/views.py).
_LEFT_OUT = "generation_a IS NOT NULL AND generation_b IS NOT NULL AND score_{side} IS NULL"
# A generation without a score row has no metric (''); its `score` is this marker when
# it succeeded (unscored), NULL when it failed. Real scores are in [0, 1], and rows of
# metric '' never reach a mean or a pair. (A flag per side would cost two more arg_max
# per example: +20 % of the query, where this costs ~5 %; bench/analysis.py.)
_NO_SCORE_ROW = "-1.0"
# One query, three kinds of rows: per-cell counts and means, the counts of each paired
# difference per cell (all the tests need), and the changed pairs. In the cell counts a
# generation without a score row stands in for its side of its example's metrics, so
# that a missing score is counted as missing there instead of making the example look
# as if only the other side had it.
_COMPARE_SQL = f"""
    WITH j AS (
        SELECT g.example_id, g.task, g.length, coalesce(s.metric, '') AS metric,
               {_IN_A} AS in_a, {_IN_B} AS in_b, g.gen_hash AS gen, {_KEY} AS k,
               CASE WHEN s.status IN ('ok', 'unparsed') THEN coalesce(s.value, 0)
                    WHEN s.status IS NULL AND g.status = 'ok' THEN {_NO_SCORE_ROW} END AS score
        FROM generations AS g
        LEFT JOIN scores AS s ON s.gen_hash = g.gen_hash AND s.latest
        WHERE {_IN_A} OR {_IN_B}
    ), p AS MATERIALIZED (
        SELECT coalesce(any_value(task), '?') AS task, coalesce(any_value(length), 0) AS length,
               example_id, metric,
               arg_max(gen, k) FILTER (WHERE in_a) AS generation_a,
               arg_max_null(score, k) FILTER (WHERE in_a) AS score_a,
               arg_max(gen, k) FILTER (WHERE in_b) AS generation_b,
               arg_max_null(score, k) FILTER (WHERE in_b) AS score_b
        FROM j GROUP BY example_id, metric
    ), scored AS (
        SELECT * FROM p WHERE metric <> ''
    ), no_metric AS (
        SELECT * FROM p WHERE metric = ''
    ), stood_in AS (
        SELECT DISTINCT n.example_id FROM no_metric AS n JOIN scored USING (example_id)
    ), counted AS (
        SELECT m.task, m.length, m.example_id, m.metric,
               coalesce(m.generation_a, n.generation_a) AS generation_a, m.score_a,
               m.generation_a IS NULL AND n.score_a = {_NO_SCORE_ROW} AS unscored_a,
               coalesce(m.generation_b, n.generation_b) AS generation_b, m.score_b,
               m.generation_b IS NULL AND n.score_b = {_NO_SCORE_ROW} AS unscored_b
        FROM scored AS m LEFT JOIN no_metric AS n USING (example_id)
        UNION ALL BY NAME
        SELECT task, length, example_id, metric,
               generation_a, NULL AS score_a, score_a = {_NO_SCORE_ROW} AS unscored_a,
               generation_b, NULL AS score_b, score_b = {_NO_SCORE_ROW} AS unscored_b
        FROM no_metric ANTI JOIN stood_in USING (example_id)
    )
    SELECT 'cell' AS kind, task, length, metric,
           count(*) FILTER (WHERE generation_b IS NULL) AS only_a,
           count(*) FILTER (WHERE generation_a IS NULL) AS only_b,
           count(*) FILTER (WHERE {_LEFT_OUT.format(side="a")}
                            AND NOT coalesce(unscored_a, false)) AS errors_a,
           count(*) FILTER (WHERE {_LEFT_OUT.format(side="b")}
                            AND NOT coalesce(unscored_b, false)) AS errors_b,
           count(*) FILTER (WHERE {_LEFT_OUT.format(side="a")} AND unscored_a) AS unscored_a,
           count(*) FILTER (WHERE {_LEFT_OUT.format(side="b")} AND unscored_b) AS unscored_b,
           avg(score_a) FILTER (WHERE {_PAIRED}) AS mean_a,
           avg(score_b) FILTER (WHERE {_PAIRED}) AS mean_b,
           coalesce(bool_and(score_a IN (0, 1) AND score_b IN (0, 1))
                    FILTER (WHERE {_PAIRED}), false) AS binary
    FROM counted GROUP BY task, length, metric
    UNION ALL BY NAME
    SELECT 'diff' AS kind, task, length, metric, score_a - score_b AS d, count(*) AS count
    FROM scored WHERE {_PAIRED} GROUP BY task, length, metric, d
    UNION ALL BY NAME
    SELECT 'changed' AS kind, c.task, c.length, c.metric, c.example_id,
           ga.generation_id AS generation_a, gb.generation_id AS generation_b,
           c.score_a, c.score_b, c.rank
    FROM (SELECT *, row_number() OVER ({_CHANGED_ORDER}) AS rank
          FROM (SELECT * FROM scored WHERE abs(score_a - score_b) >= $5 {_CHANGED_ORDER}
                LIMIT $6)
    ) AS c
    JOIN generations AS ga ON ga.gen_hash = c.generation_a
    JOIN generations AS gb ON gb.gen_hash = c.generation_b
"""


@dataclass(frozen=True)
class CompareCell:
    """One task x length (x metric) cell: n pairs, means, A - B with its interval, test."""

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


@dataclass(frozen=True)
class ChangedExample:
    """A pair whose scores differ by at least the threshold; open it with side_by_side."""

    task: str
    length: int
    metric: str
    example_id: str
    generation_a: str
    generation_b: str
    score_a: float
    score_b: float

    @property
    def a_better(self) -> bool:
        return self.score_a > self.score_b


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


def resolve_side(cur: duckdb.DuckDBPyConnection, spec: str) -> Side:
    """A model name or fingerprint, `run:RUN_ID` or `run:RUN_ID@MODEL`."""
    if spec.startswith("run:"):
        run_id, _, model = spec[4:].partition("@")
        in_run = cur.execute(
            "SELECT DISTINCT g.model_id, coalesce(m.name, g.model_id) FROM generations AS g "
            "LEFT JOIN models AS m USING (model_id) WHERE g.run_id = ? ORDER BY 2",
            [run_id],
        ).fetchall()
        if not in_run:
            raise UserInputError(
                f"no generations of run {run_id!r}; list the runs with "
                '`lctui query "SELECT run_id, started_at FROM runs"`'
            )
        chosen = [mid for mid, name in in_run if not model or model in (mid, name)]
        names = ", ".join(str(name) for _, name in in_run)
        if not chosen:
            raise UserInputError(f"run {run_id} has no model {model!r}; it has {names}")
        if len(chosen) > 1:
            raise UserInputError(
                f"run {run_id} holds several models ({names}); pick one: run:{run_id}@MODEL"
            )
        return Side(spec, (str(chosen[0]),), run_id)
    ids = cur.execute(
        "SELECT model_id FROM models WHERE name = $1 OR model_id = $1 "
        "UNION SELECT DISTINCT model_id FROM generations WHERE model_id = $1",
        [spec],
    ).fetchall()
    if not ids:
        known = [str(r[0]) for r in cur.execute("SELECT name FROM models ORDER BY name").fetchall()]
        shown = ", ".join(known[:20]) + (", ..." if len(known) > 20 else "")
        raise UserInputError(
            f"no model {spec!r} in the database (models: {shown or 'none'}); a side is a "
            "model name, run:RUN_ID or run:RUN_ID@MODEL"
        )
    return Side(spec, tuple(sorted(str(r[0]) for r in ids)), None)


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
        params = [
            list(side_a.model_ids), side_a.run_id, list(side_b.model_ids), side_b.run_id,
            threshold, changed_limit,
        ]  # fmt: skip
        rows = arrow.query_arrow(cur, _COMPARE_SQL, params)
    finally:
        cur.close()
    kinds = rows.column("kind")
    by_kind = {k: rows.filter(pc.equal(kinds, k)).to_pylist() for k in ("cell", "diff", "changed")}
    diffs: dict[tuple[str, int, str], list[tuple[float, int]]] = {}
    for r in by_kind["diff"]:
        diffs.setdefault((r["task"], r["length"], r["metric"]), []).append((r["d"], r["count"]))
    metrics_per_task: dict[str, set[str]] = {}
    for r in by_kind["cell"]:
        if r["metric"]:  # '': generations without a score row, never a compared cell
            metrics_per_task.setdefault(r["task"], set()).add(r["metric"])
    cells: list[CompareCell] = []
    totals = dict.fromkeys(
        ("only_a", "only_b", "errors_a", "errors_b", "unscored_a", "unscored_b"), 0
    )
    for index, r in enumerate(
        sorted(by_kind["cell"], key=lambda r: (r["task"], r["length"], r["metric"]))
    ):
        counts = {name: int(r[name]) for name in totals}
        for name, value in counts.items():
            totals[name] += value
        cell_key: tuple[str, int, str] = (r["task"], r["length"], r["metric"])
        if cell_key not in diffs:
            continue  # no pair both sides scored
        task, length, metric = cell_key
        label = task if len(metrics_per_task.get(task, ())) <= 1 else f"{task} ({metric})"
        values, weights = zip(*sorted(diffs[cell_key]), strict=True)
        d = np.repeat(np.asarray(values, dtype=np.float64), np.asarray(weights, dtype=np.int64))
        rng = np.random.default_rng([seed, index])
        cells.append(
            _cell(
                task, length, metric, label, d, r, counts,
                threshold=threshold, resamples=resamples, level=level, rng=rng,
            )
        )  # fmt: skip
    names = [f.name for f in fields(ChangedExample)]
    in_order = sorted(by_kind["changed"], key=lambda r: r["rank"])  # joins do not keep it
    changed = [ChangedExample(**{name: r[name] for name in names}) for r in in_order]
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
        threshold=threshold,
        changed=changed,
        outdated_a=outdated[0],
        outdated_b=outdated[1],
        **totals,
    )


def _cell(
    task: str,
    length: int,
    metric: str,
    label: str,
    d: npt.NDArray[np.float64],
    row: dict[str, Any],
    counts: dict[str, int],
    *,
    threshold: float,
    resamples: int,
    level: float,
    rng: np.random.Generator,
) -> CompareCell:
    """Statistics of one cell from its paired differences d = A - B (the functions of
    stats.py take pairs; (d, 0) is the same pair difference)."""
    zeros = np.zeros_like(d)
    test: stats.McNemarResult | stats.WilcoxonResult
    if row["binary"]:
        a_only = int(np.count_nonzero(d == 1.0))
        test = stats.mcnemar_from_counts(a_only, int(np.count_nonzero(d == -1.0)), len(d))
        ci = stats.t_interval(d, zeros, level=level)
        reason = None
    else:
        test = stats.wilcoxon_signed_rank(d, zeros)
        ci = stats.bootstrap_interval(d, zeros, resamples=resamples, level=level, seed=rng)
        reason = test.reason
    mean_a, mean_b = float(row["mean_a"]), float(row["mean_b"])
    return CompareCell(
        task=task,
        length=length,
        metric=metric,
        label=label,
        n=len(d),
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
