"""Malformed files, made from the harnesses' own files and the data folder's, for the
importers' and `lctui data check`'s fuzz test (tests/analysis/test_import_fuzz.py) and
bench/fuzz_importers.py.

A case takes the real files and breaks one to three of them the way an unlucky user or
an attacker would: a value of a field replaced by one of another type or range (huge
and negative numbers, NaN, nesting 60 deep, 100 KB strings, control characters), a
key dropped, a hostile line inserted (100,000 `[`, bytes that are not UTF-8, NULs,
a number of 5,000 digits), bytes flipped, the file cut short, emptied, replaced by a
link to a file outside the folder (whose content must never be quoted) or by a
folder. CSV cells get the same values, over-long fields and broken quoting; Parquet
files are cut or rewritten with columns of other types. Seeded: a case is made again
from its number.
"""

from __future__ import annotations

import csv
import io
import json
import random
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# What a link to /etc/shadow would show: never to be quoted by any message. (The values
# put into fields below are fair to quote, escaped: they are the offending values.)
SHADOW = "root:$6$fuzzsecret$Q2x:20228:0:99999:7:::"
SHADOW_MARK = "fuzzsecret"
_DEEP = "[" * 100_000


def _nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


HOSTILE_VALUES: tuple[Any, ...] = (
    None, True, False, 0, -1, -(2**63), 2**63, 99999999999999999999, 10**300, 1e308,
    -1e308, float("nan"), float("inf"), float("-inf"), 0.5, -0.5, 1.5, 3.7, "", " ",
    "x" * 100_000, "\x1b[31mred\x1b[0m\x07", "\u202eevil", "\x00", "root:*:0:", "1e999",
    "99999999999999999999", "-5", "NaN", "\ud800", "A", "easy", "short", [], {}, [1, 2],
    ["a"], [[["x"]]], {"a": 1}, {"x": {"y": [None]}}, _nested(60), [0] * 10_000,
    ["", ""], [None], {"1": "x", "2": 3}, {"fluency": 9, "correctness": -2, "f1": 4},
)  # fmt: skip
HOSTILE_LINES: tuple[bytes, ...] = (
    _DEEP.encode(), b'{"a":' * 50_000, b"\xff\xfe\xfd", b"\x00" * 64, b"9" * 5000,
    b'"just a string"', b"[]", b"null", b'{"pred": 5, "outputs": "x"}',
    b'{"' + b"k" * 200_000 + b'": 1}', b"{" + b'"a": 1, ' * 1000, b"\xef\xbb\xbf{}",
    b'{"input": "' + b"\\ud800" * 10 + b'"}', b'{"length": 99999999999999999999}',
    b'{"response": "A", "pred": "A", "answer": "Z", "_id": []}',
)  # fmt: skip
_PARQUET_METADATA: tuple[bytes, ...] = (
    b"[" * 5000, b"\xff\xfe", b'{"info": []}', b'{"info": {"features": {"label": [1, 2]}}}',
    b'{"info": {"features": {"label": {"names": [1, "a"]}}}}', b'{"info": {"features": 5}}',
    b'{"info": {"features": {"coarse_label": {"names": ["' + b"x" * 100_000 + b'"]}}}}',
)  # fmt: skip
HOSTILE_CELLS: tuple[str, ...] = (
    "", "-1", "99999999999999999999", "nan", "inf", "-inf", "1e999", "0x10", "1_000",
    "\u0663", "x" * 200_000, "\x1b[2J", "a\nb", '"', "\x00", "2.5", "-0.0", "root:*:0:",
)  # fmt: skip


@dataclass
class Case:
    """One broken copy of a folder: what was done to which files."""

    number: int
    changes: list[str] = field(default_factory=list)
    paths: list[Path] = field(default_factory=list)  # the files broken

    def __str__(self) -> str:
        return f"case {self.number}: " + "; ".join(self.changes)


