"""Make rows storable one at a time, so one bad value never refuses a whole batch.

A server that splits a UTF-16 surrogate pair between two stream chunks sends a lone
surrogate (`"\\ud800"`); Python keeps it in a str, but UTF-8 (Arrow, DuckDB) cannot
encode it, and one such character used to fail every flush of the run. So every text
value of a row is repaired when the row is built, and a value that Arrow still refuses
(a number out of its column's range, a value of the wrong type) becomes NULL when the
batch is converted. Either way the row's `repaired` column says that what is stored is
not exactly what came in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

Row = tuple[Any, ...]

REPAIRED_COLUMN = "repaired"
# What Arrow raises for a value it cannot put in a column of the given type.
CONVERSION_ERRORS = (pa.ArrowException, ValueError, TypeError, OverflowError)


def repair_text(text: str) -> tuple[str, bool]:
    """`text` as encodable Unicode, and whether it had to change.

    Two halves of a pair that arrived in separate chunks and were joined again become
    the one character they encode; every other (lone) surrogate becomes U+FFFD.
    """
    if text.isascii():  # the common case, and the cheapest check
        return text, False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # surrogatepass writes each surrogate as its UTF-16 code unit; decoding pairs
        # them up again and replaces the ones without a partner.
        units = text.encode("utf-16-le", "surrogatepass")
        return units.decode("utf-16-le", "replace"), True
    return text, False


def _storable_text(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _clean(value: Any) -> bool:
    if isinstance(value, str):
        return _storable_text(value)
    if isinstance(value, list):
        return all(_storable_text(v) for v in value if isinstance(v, str))
    return True


def repair_row(row: Row) -> tuple[Row, bool]:
    """Repair the text of every str (and list of str) value of `row`; True if any changed."""
    if all(_clean(value) for value in row):  # the common case: one pass, no copy
        return row, False
    out: list[Any] = []
    for value in row:
        if isinstance(value, str):
            value = repair_text(value)[0]
        elif isinstance(value, list):
            value = [repair_text(v)[0] if isinstance(v, str) else v for v in value]
        out.append(value)
    return tuple(out), True


def flagged(row: Row) -> Row:
    """`row` repaired, with its `repaired` flag (the last column) appended."""
    fixed, changed = repair_row(row)
    return (*fixed, changed)


def to_arrow(schema: pa.Schema, rows: Sequence[Row]) -> pa.Table:
    """The rows as one Arrow table; a value Arrow refuses becomes NULL, flagging its row.

    The whole batch is converted at once (cheap); only when that fails is each row
    checked value by value, which is slow but rare.
    """
    try:
        return _convert(schema, rows)
    except CONVERSION_ERRORS:
        return _convert(schema, [_storable(schema, row) for row in rows])


def _convert(schema: pa.Schema, rows: Sequence[Row]) -> pa.Table:
    columns = list(zip(*rows, strict=True)) if rows else [() for _ in schema.names]
    arrays = [pa.array(col, type=field.type) for col, field in zip(columns, schema, strict=True)]
    return pa.Table.from_arrays(arrays, schema=schema)


def _storable(schema: pa.Schema, row: Row) -> Row:
    fixed, changed = repair_row(row)
    values = list(fixed)
    for i, field in enumerate(schema):
        if values[i] is None:
            continue
        try:
            pa.array([values[i]], type=field.type)
        except CONVERSION_ERRORS:
            values[i] = None
            changed = True
    if changed and schema.names[-1] == REPAIRED_COLUMN:
        values[-1] = True
    return tuple(values)
