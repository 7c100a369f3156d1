"""Per-cell means and counts (model x task x length, and by needle depth): the rules
the CLI's table, the heatmap, curves and reports share."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import duckdb

from lctui.store.read.source import Source, cursor_of, dict_rows
from lctui.store.result_cells import cells_current
from lctui.store.scorer_versions import CURRENT_VERSION, outdated_aggregate
from lctui.store.scorer_versions import version_params as version_params_of


@dataclass(frozen=True)
class CellScore:
    """One model x task x length cell of the latest results (errors and missing scores
    excluded from means, counted apart)."""

    model: str
    task: str
    length: int
    metric: str | None
    mean_score: float | None  # over ok and unparsed (unparsed count as 0)
    stderr: float | None  # standard error of that mean
    n_scored: int  # ok + unparsed
    n_ok: int
    n_unparsed: int
    n_error: int
    n_cancelled: int
    n_unscored: int  # succeeded but has no score (missing, not 0): `lctui rescore`
    reference: bool
    # Scored by an older version of its scorer than the `versions` asked about (0 when
    # none were given): `lctui rescore` scores them again.
    n_outdated: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


# The per-cell rules shared by the CLI's table and the TUI's heatmap: errors, cancelled
# generations and generations without a score (`unscored`, store/views.py) are counted
# apart and never enter the mean. Only rows with a score row are `ok` or `unparsed`;
# an unparsed one scores 0 even if its scorer wrote no value. Rows, not distinct
# generations, are counted, like the mean (one score row per generation and metric).
# Columns in this order: mean_score, stderr, n_scored, n_unparsed, n_error,
# n_cancelled, n_unscored, reference (heatmap_data reads them by position).
CELL_AGGREGATES = """
    avg(coalesce(score, 0)) FILTER (WHERE status IN ('ok', 'unparsed')) AS mean_score,
    stddev_samp(coalesce(score, 0)) FILTER (WHERE status IN ('ok', 'unparsed'))
        / sqrt(count(*) FILTER (WHERE status IN ('ok', 'unparsed'))) AS stderr,
    count(*) FILTER (WHERE status IN ('ok', 'unparsed')) AS n_scored,
    count(*) FILTER (WHERE status = 'unparsed') AS n_unparsed,
    count(*) FILTER (WHERE status = 'error') AS n_error,
    count(*) FILTER (WHERE status = 'cancelled') AS n_cancelled,
    count(*) FILTER (WHERE status = 'unscored') AS n_unscored,
    bool_or(reference) AS reference
"""

# Needle depths are requested on a 10 % grid (RULER's 0, 10, ..., 100) and land a little
# off it once snapped to sentence boundaries, so rounding recovers the requested depth.
DEPTH_BUCKET = 10.0
_DEPTH_CELLS_SQL = f"""
    SELECT model, task, length, round(depth / $bucket) * $bucket AS depth_bucket,
           {CELL_AGGREGATES}, {{outdated}} AS n_outdated
    FROM results
    WHERE depth IS NOT NULL AND length IS NOT NULL
      AND ($models IS NULL OR list_contains($models, model))
      AND ($tasks IS NULL OR list_contains($tasks, task))
    GROUP BY model, task, length, depth_bucket
    ORDER BY model, task, depth_bucket, length
