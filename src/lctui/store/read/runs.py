"""Runs and what each ran: `lctui runs`-style summaries."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lctui.core.types import RUN_TIMING
from lctui.store.read.source import Source, cursor_of, dict_rows
from lctui.store.result_cells import cells_current
from lctui.store.run_status import status_now
from lctui.store.samples import sample_run_ids
from lctui.store.views import RESULT_STATUS


@dataclass(frozen=True)
class RunSummary:
    """A run and the latest attempt of each generation key it ran."""

    run_id: str
    status: str
    started_at: Any  # datetime (UTC, naive)
    finished_at: Any
    command: dict[str, Any]
    lctui_version: str | None
    host: str | None
    pid: int | None  # of the process that ran it (NULL in files older than schema 7)
    generations: int
    ok: int
    unparsed: int
    errors: int
    cancelled: int
    unscored: int  # succeeded but have no score (missing, not 0): `lctui rescore`
    mean_score: float | None  # over ok and unparsed: errors and missing scores left out
    models: tuple[str, ...]
    tasks: tuple[str, ...]
    lengths: tuple[int, ...]
    sample: bool = False  # a sample run lctui ships (store/samples.py)


_RUNS_SQL = f"""
    WITH g AS (
        SELECT * FROM generations WHERE $run_id IS NULL OR run_id = $run_id
        QUALIFY row_number() OVER (
            PARTITION BY run_id, gen_key ORDER BY started_at DESC NULLS LAST, generation_id DESC
        ) = 1
    ), r AS (
        SELECT g.run_id, g.generation_id, coalesce(m.name, g.model_id) AS model, g.task,
               g.length, {RESULT_STATUS} AS status, s.value AS score
        FROM g
        LEFT JOIN models AS m ON m.model_id = g.model_id
        LEFT JOIN rule_scores AS s ON s.gen_hash = g.gen_hash
    ), agg AS (
        SELECT run_id,
               count(DISTINCT generation_id) AS n,
               count(DISTINCT generation_id) FILTER (WHERE status = 'ok') AS ok,
               count(DISTINCT generation_id) FILTER (WHERE status = 'unparsed') AS unparsed,
               count(DISTINCT generation_id) FILTER (WHERE status = 'error') AS errors,
               count(DISTINCT generation_id) FILTER (WHERE status = 'cancelled') AS cancelled,
               count(DISTINCT generation_id) FILTER (WHERE status = 'unscored') AS unscored,
               avg(coalesce(score, 0)) FILTER (WHERE status IN ('ok', 'unparsed')) AS mean,
               list_sort(list_distinct(list(model))) AS models,
               list_sort(list_distinct(list(task))) AS tasks,
               list_sort(list_distinct(list(length))) AS lengths
        FROM r GROUP BY run_id
    )
    SELECT runs.*, coalesce(agg.n, 0) AS generations, coalesce(agg.ok, 0) AS ok,
           coalesce(agg.unparsed, 0) AS unparsed, coalesce(agg.errors, 0) AS errors,
           coalesce(agg.cancelled, 0) AS cancelled, coalesce(agg.unscored, 0) AS unscored,
           agg.mean AS mean_score,
           coalesce(agg.models, []) AS models, coalesce(agg.tasks, []) AS tasks,
           coalesce(agg.lengths, []) AS lengths
    FROM runs LEFT JOIN agg ON agg.run_id = runs.run_id
    WHERE $run_id IS NULL OR runs.run_id = $run_id
    ORDER BY runs.started_at DESC, runs.run_id DESC
    LIMIT $limit
"""


def list_runs(src: Source, limit: int = 50) -> list[RunSummary]:
    """The most recent runs first."""
    return _runs(src, None, limit)


def run_summary(src: Source, run_id: str | None = None) -> RunSummary | None:
    """One run (the most recent if `run_id` is None), or None if there is none."""
    found = _runs(src, run_id, 1)
    return found[0] if found else None


def _runs(src: Source, run_id: str | None, limit: int) -> list[RunSummary]:
    with cursor_of(src) as cur:
        cur.execute(_RUNS_SQL, {"run_id": run_id, "limit": limit})
        records = dict_rows(cur)
    out = []
    for r in records:
        r["command"] = r["command"] or {}
        for key in ("models", "tasks", "lengths"):
            r[key] = tuple(r[key])
        # A run whose process is gone reads `interrupted` even before the next
        # read-write open marks it so (without a pid, its process cannot be checked).
        r["status"] = status_now(r["status"], r["host"], r["pid"], claim_held=True)
        r["sample"] = r["run_id"] in sample_run_ids()
        out.append(RunSummary(**r))
    return out


def sample_only_models(src: Source) -> frozenset[str]:
    """The names of the models whose latest generations all come from the shipped sample
    runs (store/samples.py): what the results screen marks as samples, not the user's."""
    samples = sorted(sample_run_ids())
    if not samples:
        return frozenset()
    with cursor_of(src) as cur:
        # The pivot kept on write is small; the generations themselves when it is behind.
        rows_of = (
            "(SELECT model_id, run_id FROM result_cells WHERE n > 0)"
            if cells_current(cur)
            else "(SELECT model_id, run_id FROM generations WHERE latest)"
        )
        rows = cur.execute(
            f"SELECT m.name FROM {rows_of} AS g JOIN models AS m USING (model_id) "
            "GROUP BY m.name HAVING bool_and(list_contains(?, g.run_id))",
            [samples],
        ).fetchall()
    return frozenset(str(r[0]) for r in rows)