class Breaker:
    """Breaks files in place, seeded per case; `restore` puts the originals back."""

    def __init__(self, root: Path, outside: Path) -> None:
        self.root = root
        self.outside = outside  # a folder beside root: what a link may lead to
        self.outside.mkdir(parents=True, exist_ok=True)
        (self.outside / "shadow").write_text(SHADOW + "\n", encoding="utf-8")
        self._saved: dict[Path, bytes] = {}

    def files(self) -> list[Path]:
        return sorted(p for p in self.root.rglob("*") if p.is_file() and not p.is_symlink())

    def case(self, number: int, seed: int, targets: list[Path]) -> Case:
        rng = random.Random(f"{seed}-{number}")
        case = Case(number)
        for path in rng.sample(targets, k=min(len(targets), rng.choice((1, 1, 1, 2, 3)))):
            self._save(path)
            case.paths.append(path)
            case.changes.append(f"{path.relative_to(self.root)}: {self._break(rng, path)}")
        return case

    def restore(self) -> None:
        for path, data in self._saved.items():
            if path.is_symlink() or path.is_file():
                path.unlink()
            elif path.is_dir():
                shutil.rmtree(path)
            path.write_bytes(data)
        self._saved.clear()

    def _save(self, path: Path) -> None:
        if path not in self._saved:
            self._saved[path] = path.read_bytes()

    def _break(self, rng: random.Random, path: Path) -> str:
        kind = rng.random()
        if kind < 0.04:
            path.unlink()
            path.symlink_to(self.outside / "shadow")
            return "a link to a file outside"
        if kind < 0.06:
            path.unlink()
            path.mkdir()
            return "a folder"
        if kind < 0.09:
            path.write_bytes(b"")
            return "emptied"
        data = path.read_bytes()
        suffix = path.suffix.lower()
        if kind < 0.22:
            cut = rng.randrange(len(data) + 1)
            path.write_bytes(data[:cut])
            return f"cut at byte {cut}"
        if kind < 0.35:
            path.write_bytes(_flip(rng, data))
            return "bytes flipped"
        if suffix == ".parquet":
            return _break_parquet(rng, path, data)
        if suffix == ".csv":
            return _break_csv(rng, path, data)
        if suffix == ".jsonl":
            return _break_lines(rng, path, data)
        return _break_document(rng, path, data)


def _flip(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if not out:
            break
        at = rng.randrange(len(out))
        choice = rng.random()
        if choice < 0.5:
            out[at] = rng.randrange(256)
        elif choice < 0.75:
            out[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 4)))
        else:
            del out[at : at + rng.randint(1, 16)]
    return bytes(out)


def _hostile(rng: random.Random) -> Any:
    return rng.choice(HOSTILE_VALUES)


def _dump(value: Any) -> bytes:
    # ensure_ascii keeps lone surrogates writable (as \\ud800); NaN and Infinity are
    # written as Python writes them, as a careless harness would.
    return json.dumps(value).encode("utf-8")


def _paths(value: Any, prefix: tuple[Any, ...] = (), depth: int = 0) -> list[tuple[Any, ...]]:
    """Every place in a decoded value (keys and indexes), shallow ones first."""
    found = [prefix]
    if depth > 6:
        return found
    if isinstance(value, dict):
        for key, inner in list(value.items())[:40]:
            found += _paths(inner, (*prefix, key), depth + 1)
    elif isinstance(value, list):
        for index, inner in list(enumerate(value))[:40]:
            found += _paths(inner, (*prefix, index), depth + 1)
    return found


def _change_value(rng: random.Random, value: Any) -> tuple[Any, str]:
    """`value` with one place replaced, dropped or renamed; what was done."""
    places = [p for p in _paths(value) if p]
    if not places:
        return _hostile(rng), "replaced whole"
    # A depth first, then a place at it: the few top-level fields (a harness's args,
    # its means) are as likely to break as the many fields of its rows.
    depth = rng.choice(sorted({len(p) for p in places}))
    place = rng.choice([p for p in places if len(p) == depth])
    parent = value
    for step in place[:-1]:
        parent = parent[step]
    last = place[-1]
    action = rng.random()
    if action < 0.15 and isinstance(parent, dict):
        del parent[last]
        return value, f"dropped {_where(place)}"
    if action < 0.2 and isinstance(parent, dict):
        parent["\x1b" + str(last)] = parent.pop(last)
        return value, f"renamed {_where(place)}"
    new = _hostile(rng)
    parent[last] = new
    return value, f"{_where(place)} = {_brief(new)}"


