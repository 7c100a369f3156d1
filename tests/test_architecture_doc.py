"""docs/ARCHITECTURE.md names only things that exist, so it cannot silently rot.

What the document may name, and what is checked (all without importing lctui):

- a path: every `src/lctui/...` anywhere, and every backticked token with a slash or
  ending in `.py`, relative to the repository root or to src/lctui/ (globs must match);
- a dotted name: `lctui.store.db.open_store`: the module, then each name in it (a
  top-level definition or import, then members of a class);
- `Class.member`: a class defined in src/lctui with that member;
- a bare identifier: a CamelCase one must be defined in src/lctui; any other must
  occur as a word in src/, tests/, scripts/ or pyproject.toml (columns, views,
  settings, functions);
- `name` (`path.py`): the name occurs as a word in that file (a definition, a setting
  or an environment variable it reads);
- a table row naming exactly one module or package: each identifier in it is defined
  in that module (or package).
"""

from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "lctui"
DOC = ROOT / "docs" / "ARCHITECTURE.md"

_SRC_PATH = re.compile(r"src/lctui/[\w./*-]*")
_BACKTICKED = re.compile(r"`([^`\n]+)`")
_PATH_LIKE = re.compile(r"^[\w./*-]+$")
_DOTTED = re.compile(r"^lctui(\.[A-Za-z_]\w*)+$")
_MEMBER = re.compile(r"^([A-Z]\w*)\.([A-Za-z_]\w*)$")
_IDENTIFIER = re.compile(r"^[A-Za-z_]\w*$")
_CAMEL = re.compile(r"^_?[A-Z]\w*[a-z]\w*$")
_NAME_IN = re.compile(r"`([A-Za-z_]\w*)` \(`([\w/]+\.py)`\)")
_CALL = re.compile(r"^([\w.]+)\(.*\)$")
_FILE_SUFFIXES = (".toml", ".py", ".md", ".json", ".jsonl", ".duckdb", ".writer")


@dataclass(frozen=True)
class Definitions:
    """What one module defines: top-level names (with imports) and class members."""

    names: frozenset[str]
    members: dict[str, frozenset[str]]  # every class in the module, nested ones too


def _body_names(body: list[ast.stmt]) -> set[str]:
    names: set[str] = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.If, ast.Try)):
            names.update(_body_names(node.body))
    return names


@cache
def definitions(module: Path) -> Definitions:
    tree = ast.parse(module.read_text(encoding="utf-8"))
    members = {
        node.name: frozenset(_body_names(node.body))
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
    }
    return Definitions(frozenset(_body_names(tree.body)), members)


@cache
def _modules() -> tuple[Path, ...]:
    return tuple(sorted(SRC.rglob("*.py")))


