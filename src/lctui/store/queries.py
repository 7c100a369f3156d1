"""Read helpers over a results file: resume keys, run and cell summaries, one generation.

Each takes a Store (a fresh cursor is used and closed) or a DuckDB cursor (used as is,
so another thread can `interrupt()` it). User values always travel as parameters.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol

import duckdb
import pyarrow as pa

from lctui.core.errors import StoreError
from lctui.core.types import Example, Span
from lctui.store.run_status import status_now
from lctui.store.scorer_versions import outdated_aggregate
from lctui.store.sql_gate import check_reading
from lctui.store.views import RESULT_STATUS


class HasCursor(Protocol):
    def cursor(self) -> duckdb.DuckDBPyConnection: ...


Source = HasCursor | duckdb.DuckDBPyConnection


@contextlib.contextmanager
def _cursor(src: Source) -> Iterator[duckdb.DuckDBPyConnection]:
    if isinstance(src, duckdb.DuckDBPyConnection):
        yield src
        return
    cur = src.cursor()
    try:
        yield cur
    finally:
        cur.close()


def _records(cur: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Fetch all rows as dicts, decoding JSON columns (DuckDB returns them as text)."""
    description = cur.description or []
    names = [d[0] for d in description]
    json_columns = [i for i, d in enumerate(description) if str(d[1]) == "JSON"]
    out = []
    for row in cur.fetchall():
        values = list(row)
        for i in json_columns:
            if values[i] is not None:
                values[i] = json.loads(values[i])
        out.append(dict(zip(names, values, strict=True)))
    return out


def stored_keys(src: Source, keys: Iterable[str]) -> set[str]:
    """The gen_keys that already have a generation that neither failed nor was cancelled.

    Resume skips these; keys whose attempts all failed are retried.
    """
    wanted = pa.table({"gen_key": pa.array(list(keys), pa.large_string())})
    if wanted.num_rows == 0:
        return set()
    with _cursor(src) as cur:
        cur.register("_lctui_wanted_keys", wanted)
        try:
            rows = cur.execute(
                "SELECT DISTINCT g.gen_key FROM generations AS g "
                "JOIN _lctui_wanted_keys AS k ON k.gen_key = g.gen_key "
                "WHERE g.status NOT IN ('error', 'cancelled')"
            ).fetchall()
        finally:
            cur.unregister("_lctui_wanted_keys")
    return {str(row[0]) for row in rows}


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


def depth_cells(
    src: Source,
    *,
    bucket: float = DEPTH_BUCKET,
    models: Sequence[str] | None = None,
    tasks: Sequence[str] | None = None,
    versions: Mapping[str, int] | None = None,
) -> list[tuple[Any, ...]]:
    """Per model, task, length and depth bucket (depth rounded to a multiple of `bucket`
    percent): model, task, length, depth_bucket, then the CELL_AGGREGATES columns, then
    n_outdated (rows scored by an older version than `versions` gives, 0 without)."""
    params = {
        "bucket": float(bucket),
        "models": None if models is None else list(models),
        "tasks": None if tasks is None else list(tasks),
    }
    with _cursor(src) as cur:
        outdated, version_params = outdated_aggregate(cur, versions)
        sql = _DEPTH_CELLS_SQL.format(outdated=outdated)
        return cur.execute(sql, {**params, **version_params}).fetchall()


