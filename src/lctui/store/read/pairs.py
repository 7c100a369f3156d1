"""The pairs of an A/B comparison: each side's latest generation per example and metric,
aligned in one DuckDB query, and the reads that resolve what a side names.

A side is a set of model ids, optionally within one run. `paired_scores` answers with
per-cell counts and means (few rows, as records), the counts of each paired difference
per cell (as Arrow: with continuous scores a cell can hold as many distinct differences
as pairs, so they stay columnar for numpy) and the changed pairs (at most `limit`).
The statistics over them are analysis/compare.py's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

import pyarrow as pa
import pyarrow.compute as pc

from lctui.store.read.arrow import query_arrow
from lctui.store.read.source import Source, cursor_of

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
# Among equal differences by the example's hash (example ids are hashes themselves, so
# this order is no more arbitrary than theirs, and it needs no text id in the grouping).
_CHANGED_ORDER = "ORDER BY abs(score_a - score_b) DESC, task, length, example_hash, metric"
# Why a side of a pair has no score: its generation failed or was cancelled (an error),
# or it succeeded without a score row (`unscored`: missing, never a 0; store/views.py).
_LEFT_OUT = "generation_a IS NOT NULL AND generation_b IS NOT NULL AND score_{side} IS NULL"
# A generation without a score row has no metric (''); its `score` is this marker when
# it succeeded (unscored), NULL when it failed. Real scores are in [0, 1], and rows of
# metric '' never reach a mean or a pair. (A flag per side would cost two more arg_max
# per example: +20 % of the query, where this costs ~5 %; bench/analysis.py.)
_NO_SCORE_ROW = "-1.0"
# What both queries (below) count from the aligned rows `p` ('scored': rows with a
# metric; 'no_metric': generations without a score row): the rows of each cell, with a
# generation without a score row standing in for its side of its example's metrics,
# the cells' counts and means, and the counts of each paired difference.
_COUNTED = f"""
        SELECT m.task, m.length, m.metric,
               coalesce(m.generation_a, n.generation_a) AS generation_a, m.score_a,
               m.generation_a IS NULL AND n.score_a = {_NO_SCORE_ROW} AS unscored_a,
               coalesce(m.generation_b, n.generation_b) AS generation_b, m.score_b,
               m.generation_b IS NULL AND n.score_b = {_NO_SCORE_ROW} AS unscored_b
        FROM scored AS m LEFT JOIN no_metric AS n USING (example_hash)
        UNION ALL BY NAME
        SELECT task, length, metric,
               generation_a, NULL AS score_a, score_a = {_NO_SCORE_ROW} AS unscored_a,
               generation_b, NULL AS score_b, score_b = {_NO_SCORE_ROW} AS unscored_b
        FROM no_metric ANTI JOIN stood_in USING (example_hash)"""
_CELLS = f"""'cell' AS kind, task, length, metric,
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
    FROM counted GROUP BY task, length, metric"""
_DIFFS = f"""'diff' AS kind, task, length, metric, score_a - score_b AS d, count(*) AS count
    FROM scored WHERE {_PAIRED} GROUP BY task, length, metric, d"""
# The query as it was before bench/analysis.py's 10M A/B (kept as the oracle of
# tests/store/test_store_pairs.py and the bench's ratio; `paired_scores(reference=True)`).
# One query, three kinds of rows: per-cell counts and means, the counts of each paired
# difference per cell (all the tests need), and the changed pairs. In the cell counts a
# generation without a score row stands in for its side of its example's metrics, so
# that a missing score is counted as missing there instead of making the example look
# as if only the other side had it.
_REFERENCE_SQL = f"""
    WITH j AS (
        SELECT g.example_id, g.example_hash, g.task, g.length, coalesce(s.metric, '') AS metric,
               {_IN_A} AS in_a, {_IN_B} AS in_b, g.gen_hash AS gen, {_KEY} AS k,
               CASE WHEN s.status IN ('ok', 'unparsed') THEN coalesce(s.value, 0)
                    WHEN s.status IS NULL AND g.status = 'ok' THEN {_NO_SCORE_ROW} END AS score
        FROM generations AS g
        LEFT JOIN scores AS s ON s.gen_hash = g.gen_hash AND s.latest
        WHERE {_IN_A} OR {_IN_B}
    ), p AS MATERIALIZED (
        SELECT coalesce(any_value(task), '?') AS task, coalesce(any_value(length), 0) AS length,
               example_id, any_value(example_hash) AS example_hash, metric,
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
        SELECT DISTINCT n.example_hash FROM no_metric AS n JOIN scored USING (example_hash)
    ), counted AS ({_COUNTED}
    )
    SELECT {_CELLS}
    UNION ALL BY NAME
    SELECT {_DIFFS}
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

