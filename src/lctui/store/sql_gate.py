"""The statement gate for SQL a user types: one statement, and only one that reads.

It runs before anything executes so that a refusal says plainly what was refused.
It is the first of two defences: user SQL also runs on a connection that cannot
write or reach outside the results (store/sandbox.py), which catches what a look at
the statement cannot, such as a DELETE inside a WITH clause.
"""

from __future__ import annotations

import duckdb

from lctui.core.errors import StoreError

# PIVOT without an IN list parses as MULTI (DuckDB expands it into several statements),
# and so does any statement with such a PIVOT inside (a COPY or CREATE of a PIVOT): a
# MULTI reads only when it is a PIVOT itself.
_PIVOTS = frozenset({"PIVOT", "UNPIVOT", "PIVOT_WIDER", "PIVOT_LONGER"})
_ANALYZE = frozenset({"ANALYZE", "ANALYSE"})
_STATEMENT_STARTS = frozenset({"SELECT", "WITH", "FROM", "VALUES", "TABLE"})
REFUSED = "refused (queries here are read-only)"
READING_KINDS = "SELECT, FROM, WITH, VALUES, DESCRIBE, SHOW, SUMMARIZE, PIVOT or EXPLAIN of one"
REFUSED_KINDS = (
    "INSERT/UPDATE/DELETE, CREATE/DROP/ALTER, COPY, EXPORT, ATTACH/DETACH, SET/RESET, PRAGMA, "
    "INSTALL/LOAD, CALL, CHECKPOINT and transactions are refused"
)


def check_reading(con: duckdb.DuckDBPyConnection, sql: str) -> duckdb.Statement:
    """The one statement of `sql` if it only reads; StoreError saying why not otherwise.

    `con` only parses (any connection will do). EXPLAIN ANALYZE runs the statement it
    explains, so EXPLAIN is allowed only of a statement that reads.
    """
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as err:
        raise StoreError(f"invalid SQL: {err}") from err
    if len(statements) != 1:
        found = f"{len(statements)} statements" if statements else "nothing to run"
        raise StoreError(f"{REFUSED}: {found}; run one statement that reads ({READING_KINDS})")
    statement = statements[0]
    if _type(statement) == duckdb.StatementType.EXPLAIN:
        _check_explained(con, statement.query)
    elif not _reads(statement):
        raise StoreError(
            f"{REFUSED}: {_kind(statement)} does not only read the results; run one statement "
            f"that reads ({READING_KINDS}); {REFUSED_KINDS}"
        )
    return statement


def _check_explained(con: duckdb.DuckDBPyConnection, sql: str) -> None:
    analyze, inner = _explained(sql)
    try:
        statements = con.extract_statements(inner) if inner.strip() else []
    except duckdb.Error:
        statements = []
    if len(statements) != 1:
        raise StoreError(
            f"{REFUSED}: no one statement to explain after EXPLAIN and its options; explain a "
            f"statement that reads ({READING_KINDS})"
        )
    if _reads(statements[0]):
        return
    kind = _kind(statements[0])
    if analyze:
        raise StoreError(
            f"{REFUSED}: EXPLAIN ANALYZE runs the statement it explains, and {kind} does not "
            f"only read the results; explain a statement that reads ({READING_KINDS})"
        )
    raise StoreError(
        f"{REFUSED}: EXPLAIN here explains only statements that read, and {kind} does not "
        f"({READING_KINDS})"
    )


def _reads(statement: duckdb.Statement) -> bool:
    """A SELECT (FROM, WITH, VALUES, DESCRIBE, SHOW, SUMMARIZE parse as one), or a PIVOT."""
    kind = _type(statement)
    if kind == duckdb.StatementType.SELECT:
        return True
    if kind != duckdb.StatementType.MULTI:
        return False
    words = _words(statement.query)
    return bool(words) and words[0][1].upper() in _PIVOTS


def _explained(sql: str) -> tuple[bool, str]:
    """(whether it is EXPLAIN ANALYZE, the text of the statement it explains)."""
    words = _words(sql)
    raw = sql.encode()
    i, analyze = 1, False  # words[0] is EXPLAIN
    if i < len(words) and words[i][1].upper() in _ANALYZE:
        analyze, i = True, i + 1
    elif _option_list(words, i):
        depth = 0  # EXPLAIN (ANALYZE, FORMAT json) ...
        while i < len(words):
            text = words[i][1]
            depth += text.count("(") - text.count(")")
            analyze = analyze or text.upper() in _ANALYZE
            i += 1
            if depth <= 0:
                break
    inner = raw[words[i][0] :].decode() if i < len(words) else ""
    return analyze, inner


def _option_list(words: list[tuple[int, str]], i: int) -> bool:
    """Whether words[i] opens EXPLAIN's options rather than a statement in parentheses."""
    if i + 1 >= len(words) or not words[i][1].startswith("("):
        return False
    following = words[i + 1][1]
    return not following.startswith("(") and following.upper() not in _STATEMENT_STARTS


def _words(sql: str) -> list[tuple[int, str]]:
    """(byte offset, text) of each token of `sql` but comments (DuckDB's tokenizer)."""
    raw = sql.encode()
    tokens = duckdb.tokenize(sql)
    ends = [position for position, _ in tokens[1:]] + [len(raw)]
    return [
        (position, raw[position:end].decode().strip())
        for (position, kind), end in zip(tokens, ends, strict=True)
        if kind != duckdb.token_type.comment
    ]


def _kind(statement: duckdb.Statement) -> str:
    """How the user wrote the statement's kind (INSTALL, not DuckDB's LOAD type)."""
    words = _words(statement.query)
    first = words[0][1].upper() if words else ""
    if first.isalpha() and first not in ("WITH", "FROM"):
        return first
    kind = _type(statement)
    return kind.name if kind is not None else "this statement"


def _type(statement: duckdb.Statement) -> duckdb.StatementType | None:
    """The statement's type; None for one the Python module has no name for (duckdb 2.0.1
    parses UPDATE EXTENSIONS as type 29 and raises on reading it): never one that reads."""
    try:
        return statement.type
    except ValueError:
        return None