def cell_scores(
    src: Source,
    *,
    run_id: str | None = None,
    models: Sequence[str] | None = None,
    tasks: Sequence[str] | None = None,
    lengths: Sequence[int] | None = None,
    versions: Mapping[str, int] | None = None,
) -> list[CellScore]:
    """Mean score and status counts per cell, from the `results_core` view.

    `run_id` keeps cells whose latest generation came from that run; `models` matches
    names or fingerprints. None means no filter. `versions` (scorer -> current version,
    lctui.scoring.versions) counts the scores an older version made (`n_outdated`).
    """
    sql = f"""
        SELECT model, task, length, min(metric) AS metric, {CELL_AGGREGATES},
               count(*) FILTER (WHERE status = 'ok') AS n_ok, {{outdated}} AS n_outdated
        FROM results_core
        WHERE ($run_id IS NULL OR run_id = $run_id)
          AND ($models IS NULL OR list_contains($models, model)
               OR list_contains($models, model_id))
          AND ($tasks IS NULL OR list_contains($tasks, task))
          AND ($lengths IS NULL OR list_contains($lengths, length))
        GROUP BY model, task, length
        ORDER BY model, task, length
    """
    params = {
        "run_id": run_id,
        "models": None if models is None else list(models),
        "tasks": None if tasks is None else list(tasks),
        "lengths": None if lengths is None else [int(n) for n in lengths],
    }
    with _cursor(src) as cur:
        outdated, version_params = outdated_aggregate(cur, versions)
        cur.execute(sql.format(outdated=outdated), {**params, **version_params})
        return [CellScore(**record) for record in _records(cur)]


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
    with _cursor(src) as cur:
        cur.execute(_RUNS_SQL, {"run_id": run_id, "limit": limit})
        records = _records(cur)
    out = []
    for r in records:
        r["command"] = r["command"] or {}
        for key in ("models", "tasks", "lengths"):
            r[key] = tuple(r[key])
        # A run whose process is gone reads `interrupted` even before the next
        # read-write open marks it so (without a pid, its process cannot be checked).
        r["status"] = status_now(r["status"], r["host"], r["pid"], claim_held=True)
        out.append(RunSummary(**r))
    return out


def get_generation(src: Source, generation_id: str) -> dict[str, Any] | None:
    """Everything `lctui show` and the inspector need about one generation, as one dict.

    Generation columns come as they are stored (`prompt_tokens` is what the model read;
    the example's count is `example_prompt_tokens`), example and model columns beside
    them, plus `prompt` (the exact prompt text, when the example is stored), `scores`
    (latest per scorer and metric, each with its rubric `points`), `score` and
    `score_status` of the first rule-based score (the one `results` shows; None when
    there is none), `result_status` (its `status` in `results`: `unscored` when a
    generation that succeeded has no rule-based score), and `attempts` (every
    generation of the same gen_key, oldest first).
    """
    with _cursor(src) as cur:
        cur.execute(
            """
            SELECT g.* EXCLUDE (gen_hash, task, category, length),
                   coalesce(m.name, g.model_id) AS model,
                   coalesce(m.reference, false) AS reference, m.backend,
                   e.task, e.category, e.suite, e.length, e.seed, e.idx, e.tokenizer,
                   e.params, e.preamble, e.context, e.question, e.answer_prefix, e.gold,
                   e.max_new_tokens, e.prompt_tokens AS example_prompt_tokens,
                   e.template_overhead, e.depth, e.spans, e.truncated, e.metadata
            FROM generations AS g
            LEFT JOIN examples AS e ON e.example_id = g.example_id
            LEFT JOIN models AS m ON m.model_id = g.model_id
            WHERE g.generation_id = ?
            """,
            [generation_id],
        )
        found = _records(cur)
        if not found:
            return None
        record = found[0]
        cur.execute(
            "SELECT scorer, metric, value, status, extracted, explanation, extras, scored_at, "
            "scorer_version FROM latest_scores WHERE generation_id = ? ORDER BY scorer, metric",
            [generation_id],
        )
        scores = _records(cur)
        for score in scores:
            cur.execute(
                "SELECT idx, name, capabilities, weight, earned, explanation FROM rubric_points "
                "WHERE generation_id = ? AND scorer = ? AND scored_at = ? ORDER BY idx",
                [generation_id, score["scorer"], score["scored_at"]],
            )
            score["points"] = _records(cur)
            for point in score["points"]:
                point["capabilities"] = list(point["capabilities"] or [])
        cur.execute(
            "SELECT generation_id, run_id, status, error, started_at FROM generations "
            "WHERE gen_key = ? ORDER BY started_at NULLS FIRST, generation_id",
            [record["gen_key"]],
        )
        record["attempts"] = _records(cur)
    record["scores"] = scores
    # Judge scores sort first ("judge" < "lifeval", "recall") but are not what means use.
    rule = [score for score in scores if score["scorer"] != "judge"]
    record["score"] = rule[0]["value"] if rule else None
    record["score_status"] = rule[0]["status"] if rule else None
    record["result_status"] = record["score_status"] or (
        "unscored" if record["status"] == "ok" else record["status"]
    )
    record["gold"] = record["gold"] or []
    if record["context"] is None:
        record["prompt"] = None
    else:
        user_text = record["preamble"] + record["context"] + record["question"]
        record["prompt"] = (record["prompt_head"] or "") + user_text + (record["prompt_tail"] or "")
    return record