def run_generation_ids(src: Source, run_ids: Sequence[str]) -> set[str]:
    """The ids of every generation (any attempt, any status) the runs hold."""
    with cursor_of(src) as cur:
        rows = cur.execute(
            "SELECT generation_id FROM generations WHERE list_contains(?, run_id)", [list(run_ids)]
        ).fetchall()
    return {str(r[0]) for r in rows}


def model_generation_ids(src: Source, model_ids: Sequence[str]) -> set[str]:
    """The ids of every generation (any run, attempt and status) of the models."""
    with cursor_of(src) as cur:
        rows = cur.execute(
            "SELECT generation_id FROM generations WHERE list_contains(?, model_id)",
            [list(model_ids)],
        ).fetchall()
    return {str(r[0]) for r in rows}


@dataclass(frozen=True)
class RunTiming:
    """How long one model's generations that succeeded took in one run made on a given
    machine (the launch screen's estimate, tui/state/estimate.py): sums over them of
    their length (the budget they were built at, x) and latency (y), their span from
    the first start to the last end, and how long the model took to load."""

    model: str
    backend: str
    run_id: str
    n: int
    sum_x: float
    sum_xx: float
    sum_y: float
    sum_yy: float
    sum_xy: float
    span_s: float
    load_s: float | None  # None: the run did not record it


# The run's command keeps the machine and load times (core.types.RUN_TIMING).
_TIMINGS_SQL = f"""
    SELECT m.name, m.backend, g.run_id, count(*),
           sum(g.length), sum(g.length::DOUBLE * g.length),
           sum(g.latency_s), sum(g.latency_s * g.latency_s), sum(g.length * g.latency_s),
           max(epoch(g.started_at) + g.latency_s) - min(epoch(g.started_at)),
           any_value(r.command -> '{RUN_TIMING}' -> 'load_s')
    FROM generations AS g
    JOIN models AS m USING (model_id)
    JOIN runs AS r USING (run_id)
    WHERE g.status = 'ok' AND g.latency_s > 0 AND g.length > 0
      AND r.command ->> '$.{RUN_TIMING}.machine' = ?
    GROUP BY m.name, m.backend, g.run_id
    ORDER BY m.name, m.backend, g.run_id
"""


def run_timings(src: Source, machine: str) -> list[RunTiming]:
    """Per model and run made on `machine` (core.paths.machine_id), its generations
    that succeeded, timed; runs imported from elsewhere, or older than the record of
    their machine, are not among them."""
    with cursor_of(src) as cur:
        rows = cur.execute(_TIMINGS_SQL, [machine]).fetchall()
    timings = []
    for name, backend, run_id, n, sx, sxx, sy, syy, sxy, span, loads in rows:
        load = _load_of(loads, str(name))
        timings.append(
            RunTiming(
                str(name), str(backend), str(run_id), int(n), float(sx), float(sxx),
                float(sy), float(syy), float(sxy), float(span), load,
            )
        )  # fmt: skip
    return timings


def _load_of(loads: object, model: str) -> float | None:
    """A model's load time from the run's JSON (a file's text: anything may be there)."""
    try:
        value = json.loads(str(loads)).get(model) if loads is not None else None
    except (ValueError, AttributeError):
        return None
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
        return float(value)
    return None


@dataclass(frozen=True)
class CompareSide:
    """A model or a run one can compare: `spec` is what `lctui compare` takes (a model
    name, or `run:ID`, `run:ID@MODEL` when the run ran several models)."""

    kind: str  # model | run
    spec: str
    label: str  # the model's name
    started: Any  # datetime of a run's start (None for a model)
    sample: bool = False  # a sample run lctui ships (store/samples.py)


_SIDES_SQL = """
    SELECT 'model' AS kind, name AS spec, name AS label, NULL AS started
    FROM (SELECT DISTINCT coalesce(m.name, g.model_id) AS name
          FROM generations AS g LEFT JOIN models AS m USING (model_id))
    UNION ALL
    SELECT 'run', 'run:' || g.run_id || CASE WHEN count(*) OVER (PARTITION BY g.run_id) > 1
                                             THEN '@' || coalesce(m.name, g.model_id) ELSE '' END,
           coalesce(m.name, g.model_id), min(r.started_at)
    FROM (SELECT DISTINCT run_id, model_id FROM generations) AS g
    LEFT JOIN models AS m USING (model_id) LEFT JOIN runs AS r USING (run_id)
    GROUP BY g.run_id, g.model_id, m.name
    ORDER BY kind, started, spec
"""


def compare_sides(src: Source) -> list[CompareSide]:
    """Every model (by name), then every run and model of it (oldest run first)."""
    with cursor_of(src) as cur:
        rows = cur.execute(_SIDES_SQL).fetchall()
    samples = sample_run_ids()
    return [
        CompareSide(
            str(kind),
            str(spec),
            str(label),
            started,
            kind == "run" and str(spec)[4:].partition("@")[0] in samples,
        )
        for kind, spec, label, started in rows
    ]
