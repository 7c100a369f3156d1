"""One reading statement into Arrow (the SQL console, `lctui query`, compare's pairs)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import duckdb
import pyarrow as pa

from lctui.core.errors import StoreError
from lctui.store.read.source import Source, cursor_of
from lctui.store.sql_gate import check_reading


def query_arrow(
    src: Source, sql: str, params: Sequence[Any] | None = None, limit: int | None = None
) -> pa.Table:
    """Run one statement that reads (SELECT, DESCRIBE, SHOW, EXPLAIN...) into Arrow.

    The statement gate (sql_gate.check_reading) refuses anything else with the reason.
    SQL a user typed goes through store.sandbox, which runs it here on a connection
    that cannot write or reach outside the results. `limit` stops reading after that
    many rows.
    """
    with cursor_of(src) as cur:
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