def load_example(src: Source, example_id: str) -> Example | None:
    """Rebuild a stored Example (for re-scoring and re-running)."""
    with _cursor(src) as cur:
        cur.execute("SELECT * FROM examples WHERE example_id = ?", [example_id])
        found = _records(cur)
    if not found:
        return None
    r = found[0]
    return Example(
        example_id=r["example_id"],
        task=r["task"],
        category=r["category"],
        suite=r["suite"],
        length=r["length"],
        seed=r["seed"],
        index=r["idx"],
        tokenizer=r["tokenizer"],
        params=r["params"] or {},
        preamble=r["preamble"],
        context=r["context"],
        question=r["question"],
        answer_prefix=r["answer_prefix"],
        gold=tuple(r["gold"] or ()),
        max_new_tokens=r["max_new_tokens"],
        prompt_tokens=r["prompt_tokens"],
        template_overhead=r["template_overhead"],
        depth=r["depth"],
        spans=tuple(Span(**s) for s in r["spans"] or ()),
        truncated=bool(r["truncated"]),
        metadata=r["metadata"] or {},
    )


def query_arrow(
    src: Source, sql: str, params: Sequence[Any] | None = None, limit: int | None = None
) -> pa.Table:
    """Run one statement that reads (SELECT, DESCRIBE, SHOW, EXPLAIN...) into Arrow.

    The statement gate (sql_gate.check_reading) refuses anything else with the reason.
    SQL a user typed goes through store.sandbox, which runs it here on a connection
    that cannot write or reach outside the results. `limit` stops reading after that
    many rows.
    """
    with _cursor(src) as cur:
        statement = check_reading(cur, sql)
        try:
            relation = cur.sql(statement.query, params=list(params) if params else None)
            if relation is None:
                return pa.table({})
            if limit is None:
                return _arrow_table(relation)
            return _first_rows(relation, limit)
        except duckdb.Error as err:
            raise StoreError(f"query failed: {err}") from err


def _arrow_table(relation: duckdb.DuckDBPyRelation) -> pa.Table:
    # duckdb 2 names these to_arrow_*; 1.x has fetch_arrow_* (still present in 2).
    convert = getattr(relation, "to_arrow_table", None) or relation.fetch_arrow_table
    table: pa.Table = convert()
    return table


def _first_rows(relation: duckdb.DuckDBPyRelation, limit: int) -> pa.Table:
    batch_size = max(1, min(limit, 65_536))
    open_reader = getattr(relation, "to_arrow_reader", None) or relation.fetch_arrow_reader
    reader = open_reader(batch_size)
    batches: list[pa.RecordBatch] = []
    taken = 0
    for batch in reader:
        if taken >= limit:
            break
        batches.append(batch.slice(0, limit - taken))
        taken += batches[-1].num_rows
    reader.close()
    return pa.Table.from_batches(batches, schema=reader.schema)
