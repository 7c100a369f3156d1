"""SQL text lives in `lctui.store` only (docs/ARCHITECTURE.md, "the read path").

Every string literal in src/lctui outside store/ is read with `ast` (adjacent literals
join into one; an f-string's text parts join around a placeholder) and checked for
the shape of a statement: SELECT ... FROM, INSERT INTO, CREATE [OR REPLACE] [TEMP]
TABLE/VIEW, DELETE FROM, UPDATE ... SET, WITH name AS (. Keywords count in capitals
only, as the project writes SQL, so prose ("select a run from the list") is not SQL.
Docstrings are prose, and so is an example quoted inside a message or a help text
(`lctui query "SELECT run_id FROM runs"`): a statement right after a double quote is
an example for a person to type, not a query the code runs.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "lctui"

# Modules outside store/ allowed to hold SQL text, each with its reason: none (the SQL
# console's statements are what the user types, never literals here). An entry whose
# file no longer holds SQL fails the test, so the list cannot outlive its reason.
ALLOWED: dict[str, str] = {}

_STATEMENT = re.compile(
    r"\bSELECT\b[\s\S]*?\bFROM\b"
    r"|\bINSERT\s+INTO\b"
    r"|\bCREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMP\w*\s+)?(?:TABLE|VIEW|INDEX|MACRO)\b"
    r"|\bDELETE\s+FROM\b"
    r"|\bUPDATE\s+\w+\s+SET\b"
    r"|\bWITH\s+\w+\s+AS\s*(?:MATERIALIZED\s*)?\("
)


def _docstrings(tree: ast.Module) -> set[int]:
    """ids of the string nodes that are docstrings of the module, classes, functions."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _texts(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """(line, text) of every string literal that is not a docstring or part of an
    f-string (an f-string is checked whole)."""
    skip = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            parts = [v.value if isinstance(v, ast.Constant) else "{}" for v in node.values]
            skip.update(id(v) for v in node.values)
            yield node.lineno, "".join(str(p) for p in parts)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            yield node.lineno, node.value


def sql_sites(path: Path) -> list[int]:
    """Lines of `path` where a string literal holds SQL that the code would run."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    lines = []
    for line, text in _texts(tree):
        for match in _STATEMENT.finditer(text):
            if not text[: match.start()].endswith('"'):  # a quoted example for a person
                lines.append(line)
                break
    return sorted(set(lines))


def _sites_outside_store() -> dict[str, list[int]]:
    found = {}
    for path in sorted(SRC.rglob("*.py")):
        name = path.relative_to(SRC).as_posix()
        if name.startswith("store/"):
            continue
        if lines := sql_sites(path):
            found[name] = lines
    return found


def test_no_sql_text_outside_store() -> None:
    misplaced = [
        f"src/lctui/{name}:{line}"
        for name, lines in _sites_outside_store().items()
        if name not in ALLOWED
        for line in lines
    ]
    assert misplaced == [], "SQL outside store/, move it into store/read/: " + ", ".join(misplaced)


def test_every_allowed_site_still_holds_sql() -> None:
    found = _sites_outside_store()
    gone = sorted(set(ALLOWED) - set(found))
    assert gone == [], f"no SQL left in {gone}: remove them from ALLOWED"


def test_the_check_finds_sql_and_lets_prose_and_quoted_examples_be(tmp_path: Path) -> None:
    source = tmp_path / "module.py"
    source.write_text(
        '"""Docstring: SELECT x FROM y is prose here."""\n'
        "def f(cur, table):\n"
        '    """Runs SELECT * FROM runs."""\n'
        "    help = 'e.g. \"SELECT task, avg(score) FROM results GROUP BY task\"'\n"
        '    hint = "select a run from the list"\n'
        '    cur.execute("SELECT count(*) "\n'
        '                "FROM generations")\n'
        '    cur.execute(f"SELECT * FROM {table}")\n'
        '    cur.execute("CREATE OR REPLACE TEMP TABLE t AS SELECT 1")\n'
        '    return "WITH a AS (SELECT 1) SELECT * FROM a"\n',
        encoding="utf-8",
    )
    assert sql_sites(source) == [6, 8, 9, 10]
