"""Test modules never import each other: what several of them share lives in
`tests/helpers/` (a package, imported as `helpers.<module>`) or in a conftest fixture.

pytest puts each test folder on `sys.path`, so `from test_tui_inspector import settle`
works, and quietly makes a test module's helpers, fixtures and module-level setup part of
another module's (its tests are even collected twice when a fixture is imported). The
imports are read with `ast`, at any depth (a deferred import counts), never executed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

TESTS = Path(__file__).resolve().parent
HELPERS = "helpers"


def imported_names(tree: ast.AST) -> Iterator[tuple[str, int]]:
    """Every absolute module name the code imports, with its line."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module, node.lineno


def local_modules(root: Path) -> set[str]:
    """The names of the modules under `root` other than the helpers package (test modules,
    conftests, scripts run by path): a test module importing any of them is a fault."""
    return {
        path.stem
        for path in root.rglob("*.py")
        if HELPERS not in path.relative_to(root).parts[:1] and path.stem != "__init__"
    }


def imports_of_test_modules(root: Path) -> list[str]:
    """`file:line imports name` for each import of a non-helper module under `root`."""
    local = local_modules(root)
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for name, line in imported_names(tree):
            parts = name.split(".")
            if parts[0] == HELPERS:
                continue
            if any(part in local for part in parts):
                found.append(f"{path.relative_to(root)}:{line} imports {name}")
    return found


def test_no_test_module_imports_another_test_module() -> None:
    assert imports_of_test_modules(TESTS) == []


def test_the_check_sees_a_test_module_imported_by_another(tmp_path: Path) -> None:
    (tmp_path / "tui").mkdir()
    (tmp_path / "tui" / "test_a.py").write_text("def settle() -> None: ...\n")
    (tmp_path / "tui" / "test_b.py").write_text("def f() -> None:\n    from test_a import settle\n")
    (tmp_path / "helpers").mkdir()
    (tmp_path / "helpers" / "pilot.py").write_text("X = 1\n")
    (tmp_path / "test_c.py").write_text("import json\nfrom helpers.pilot import X\n")
    assert imports_of_test_modules(tmp_path) == ["tui/test_b.py:2 imports test_a"]
