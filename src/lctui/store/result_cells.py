"""`result_cells`: the results pivot kept as a table, so the heatmap and the CLI's table
read a few hundred rows instead of joining every latest generation with its score.

At 10M generations the pivot over `results_core` took about 1 s, 60 % of it the join
of generations with scores (bench/analysis.py). This table holds, per model
fingerprint, run, task, category, length, metric, scorer, scorer version and status
(the `results_core` status), the number of rows of `results_core` and the sum and the
sum of squares of their scores (a missing value counts 0): everything the mean, its
standard error and the counts of store/read/cells.py need. Counts and sums can be
taken back, so a write changes only the cells it touches:

- before a write: the contribution of every latest generation of the generation keys
  the write may change (its keys, the keys of the generations it scores, and those
  of generations still waiting for their example) is recorded negated;
- after the write (and the refresh of the `latest` flags and derived columns): the
  contribution of the same keys, added; the sums are merged into the table.

The writer (store/writer.py) and `import_parquet` (store/transfer.py) do this in the
transaction of their rows; migration 10 fills the table once. `result_cells_stamp`
records how many generations and scores the table has seen; rows written any other
way (by hand, in a test or a bench) leave it behind, and the readers then take the
full query over `results_core` instead (`cells_current`), or `rebuild_result_cells`
makes it whole again.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import duckdb

from lctui.store.views import RESULT_STATUS, RULE_SCORE

# The key of a cell row; NULL is a value here (a generation without an example has no
# task yet, one without a score no metric), so keys are matched IS NOT DISTINCT FROM.
KEY = (
    "model_id",
    "run_id",
    "task",
    "category",
    "length",
    "metric",
    "scorer",
    "scorer_version",
    "status",
)
_TABLES = (
    """
    CREATE TABLE IF NOT EXISTS result_cells (
        model_id       TEXT,
        run_id         TEXT,
        task           TEXT,
        category       TEXT,
        length         INTEGER,
        metric         TEXT,
        scorer         TEXT,
        scorer_version INTEGER,
        status         TEXT,    -- as in results_core: ok, unparsed, error, cancelled, unscored
        n              BIGINT,  -- rows of results_core
        total          DOUBLE,  -- sum of coalesce(score, 0)
        total_sq       DOUBLE   -- sum of its squares
    )""",
    """
    CREATE TABLE IF NOT EXISTS result_cells_stamp (
        generations BIGINT,  -- count(*) of generations and scores when the table was
        scores      BIGINT   -- last made right
    )""",
)
# The contribution of the latest generations (`results_core`'s rows) to their cells,
# times {sign}, restricted by {where}. The generations are taken first and the scores
# probed with their hashes: joined directly, DuckDB built its hash table on all the
# scores (seconds per flush at 10M rows) to keep a thousand of them.
_CONTRIBUTION = f"""
    WITH g AS MATERIALIZED (
        SELECT gen_hash, model_id, run_id, task, category, length, status
        FROM generations WHERE latest {{where}}
    ), s AS (
        SELECT gen_hash, metric, scorer, scorer_version, status, value FROM scores
        WHERE latest AND {RULE_SCORE} AND gen_hash IN (SELECT gen_hash FROM g)
    )
    SELECT g.model_id, g.run_id, g.task, g.category, g.length, s.metric, s.scorer,
           s.scorer_version, {RESULT_STATUS} AS status,
           {{sign}} * count(*) AS n,
           {{sign}} * sum(coalesce(s.value, 0)) AS total,
           {{sign}} * sum(coalesce(s.value, 0) * coalesce(s.value, 0)) AS total_sq
    FROM g LEFT JOIN s ON s.gen_hash = g.gen_hash
    GROUP BY ALL
"""
# The whole table: every latest generation joins its score.
_FULL = f"""
    SELECT g.model_id, g.run_id, g.task, g.category, g.length, s.metric, s.scorer,
           s.scorer_version, {RESULT_STATUS} AS status, count(*) AS n,
           sum(coalesce(s.value, 0)) AS total,
           sum(coalesce(s.value, 0) * coalesce(s.value, 0)) AS total_sq
    FROM generations AS g
    LEFT JOIN scores AS s ON s.gen_hash = g.gen_hash AND s.latest AND s.{RULE_SCORE}
    WHERE g.latest
    GROUP BY ALL