# The same answer, faster: at 10M generations (two runs of 5M, bench/analysis.py) 7.1
# CPU seconds instead of 9.8, 3.7 s instead of 5.0 s on two shared cores, taken in turn.
# What changed, each measured there:
# - the generations are narrowed to integers and flags (side, key, ok) before the join
#   with the scores, and not materialised: DuckDB builds its hash table on them, and
#   carrying the model and run ids and the start time through it cost half the join;
# - each side keeps max(key) instead of arg_max(generation, key), and the changed pairs
#   alone look their generations up again by example and key (-20 % of the group by);
# - the examples with both a metric and a row without one (`stood_in`) are found by a
#   semi-join that builds on the few rows without a metric, not on the 5M scored ones;
# - rows are grouped by `example_hash` (an integer kept on write, store/derived.py), not
#   the 16-character text id, and the changed pairs' lookups read only the generations
#   of their examples: 5.0 CPU seconds instead of 6.3, 2.5 s instead of 3.1 s (best of
#   3 in turn, on two cores shared with other work).
_SIDE_ROWS = """
    SELECT example_hash, example_id, {key} AS k, generation_id FROM generations AS g
    WHERE list_contains(${models}, g.model_id) AND (${run} IS NULL OR g.run_id = ${run})
      AND g.example_hash IN (SELECT example_hash FROM changed)
"""
_COMPARE_SQL = f"""
    WITH g AS (
        SELECT g.example_hash, g.task, g.length, g.gen_hash, {_IN_A} AS in_a, {_IN_B} AS in_b,
               {_KEY} AS k, g.status = 'ok' AS ok
        FROM generations AS g WHERE {_IN_A} OR {_IN_B}
    ), j AS (
        SELECT g.example_hash, g.task, g.length, coalesce(s.metric, '') AS metric, in_a, in_b,
               k,
               CASE WHEN s.status IN ('ok', 'unparsed') THEN coalesce(s.value, 0)
                    WHEN s.status IS NULL AND g.ok THEN {_NO_SCORE_ROW} END AS score
        FROM g LEFT JOIN scores AS s ON s.gen_hash = g.gen_hash AND s.latest
    ), p AS MATERIALIZED (
        SELECT coalesce(any_value(task), '?') AS task, coalesce(any_value(length), 0) AS length,
               example_hash, metric,
               max(k) FILTER (WHERE in_a) AS generation_a,
               arg_max_null(score, k) FILTER (WHERE in_a) AS score_a,
               max(k) FILTER (WHERE in_b) AS generation_b,
               arg_max_null(score, k) FILTER (WHERE in_b) AS score_b
        FROM j GROUP BY example_hash, metric
    ), scored AS (
        SELECT * FROM p WHERE metric <> ''
    ), no_metric AS (
        SELECT * FROM p WHERE metric = ''
    ), stood_in AS (
        SELECT DISTINCT example_hash FROM scored
        WHERE example_hash IN (SELECT example_hash FROM no_metric)
    ), counted AS ({_COUNTED}
    ), changed AS MATERIALIZED (
        SELECT *, row_number() OVER ({_CHANGED_ORDER}) AS rank
        FROM (SELECT * FROM scored WHERE abs(score_a - score_b) >= $5 {_CHANGED_ORDER} LIMIT $6)
    )
    SELECT {_CELLS}
    UNION ALL BY NAME
    SELECT {_DIFFS}
    UNION ALL BY NAME
    SELECT 'changed' AS kind, c.task, c.length, c.metric, ga.example_id,
           ga.generation_id AS generation_a, gb.generation_id AS generation_b,
           c.score_a, c.score_b, c.rank
    FROM changed AS c
    JOIN ({_SIDE_ROWS.format(key=_KEY, models=1, run=2)}) AS ga
        ON ga.example_hash = c.example_hash AND ga.k = c.generation_a
    JOIN ({_SIDE_ROWS.format(key=_KEY, models=3, run=4)}) AS gb
        ON gb.example_hash = c.example_hash AND gb.k = c.generation_b
    -- two generations of a side with the same key (start time and hash bits): one
    QUALIFY row_number() OVER (PARTITION BY c.rank ORDER BY ga.generation_id, gb.generation_id) = 1
"""


