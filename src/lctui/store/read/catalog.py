"""What a results file holds, as a whole: the columns of its views (the SQL console's
side panel) and how many generations it has (an empty file gets the sample runs)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lctui.store.read.source import Source, cursor_of

# Statements lctui suggests in its help and messages for the user to type into
# `lctui query`; lctui never runs them itself. Kept here, with the SQL lctui does run.
EXAMPLE_RUNS = "SELECT run_id, status, started_at FROM runs ORDER BY started_at"
EXAMPLE_MEANS = "SELECT task, avg(score) FROM results GROUP BY task"


@dataclass(frozen=True)
class ColumnInfo:
    """One column of a table or view, as DuckDB's catalog names its type."""

    table: str
    name: str
    data_type: str


def view_columns(src: Source, names: Sequence[str]) -> list[ColumnInfo]:
    """The columns of the named tables or views, each in its declared order."""
    sql = (
        "SELECT table_name, column_name, data_type FROM information_schema.columns "
        "WHERE list_contains($names, table_name) ORDER BY table_name, ordinal_position"
    )
    with cursor_of(src) as cur:
        rows = cur.execute(sql, {"names": list(names)}).fetchall()
    return [ColumnInfo(str(table), str(column), str(kind)) for table, column, kind in rows]


def count_generations(src: Source) -> int:
    """Every stored generation, attempts and failures included."""
    with cursor_of(src) as cur:
        row = cur.execute("SELECT count(*) FROM generations").fetchone()
    return int(row[0]) if row else 0


def preview_statement(view: str) -> str:
    """The statement the SQL console's editor starts with when a view is picked: the
    user edits and runs it like anything typed (through the sandbox)."""
    return f"SELECT * FROM {view}"