"""
_KEYS = "_lctui_cell_keys"
_DELTA = "_lctui_cell_delta"
_TOUCHED = f"AND gen_key IN (SELECT gen_key FROM {_KEYS})"
_SAME_KEY = " AND ".join(f"c.{k} IS NOT DISTINCT FROM d.{k}" for k in KEY)
_COLUMNS = ", ".join(KEY)
_MERGE = (
    f"""
    CREATE OR REPLACE TEMP TABLE _lctui_cell_merged AS
    SELECT {_COLUMNS}, sum(n) AS n, sum(total) AS total, sum(total_sq) AS total_sq
    FROM (
        SELECT c.* FROM result_cells AS c
        WHERE EXISTS (SELECT 1 FROM {_DELTA} AS d WHERE {_SAME_KEY})
        UNION ALL
        SELECT {_COLUMNS}, n, total, total_sq FROM {_DELTA}
    )
    GROUP BY ALL
    HAVING sum(n) <> 0
    """,
    f"DELETE FROM result_cells AS c WHERE EXISTS (SELECT 1 FROM {_DELTA} AS d WHERE {_SAME_KEY})",
    "INSERT INTO result_cells SELECT * FROM _lctui_cell_merged",
    "DROP TABLE _lctui_cell_merged",
    f"DROP TABLE {_DELTA}",
    f"DROP TABLE {_KEYS}",
)
_STAMP = (
    "DELETE FROM result_cells_stamp",
    "INSERT INTO result_cells_stamp "
    "SELECT (SELECT count(*) FROM generations), (SELECT count(*) FROM scores)",
)
# Whether the table has seen every generation and score row (see the module docstring).
_CURRENT = """
    SELECT coalesce(bool_and(s.generations = (SELECT count(*) FROM generations)
                             AND s.scores = (SELECT count(*) FROM scores)), false)
    FROM result_cells_stamp AS s
"""
# Generation keys a write of new generations and scores may change the cells of.
WAITING_FOR_EXAMPLE = "SELECT gen_key FROM generations WHERE task IS NULL"


def scored_keys(score_ids: str) -> str:
    """The generation keys of the generations `score_ids` (a relation of generation ids)
    scores (matched on gen_hash: an integer is cheaper to compare than the text id)."""
    return (
        "SELECT gen_key FROM generations "
        f"WHERE gen_hash IN (SELECT md5_number(generation_id) FROM {score_ids})"
    )


@contextlib.contextmanager
def cells_kept(con: duckdb.DuckDBPyConnection, gen_keys: str) -> Iterator[None]:
    """Keep `result_cells` right across a write, inside the caller's transaction.

    `gen_keys` is a query of one column: every generation key whose latest generation,
    its latest rule-based score, or its task and length the write may change (old
    keys and new ones). Nothing is merged if the body raises (the caller rolls back).
    A table already behind (rows changed around the writer) is computed again after
    the write instead: a change cannot be added to sums that were wrong before it."""
    if not cells_current(con):
        yield
        rebuild_result_cells(con)
        return
    con.execute(f"CREATE OR REPLACE TEMP TABLE {_KEYS} AS SELECT DISTINCT * FROM ({gen_keys})")
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE {_DELTA} AS "
        + _CONTRIBUTION.format(sign="-1", where=_TOUCHED)
    )
    yield
    con.execute(f"INSERT INTO {_DELTA} " + _CONTRIBUTION.format(sign="1", where=_TOUCHED))
    for sql in (*_MERGE, *_STAMP):
        con.execute(sql)


def rebuild_result_cells(con: duckdb.DuckDBPyConnection) -> None:
    """Compute the whole table again from generations and scores (after rows were
    written by hand; migration 10)."""
    con.execute("DELETE FROM result_cells")
    con.execute("INSERT INTO result_cells " + _FULL)
    for sql in _STAMP:
        con.execute(sql)


def cells_current(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether `result_cells` holds every generation and score written (it does unless
    rows were written around the store's writer and import)."""
    row = con.execute(_CURRENT).fetchone()
    return bool(row and row[0])


def add_result_cells(con: duckdb.DuckDBPyConnection) -> None:
    """Migration 10: the tables, filled from the rows already there."""
    for sql in _TABLES:
        con.execute(sql)
    rebuild_result_cells(con)
