"""No import cycles between lctui's modules.

The graph is read from the source with `ast`, never by importing it, so the test is fast
and sees every import: at module level, inside functions (where cycles usually hide:
a deferred import only moves the cycle from import time to call time), and inside
`if TYPE_CHECKING:` blocks. Type-only imports count because a cycle is a design fault,
not only a start-up fault: two modules that each need the other's names are one module
split in two, whichever of them the interpreter happens to load first. import-linter's
layer contracts count them the same way. An excuse (TYPE_ONLY_EXCUSED below, empty now)
names its module and its reason.

Only explicit imports make edges. Importing `lctui.a.b` also runs `lctui/a/__init__.py`,
but counting that implicit edge would call every package that re-exports its children a
cycle; a child that imports names from its own package's `__init__` is counted, since it
names the package explicitly.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "lctui"


@dataclass(frozen=True)
class ImportEdge:
    """`source` imports `target` at `line` of the source's file; `type_only`: under
    `if TYPE_CHECKING:`, so for the type checker only."""

    source: str
    target: str
    line: int
    type_only: bool = False


def module_files(src: Path = SRC) -> dict[str, Path]:
    """Every module under src/lctui by dotted name; a package is its `__init__`."""
    files: dict[str, Path] = {}
    for path in sorted((src / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        files[".".join(parts)] = path
    return files


def _absolute(module: str, is_package: bool, level: int, name: str | None) -> str:
    """The dotted name a (possibly relative) `from` import names."""
    if level == 0:
        return name or ""
    base = module.split(".")
    base = base[: len(base) - level + (1 if is_package else 0)]
    return ".".join([*base, name] if name else base)


def _nearest_module(name: str, modules: Mapping[str, Path]) -> str | None:
    """`lctui.a.b.Thing` -> `lctui.a.b`: the longest prefix that is one of our modules."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.AST) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement with whether it stands under `if TYPE_CHECKING:`."""
    pending: list[tuple[ast.AST, bool]] = [(tree, False)]
    while pending:
        node, type_only = pending.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, type_only
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            pending.extend((child, True) for child in node.body)
            pending.extend((child, type_only) for child in node.orelse)
            continue
        pending.extend((child, type_only) for child in ast.iter_child_nodes(node))


def imports_of(module: str, modules: Mapping[str, Path]) -> Iterator[ImportEdge]:
    """The lctui modules `module` imports, wherever in the file the import stands."""
    path = modules[module]
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node, type_only in _import_nodes(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = _absolute(module, is_package, node.level, node.module)
            # `from lctui.cli import run` names the submodule lctui.cli.run.
            targets = [f"{base}.{alias.name}" for alias in node.names]
        for target in targets:
            found = _nearest_module(target, modules)
            if found is not None and found != module:
                yield ImportEdge(module, found, node.lineno, type_only)


def import_graph(src: Path = SRC) -> dict[str, dict[str, ImportEdge]]:
    """For each module, the modules it imports, each with one import that does: the
    first one that runs (not under TYPE_CHECKING) if any, else the first type-only one."""
    modules = module_files(src)
    graph: dict[str, dict[str, ImportEdge]] = {name: {} for name in modules}
    for name in modules:
        for edge in imports_of(name, modules):
            known = graph[name].get(edge.target)
            if known is None or (edge.type_only, edge.line) < (known.type_only, known.line):
                graph[name][edge.target] = edge
    return graph


def strongly_connected(graph: Mapping[str, Mapping[str, object]]) -> list[list[str]]:
    """Tarjan's components with more than one module (self-imports are skipped above)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def shortest_cycle(graph: Mapping[str, Mapping[str, ImportEdge]], start: str) -> list[ImportEdge]:
    """The shortest chain of imports from `start` back to itself (breadth first)."""
    came_from: dict[str, ImportEdge] = {}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for target, edge in sorted(graph[node].items()):
                if target == start:
                    chain = [edge]
                    while chain[0].source != start:
                        chain.insert(0, came_from[chain[0].source])
                    return chain
                if target not in came_from:
                    came_from[target] = edge
                    following.append(target)
        frontier = following
    return []


def describe_cycles(graph: Mapping[str, Mapping[str, ImportEdge]]) -> list[str]:
    """One paragraph per cycle: its modules and one chain of imports through them."""
    lines: list[str] = []
    for component in strongly_connected(graph):
        lines.append(f"cycle of {len(component)} modules: {', '.join(component)}")
        for edge in shortest_cycle(graph, component[0]):
            how = "for types only, " if edge.type_only else ""
            lines.append(f"    {edge.source} imports {edge.target} ({how}line {edge.line})")
    return lines


def without_type_only_imports_of(
    graph: Mapping[str, Mapping[str, ImportEdge]], targets: Iterable[str]
) -> dict[str, dict[str, ImportEdge]]:
    allowed = set(targets)
    return {
        source: {
            target: edge
            for target, edge in edges.items()
            if not (edge.type_only and target in allowed)
        }
        for source, edges in graph.items()
    }


# Modules that others may import under TYPE_CHECKING though the importer is below them,
# and why. Nothing else is excused: a new cycle of any kind fails the test.
# (None now: the screens name `LctuiHost`, a protocol of what they use of the app, in
# tui/screens/base.py, no longer the app class that opens them.)
TYPE_ONLY_EXCUSED: dict[str, str] = {}


def test_the_graph_sees_imports_at_every_depth() -> None:
    graph = import_graph()
    assert not graph["lctui.cli.run"]["lctui.core.config"].type_only  # module level
    assert "lctui.cli.browse" in graph["lctui.cli"]  # inside build_parser
    assert "lctui.store" in graph["lctui.cli.stats"]  # inside cmd_stats
    assert graph["lctui.tui.app"]["lctui.tui.screens.base"].type_only


def test_a_cycle_is_found_and_named(tmp_path: Path) -> None:
    # Through a submodule named in `from package import`, a relative import inside a
    # function and a type-only import.
    package = tmp_path / PACKAGE
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("from lctui.sub import b\n")
    (package / "sub" / "b.py").write_text("def f():\n    from ..c import g\n")
    (package / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import lctui.a\n"
    )
    graph = import_graph(tmp_path)
    assert strongly_connected(graph) == [["lctui.a", "lctui.c", "lctui.sub.b"]]
    assert describe_cycles(graph) == [
        "cycle of 3 modules: lctui.a, lctui.c, lctui.sub.b",
        "    lctui.a imports lctui.sub.b (line 1)",
        "    lctui.sub.b imports lctui.c (line 2)",
        "    lctui.c imports lctui.a (for types only, line 3)",
    ]
    assert strongly_connected(without_type_only_imports_of(graph, ["lctui.a"])) == []


def test_no_import_cycles_between_lctui_modules() -> None:
    graph = without_type_only_imports_of(import_graph(), TYPE_ONLY_EXCUSED)
    cycles = describe_cycles(graph)
    assert not cycles, "import cycles (break each one; see this test's docstring):\n" + (
        "\n".join(cycles)
    )


def test_each_excuse_is_still_needed() -> None:
    # Once the cycle an excuse covers is gone, the excuse goes too, so it cannot hide a
    # new one.
    in_cycles = {module for component in strongly_connected(import_graph()) for module in component}
    unneeded = sorted(set(TYPE_ONLY_EXCUSED) - in_cycles)
    assert not unneeded, f"no cycle runs through {unneeded}: drop them from TYPE_ONLY_EXCUSED"
