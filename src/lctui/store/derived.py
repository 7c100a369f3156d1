"""Columns derived on write so that the aggregate queries join on integers, not text.

The results pivot, the A/B comparison and the correlation read 1M-row tables. Joining
generations to their scores on a 32-character generation id, and to their examples
for the task and the length, cost ~2/3 of a pivot (bench/analysis.py). So, like the
`latest` flags (latest.py), these are filled by the writer and the import for the rows
they touched, and by migration 5 for the rows already there:

- `gen_hash` on generations, scores and rubric_points: md5_number(generation_id), a
  128-bit integer (UHUGEINT). It is computed from the id alone, so every table fills
  it without a lookup, and it stays the same across DuckDB versions (hash() does not).
  Ids are unique per generation and 128-bit md5 values of distinct ids do not collide
  in practice, so the views join on it alone.
- `example_hash` on generations: md5_number(example_id), for the same reason: the A/B
  comparison groups 10M generations by example, and grouping on a 128-bit integer
  costs ~1/3 less than on the 16-character text id (bench/analysis.py).
- `task`, `category`, `length` on generations: copies of the example's columns
  (examples are content-addressed and never change), so the pivot needs no join with
  the examples table.
"""

from __future__ import annotations

import duckdb

from lctui.store.latest import refresh_latest
from lctui.store.result_cells import rebuild_result_cells

_HASHED = ("generations", "scores", "rubric_points")
# The 128-bit keys: never copied from a Parquet file (Parquet has no 128-bit integer, so
# DuckDB writes them as DOUBLE and they come back wrong), always computed again.
HASH_COLUMNS = ("gen_hash", "example_hash")
_EXAMPLE_COLUMNS = ("task", "category", "length")

_FILL_HASH = "UPDATE {table} SET gen_hash = md5_number(generation_id) WHERE gen_hash IS NULL"
_FILL_EXAMPLE_HASH = (
    "UPDATE generations SET example_hash = md5_number(example_id) WHERE example_hash IS NULL"
)
_FILL_EXAMPLE = """
    UPDATE generations SET task = e.task, category = e.category, length = e.length
    FROM {examples} AS e
    WHERE generations.task IS NULL AND e.example_id = generations.example_id
"""


def derived_select(table: str, rows: str) -> str:
    """SELECT the new `rows` of `table` with their derived columns, for an INSERT BY NAME:
    computing them on the way in is cheaper than updating them after (DuckDB writes an
    update as a new version of the row). Only a generation whose example comes in a
    later batch needs fill_example_columns then."""
    if table in ("scores", "rubric_points"):
        return f"SELECT *, md5_number(generation_id) AS gen_hash FROM {rows}"
    if table == "generations":
        return (
            f"SELECT r.*, md5_number(r.generation_id) AS gen_hash, "
            f"md5_number(r.example_id) AS example_hash, e.task, e.category, e.length "
            f"FROM {rows} AS r LEFT JOIN examples AS e ON e.example_id = r.example_id"
        )
    return f"SELECT * FROM {rows}"


def fill_derived(con: duckdb.DuckDBPyConnection) -> None:
    """Fill the derived columns wherever they are missing.

    Rows just written are the only ones missing them, and a scan for NULLs costs ~4 ms
    on 1M generations, so there is no need to name the rows. Rows inserted by hand
    (tests, benches) need a call too. A generation whose example is not stored keeps a
    NULL task until the example comes.
    """
    for table in _HASHED:
        con.execute(_FILL_HASH.format(table=table))
    if has_example_hash(con):
        con.execute(_FILL_EXAMPLE_HASH)
    fill_example_columns(con, "examples")


def fill_example_columns(con: duckdb.DuckDBPyConnection, examples: str) -> None:
    """Copy the task, category and length of `examples` (a relation shaped like the
    table) onto their generations that lack them."""
    con.execute(_FILL_EXAMPLE.format(examples=examples))


def refresh_derived(
    con: duckdb.DuckDBPyConnection,
    gen_keys: str | None = None,
    generation_ids: str | None = None,
) -> None:
    """After a write: the derived columns of the new rows, then the `latest` flags of
    the keys written (refresh_latest's arguments; both None refresh every row, and
    compute `result_cells` again: store/result_cells.py)."""
    fill_derived(con)
    refresh_latest(con, gen_keys, generation_ids)
    if gen_keys is None and generation_ids is None:
        rebuild_result_cells(con)


def has_example_hash(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether generations has `example_hash` (migration 11): migration 5 fills the
    columns of its time before it exists."""
    found = con.execute(
        "SELECT count(*) FROM duckdb_columns() WHERE table_name = 'generations' "
        "AND column_name = 'example_hash' AND database_name = current_database()"
    ).fetchone()
    return bool(found and found[0])


def add_example_hash(con: duckdb.DuckDBPyConnection) -> None:
    """Migration 11: `example_hash`, filled once for the generations already there."""
    con.execute("ALTER TABLE generations ADD COLUMN example_hash UHUGEINT")
    con.execute(_FILL_EXAMPLE_HASH)


def add_derived_columns(con: duckdb.DuckDBPyConnection) -> None:
    """Migration 5: the columns, filled once for the rows already there."""
    for table in _HASHED:
        con.execute(f"ALTER TABLE {table} ADD COLUMN gen_hash UHUGEINT")
    for column, kind in zip(_EXAMPLE_COLUMNS, ("TEXT", "TEXT", "INTEGER"), strict=True):
        con.execute(f"ALTER TABLE generations ADD COLUMN {column} {kind}")
    fill_derived(con)
