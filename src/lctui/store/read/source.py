"""Where a read runs: a Store or a DuckDB cursor, and rows as dicts with JSON decoded."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any, Protocol

import duckdb


class HasCursor(Protocol):
    def cursor(self) -> duckdb.DuckDBPyConnection: ...


Source = HasCursor | duckdb.DuckDBPyConnection


@contextlib.contextmanager
def cursor_of(src: Source) -> Iterator[duckdb.DuckDBPyConnection]:
    if isinstance(src, duckdb.DuckDBPyConnection):
        yield src
        return
    cur = src.cursor()
    try:
        yield cur
    finally:
        cur.close()


def dict_rows(cur: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
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