@dataclass(frozen=True)
class PairCell:
    """Counts and paired means of one task x length x metric cell (metric '': the
    generations without a score row, never a compared cell)."""

    task: str
    length: int
    metric: str
    only_a: int  # examples only A has
    only_b: int
    errors_a: int  # pairs left out because A's generation failed or was cancelled
    errors_b: int
    unscored_a: int  # pairs left out because A's generation has no score
    unscored_b: int
    mean_a: float | None  # over the pairs both sides scored; None without any
    mean_b: float | None
    binary: bool  # every paired score is 0 or 1


@dataclass(frozen=True)
class ChangedExample:
    """A pair whose scores differ by at least the threshold; open it with
    analysis.compare.side_by_side."""

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


@dataclass(frozen=True)
class PairedScores:
    """What one comparison query found (see the module docstring)."""

    cells: tuple[PairCell, ...]
    # task, length, metric, d (A - B) and count: one row per distinct difference per cell
    diffs: pa.Table
    changed: tuple[ChangedExample, ...]  # largest |A - B| first


@dataclass(frozen=True)
class SideKey:
    """The generations of one side: these model ids, within `run_id` when given."""

    model_ids: tuple[str, ...]
    run_id: str | None


def paired_scores(
    src: Source,
    a: SideKey,
    b: SideKey,
    *,
    threshold: float,
    limit: int,
    reference: bool = False,
) -> PairedScores:
    """Align the latest scored generations of `a` and `b` by example and metric; pairs
    with |A - B| >= `threshold` are changed (the first `limit` of them returned).

    `reference` runs the query as it was before it was made faster (the same answer,
    kept for the property test and the bench)."""
    params = [list(a.model_ids), a.run_id, list(b.model_ids), b.run_id, threshold, limit]
    rows = query_arrow(src, _REFERENCE_SQL if reference else _COMPARE_SQL, params)
    kinds = rows.column("kind")

    def of_kind(kind: str, names: Sequence[str]) -> pa.Table:
        return rows.filter(pc.equal(kinds, kind)).select(list(names))

    cell_rows = of_kind("cell", [f.name for f in fields(PairCell)]).to_pylist()
    cells = tuple(PairCell(**r) for r in cell_rows)
    diffs = of_kind("diff", ["task", "length", "metric", "d", "count"])
    changed_names = [f.name for f in fields(ChangedExample)]
    changed_rows = of_kind("changed", [*changed_names, "rank"]).to_pylist()
    in_order = sorted(changed_rows, key=lambda r: r.pop("rank"))  # joins do not keep it
    return PairedScores(cells, diffs, tuple(ChangedExample(**r) for r in in_order))


@dataclass(frozen=True)
class RunModel:
    model_id: str
    name: str  # its name in lctui, or the id when the model row is gone


def run_models(src: Source, run_id: str) -> tuple[RunModel, ...]:
    """The models whose generations `run_id` holds, by name."""
    with cursor_of(src) as cur:
        rows = cur.execute(
            "SELECT DISTINCT g.model_id, coalesce(m.name, g.model_id) FROM generations AS g "
            "LEFT JOIN models AS m USING (model_id) WHERE g.run_id = ? ORDER BY 2",
            [run_id],
        ).fetchall()
    return tuple(RunModel(str(mid), str(name)) for mid, name in rows)


def model_ids_named(src: Source, spec: str) -> tuple[str, ...]:
    """The ids of the models named `spec`, or `spec` itself when it is a stored id;
    sorted, empty when none."""
    with cursor_of(src) as cur:
        rows = cur.execute(
            "SELECT model_id FROM models WHERE name = $1 OR model_id = $1 "
            "UNION SELECT DISTINCT model_id FROM generations WHERE model_id = $1",
            [spec],
        ).fetchall()
    return tuple(sorted(str(r[0]) for r in rows))


def model_names(src: Source) -> tuple[str, ...]:
    """Every stored model's name, sorted."""
    with cursor_of(src) as cur:
        rows = cur.execute("SELECT name FROM models ORDER BY name").fetchall()
    return tuple(str(r[0]) for r in rows)