def _where(place: tuple[Any, ...]) -> str:
    return ".".join(str(step) for step in place)[:80]


def _brief(value: Any) -> str:
    text = repr(value) if not isinstance(value, (list, dict)) else type(value).__name__
    return text[:40]


def _break_lines(rng: random.Random, path: Path, data: bytes) -> str:
    lines = data.split(b"\n")
    at = rng.randrange(len(lines))
    if rng.random() < 0.4 or not lines[at].strip():
        line = rng.choice(HOSTILE_LINES)
        lines.insert(at, line)
        path.write_bytes(b"\n".join(lines))
        return f"line {at + 1} inserted: {line[:30]!r}"
    try:
        value = json.loads(lines[at])
    except ValueError:
        return "nothing (an unreadable line stays)"
    value, what = _change_value(rng, value)
    lines[at] = _dump(value)
    path.write_bytes(b"\n".join(lines))
    return f"line {at + 1}: {what}"


def _break_document(rng: random.Random, path: Path, data: bytes) -> str:
    try:
        value = json.loads(data)
    except ValueError:
        path.write_bytes(data + rng.choice(HOSTILE_LINES))
        return "hostile bytes appended"
    if rng.random() < 0.1:
        path.write_bytes(rng.choice(HOSTILE_LINES))
        return "replaced by a hostile line"
    value, what = _change_value(rng, value)
    path.write_bytes(_dump(value) if rng.random() < 0.5 else json.dumps(value, indent=4).encode())
    return what


def _break_csv(rng: random.Random, path: Path, data: bytes) -> str:
    try:
        rows = list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))
    except (UnicodeDecodeError, csv.Error):
        return "nothing (an unreadable file stays)"
    if not rows:
        return "nothing (empty)"
    choice = rng.random()
    if choice < 0.1:
        row = rng.choice(rows)
        if row:
            row.pop(rng.randrange(len(row)))
        what = "a cell dropped"
    elif choice < 0.2:
        raw = (
            data
            + b"\n"
            + rng.choice((b"\xff\xfe,1,2", b'"unclosed,1', b"a,b\x00c", b"x" * 300_000))
        )
        path.write_bytes(raw)
        return "a hostile row appended"
    else:
        row = rng.choice(rows)
        if not row:
            return "nothing (blank row)"
        at = rng.randrange(len(row))
        row[at] = rng.choice(HOSTILE_CELLS)
        what = f"cell {at} of a row = {row[at][:20]!r}"
    out = io.StringIO(newline="")
    csv.writer(out).writerows(rows)
    path.write_bytes(out.getvalue().encode("utf-8", "surrogatepass"))
    return what


def _break_parquet(rng: random.Random, path: Path, data: bytes) -> str:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(io.BytesIO(data))
    if table.num_columns == 0:
        return "nothing (no column)"
    at = rng.randrange(table.num_columns)
    name = table.column_names[at]
    kind = rng.choice(("int", "nested", "null", "drop", "metadata"))
    n = table.num_rows
    if kind == "metadata":  # what `datasets` writes there: the features, as JSON
        said = rng.choice(_PARQUET_METADATA)
        table = table.replace_schema_metadata({b"huggingface": said})
        pq.write_table(table, path)
        return f"metadata = {said[:30]!r}"
    if kind == "drop":
        table = table.remove_column(at)
    else:
        column: pa.Array
        if kind == "int":
            column = pa.array([rng.choice((-1, 2**62, 0)) for _ in range(n)], pa.int64())
        elif kind == "nested":
            column = pa.array([[[{"x": "\x1b"}]] for _ in range(n)])
        else:
            column = pa.nulls(n, pa.string())
        table = table.set_column(at, name, column)
    pq.write_table(table, path)
    return f"column {name!r}: {kind}"