"""


@dataclass(frozen=True)
class DepthCellCounts:
    """One model x task x length x needle-depth bucket cell (CELL_AGGREGATES' rules)."""

    model: str
    task: str
    length: int
    depth_bucket: float  # depth rounded to a multiple of the bucket, in percent
    mean_score: float | None  # over ok and unparsed (unparsed count as 0)
    stderr: float | None
    n_scored: int
    n_unparsed: int
    n_error: int
    n_cancelled: int
    n_unscored: int  # succeeded but has no score: missing, never a 0
    reference: bool
    n_outdated: int  # scored by an older version of its scorer than `versions` gives


def depth_cells(
    src: Source,
    *,
    bucket: float = DEPTH_BUCKET,
    models: Sequence[str] | None = None,
    tasks: Sequence[str] | None = None,
    versions: Mapping[str, int] | None = None,
) -> list[DepthCellCounts]:
    """Per model, task, length and depth bucket (depth rounded to a multiple of `bucket`
    percent); `n_outdated` counts rows scored by an older version than `versions` gives
    (0 without)."""
    params = {
        "bucket": float(bucket),
        "models": None if models is None else list(models),
        "tasks": None if tasks is None else list(tasks),
    }
    with cursor_of(src) as cur:
        outdated, version_params = outdated_aggregate(cur, versions)
        sql = _DEPTH_CELLS_SQL.format(outdated=outdated)
        rows = cur.execute(sql, {**params, **version_params}).fetchall()
    return [
        DepthCellCounts(
            str(model),
            str(task),
            int(length),
            float(depth),
            mean,
            stderr,
            int(n_scored),
            int(n_unparsed),
            int(n_error),
            int(n_cancelled),
            int(n_unscored),
            bool(reference),
            int(n_outdated),
        )
        for (
            model,
            task,
            length,
            depth,
            mean,
            stderr,
            n_scored,
            n_unparsed,
            n_error,
            n_cancelled,
            n_unscored,
            reference,
            n_outdated,
        ) in rows
    ]


# The same cells from `result_cells` (store/result_cells.py), which holds per cell and
# status the rows' count, the sum of their scores and of its squares: the mean is the
# sum over the count and the standard error comes from the sum of squares, under the
# rules of CELL_AGGREGATES. `{where}` filters the joined rows `c` (with `model`).
_TABLE_CELLS_SQL = """
    WITH c AS (
        SELECT coalesce(m.name, c.model_id) AS model, c.*, coalesce(m.reference, false) AS ref
        FROM result_cells AS c LEFT JOIN models AS m ON m.model_id = c.model_id
    ), cell AS (
        SELECT model, task, length, min(metric) AS metric,
               coalesce(sum(n) FILTER (WHERE status IN ('ok', 'unparsed')), 0) AS n_scored,
               sum(total) FILTER (WHERE status IN ('ok', 'unparsed')) AS total,
               sum(total_sq) FILTER (WHERE status IN ('ok', 'unparsed')) AS total_sq,
               coalesce(sum(n) FILTER (WHERE status = 'ok'), 0) AS n_ok,
               coalesce(sum(n) FILTER (WHERE status = 'unparsed'), 0) AS n_unparsed,
               coalesce(sum(n) FILTER (WHERE status = 'error'), 0) AS n_error,
               coalesce(sum(n) FILTER (WHERE status = 'cancelled'), 0) AS n_cancelled,
               coalesce(sum(n) FILTER (WHERE status = 'unscored'), 0) AS n_unscored,
               bool_or(ref) AS reference, {outdated} AS n_outdated
        FROM c WHERE {where}
        GROUP BY model, task, length
    )
    SELECT model, task, length, metric,
           total / nullif(n_scored, 0) AS mean_score,
           CASE WHEN n_scored > 1 THEN sqrt(greatest(0.0,
               (total_sq - total * total / n_scored) / (n_scored - 1)) / n_scored) END AS stderr,
           n_scored::BIGINT AS n_scored, n_ok::BIGINT AS n_ok,
           n_unparsed::BIGINT AS n_unparsed, n_error::BIGINT AS n_error,
           n_cancelled::BIGINT AS n_cancelled, n_unscored::BIGINT AS n_unscored,
           reference, n_outdated::BIGINT AS n_outdated
    FROM cell {order}
"""
_TABLE_OUTDATED = f"coalesce(sum(n) FILTER (WHERE scorer_version < {CURRENT_VERSION}), 0)"


def pivot_rows(
    cur: duckdb.DuckDBPyConnection,
    where: str,
    params: Mapping[str, Any],
    versions: Mapping[str, int] | None,
    *,
    order: str = "",
) -> list[dict[str, Any]]:
    """The cells of `result_cells` whose rows pass `where` (over model, model_id,
    run_id, task, length, ...), every field of CellScore as a dict. The caller checked
    `cells_current`."""
    outdated, version_params = (
        (_TABLE_OUTDATED, version_params_of(versions)) if versions else ("0", {})
    )
    sql = _TABLE_CELLS_SQL.format(outdated=outdated, where=where, order=order)
    cur.execute(sql, {**params, **version_params})
    return dict_rows(cur)


_FILTERS = """
    ($run_id IS NULL OR run_id = $run_id)
    AND ($models IS NULL OR list_contains($models, model) OR list_contains($models, model_id))
    AND ($tasks IS NULL OR list_contains($tasks, task))
    AND ($lengths IS NULL OR list_contains($lengths, length))
"""


def cell_scores(
    src: Source,
    *,
    run_id: str | None = None,
    models: Sequence[str] | None = None,
    tasks: Sequence[str] | None = None,
    lengths: Sequence[int] | None = None,
    versions: Mapping[str, int] | None = None,
    through_views: bool = False,
) -> list[CellScore]:
    """Mean score and status counts per cell.

    `run_id` keeps cells whose latest generation came from that run; `models` matches
    names or fingerprints. None means no filter. `versions` (scorer -> current version,
    lctui.scoring.versions) counts the scores an older version made (`n_outdated`).
    They are read from `result_cells`, or with `through_views` (or when rows were
    written around the store's writer) by the full query over `results_core`.
    """
    params = {
        "run_id": run_id,
        "models": None if models is None else list(models),
        "tasks": None if tasks is None else list(tasks),
        "lengths": None if lengths is None else [int(n) for n in lengths],
    }
    with cursor_of(src) as cur:
        if not through_views and cells_current(cur):
            rows = pivot_rows(cur, _FILTERS, params, versions, order=_ORDER)
            return [CellScore(**record) for record in rows]
        outdated, version_params = outdated_aggregate(cur, versions)
        cur.execute(_VIEW_CELLS_SQL.format(outdated=outdated), {**params, **version_params})
        return [CellScore(**record) for record in dict_rows(cur)]


_ORDER = "ORDER BY model, task, length"
# The full query: every latest generation joined with its score (results_core).
_VIEW_CELLS_SQL = f"""
    SELECT model, task, length, min(metric) AS metric, {CELL_AGGREGATES},
           count(*) FILTER (WHERE status = 'ok') AS n_ok, {{outdated}} AS n_outdated
    FROM results_core
    WHERE {_FILTERS}
    GROUP BY model, task, length
    {_ORDER}
"""