@cache
def _words() -> frozenset[str]:
    # Not this file: the made-up names of its own tests would count as existing.
    files = [p for folder in ("src", "tests", "scripts") for p in (ROOT / folder).rglob("*.py")]
    texts = [p.read_text(encoding="utf-8") for p in files if p != Path(__file__).resolve()]
    texts.append((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return frozenset(re.findall(r"\w+", "\n".join(texts)))


def _defined_anywhere(name: str) -> bool:
    return any(name in d.names or name in d.members for d in (definitions(m) for m in _modules()))


def _member_defined(cls: str, member: str) -> bool:
    return any(member in definitions(m).members.get(cls, ()) for m in _modules())


def _resolve_path(token: str) -> Path | None:
    """The existing file or folder `token` names (from the root or from src/lctui)."""
    for base in (ROOT, SRC):
        if "*" in token:
            found = sorted(base.glob(token))
            if found:
                return found[0]
        elif (base / token).exists():
            return base / token
    return None


def _resolve_dotted(token: str) -> str | None:
    """None when `lctui.a.b.name...` exists; else what is missing."""
    parts = token.split(".")
    for cut in range(len(parts), 0, -1):
        base = ROOT / "src" / Path(*parts[:cut])
        module = base.with_suffix(".py") if base.with_suffix(".py").is_file() else None
        if module is None and (base / "__init__.py").is_file():
            module = base / "__init__.py"
        if module is not None:
            break
    else:
        return f"no module for {token}"
    rest = parts[cut:]
    if not rest:
        return None
    found = definitions(module)
    if rest[0] not in found.names:
        return f"{rest[0]} is not defined in {module.relative_to(ROOT)}"
    for owner, member in itertools.pairwise(rest):
        if member not in found.members.get(owner, ()):
            return f"{owner}.{member} is not defined in {module.relative_to(ROOT)}"
    return None


def _defined_in(name: str, place: Path) -> bool:
    modules = sorted(place.rglob("*.py")) if place.is_dir() else [place]
    if place.is_dir() and any(m.stem == name for m in modules):
        return True  # a module of the package
    return any(name in definitions(m).names or name in definitions(m).members for m in modules)


def _token_problems(token: str) -> Iterator[str]:
    if call := _CALL.match(token):
        token = call[1]  # `Task.generate(length, ...)` names Task.generate
    if _DOTTED.match(token) and not token.endswith(_FILE_SUFFIXES):
        missing = _resolve_dotted(token)
        if missing:
            yield f"`{token}`: {missing}"
    elif _PATH_LIKE.match(token) and ("/" in token or token.endswith(".py")):
        if _resolve_path(token) is None:
            yield f"`{token}`: no such file or folder (from the root or src/lctui/)"
    elif match := _MEMBER.match(token):
        if not _member_defined(*match.groups()):
            yield f"`{token}`: no class {match[1]} with {match[2]} in src/lctui"
    elif _IDENTIFIER.match(token):
        if _CAMEL.match(token):
            if not _defined_anywhere(token):
                yield f"`{token}`: not defined in src/lctui"
        elif token not in _words():
            yield f"`{token}`: occurs nowhere in src/, tests/, scripts/ or pyproject.toml"


def _row_problems(line: str) -> Iterator[str]:
    """A table row naming one module or package: its identifiers are defined there."""
    tokens = _BACKTICKED.findall(line)
    places = [t for t in tokens if _PATH_LIKE.match(t) and ("/" in t or t.endswith(".py"))]
    if len(places) != 1:
        return
    place = _resolve_path(places[0])
    if place is None:
        return  # reported as a missing path already
    for token in tokens:
        if _IDENTIFIER.match(token) and not _defined_in(token, place):
            yield f"`{token}` is not defined in `{places[0]}` (table row)"


def problems(text: str) -> list[str]:
    """Everything `text` (markdown) names that does not exist, one line each."""
    found: list[str] = []
    for path in _SRC_PATH.findall(text):
        path = path.rstrip(".,")
        if _resolve_path(path) is None:
            found.append(f"{path}: no such file or folder")
    for token in _BACKTICKED.findall(text):
        found.extend(_token_problems(token))
    for name, module in _NAME_IN.findall(text):
        place = _resolve_path(module)
        words = re.findall(r"\w+", place.read_text(encoding="utf-8")) if place else [name]
        if name not in words:
            found.append(f"`{name}` does not occur in `{module}`")
    for line in text.splitlines():
        if line.startswith("|"):
            found.extend(_row_problems(line))
    return sorted(set(found))


def test_architecture_doc_names_only_what_exists() -> None:
    assert problems(DOC.read_text(encoding="utf-8")) == []


def test_architecture_doc_is_linked_from_the_readme() -> None:
    assert "docs/ARCHITECTURE.md" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_a_made_up_path_is_caught() -> None:
    assert problems("see src/lctui/store/nowhere.py.") == [
        "src/lctui/store/nowhere.py: no such file or folder"
    ]
    assert problems("see `store/nowhere.py` and `store/db.py`") == [
        "`store/nowhere.py`: no such file or folder (from the root or src/lctui/)"
    ]


def test_made_up_names_are_caught() -> None:
    assert problems("`lctui.store.db.open_store` and `lctui.store.db.Store.cursor`") == []
    assert problems("`lctui.store.db.open_nothing`") == [
        "`lctui.store.db.open_nothing`: open_nothing is not defined in src/lctui/store/db.py"
    ]
    assert problems("`Store.teleport`") == [
        "`Store.teleport`: no class Store with teleport in src/lctui"
    ]
    assert problems("`Task.generate(length, seed)`") == []
    assert problems("`Task.regenerate(length, seed)`") == [
        "`Task.regenerate`: no class Task with regenerate in src/lctui"
    ]
    assert problems("`NoSuchScreen`") == ["`NoSuchScreen`: not defined in src/lctui"]
    assert problems("`no_such_column_anywhere`") == [
        "`no_such_column_anywhere`: occurs nowhere in src/, tests/, scripts/ or pyproject.toml"
    ]
    assert problems("`open_store` (`store/schema.py`)") == [
        "`open_store` does not occur in `store/schema.py`"
    ]
    assert problems("| store | `store/schema.py` | `migrate`, `open_store` |") == [
        "`open_store` is not defined in `store/schema.py` (table row)"
    ]


_DOC_CITATION = re.compile(r"\b((?:[\w.-]+/)*[A-Z][A-Z_]+\.md)\b")  # ARCHITECTURE.md, docs/X.md


def test_code_cites_only_documents_in_the_repository() -> None:
    """A docstring or comment that sends a reader to a markdown document names a file that exists (a
    first design kept outside the repository is no reference)."""
    missing = []
    files = [*SRC.rglob("*.py"), *(ROOT / "tests").rglob("*.py"), ROOT / "pyproject.toml"]
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for cited in _DOC_CITATION.findall(line):
                name = cited.rsplit("/", 1)[-1]
                candidates = [ROOT / cited, ROOT / "docs" / name, ROOT / name]
                if not any(c.is_file() for c in candidates):
                    missing.append(f"{path.relative_to(ROOT)}:{number}: {cited}")
    assert missing == []
