"""Files from outside read as streams with bounded memory, their errors naming file and line.

Every dataset loader and every importer of a harness's results reads through here, and
treats each byte as hostile: a line of 100,000 `[`, a 1 GB file without a newline, a
cell that is not UTF-8 or a link to /etc/shadow must each end as one plain problem,
never as a RecursionError, gigabytes of memory or a secret quoted back.

- `json_lines`: a JSON-lines file one line at a time; a line that is too long (over
  MAX_LINE_BYTES), not UTF-8, holds too many values (MAX_VALUES), nests deeper than
  MAX_DEPTH or is not a JSON object comes back as why, and the next line is read.
- `JsonDocument`: a JSON document streamed by ijson, the items of its list one at a
  time, each bounded like a line (its bytes, its values, its depth); what cannot be
  read raises `FileProblem` with the line.
- `text_lines`: the lines of a UTF-8 text file (a CSV) with the same bounds.
- `files_within`, `within`: the files of a folder; links that lead out of it refused.
- `shown`: how a message quotes a value from a file (escaped, short, a container by
  its size only).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

import ijson

from lctui.core.json_bounds import MAX_DEPTH, TooDeep, loads
from lctui.core.text import escape_unprintable, shorten

MIB = 1024 * 1024
# A RULER prediction of a 1M-token prompt is about 5 MB and a LongBench v2 context at
# most about 20 MB: these bounds are far above any real line and keep a hostile one
# (with the objects it decodes to) within a few hundred MB.
MAX_LINE_BYTES = 64 * MIB
MAX_VALUE_BYTES = 64 * MIB  # one item of a JSON document, or one member of its object
MAX_VALUES = 4_000_000  # JSON values in one line or item (a list of 4M numbers)
# What ijson is handed at a time: at most one line, in pieces of up to 1 MiB. yajl scans
# a token again from its start with each piece that extends it: 64 KiB pieces took 37 s
# on a 64 MiB string, 1 MiB pieces take about one.
_PIECE = 1024 * 1024
_SCALARS = frozenset({"null", "boolean", "integer", "double", "number", "string"})


class FileProblem(ValueError):
    """Why a file (from its line `line` on) cannot be read; str() is `FILE:LINE: why`."""

    def __init__(self, path: Path, line: int, why: str) -> None:
        super().__init__(f"{escape_unprintable(str(path))}:{line}: {why}")
        self.path = path
        self.line = line
        self.why = why


def error_text(err: BaseException, width: int = 120) -> str:
    """What a reader's error says (Arrow's, DuckDB's), for a message: its first line,
    escaped and short (such messages may quote bytes of the file)."""
    first = str(err).strip().split("\n", 1)[0]
    return escape_unprintable(shorten(first, width)) or type(err).__name__


def shown(value: Any, width: int = 60) -> str:
    """`value` (from a file) as a message quotes it: a string escaped, cut to `width`
    and quoted; a number as written; a list or an object by its size, never its
    content."""
    if isinstance(value, str):
        return "'" + escape_unprintable(shorten(value, width)) + "'"
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int):
        # str() of an int over 4,300 digits raises; none is worth showing whole.
        return str(value) if value.bit_length() <= 128 else "a number of more than 38 digits"
    if isinstance(value, float):
        return shorten(repr(value), width)
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return f"an object of {len(value)} key(s)"
    return f"a {type(value).__name__}"


# -- JSON lines --------------------------------------------------------------------------


class JsonLine(NamedTuple):
    """One non-blank line of a JSON-lines file."""

    number: int
    offset: int  # of its first byte in the file, to read it again
    value: Mapping[str, Any] | str  # the object, or why there is none


def json_lines(path: Path) -> Iterator[JsonLine]:
    """Each non-blank line of a JSON-lines file, read one at a time (a harness's
    prediction files of 128K-token prompts run to gigabytes). OSError when the file
    cannot be opened or read."""
    with path.open("rb") as handle:
        for number, offset, raw in _lines(handle, MAX_LINE_BYTES):
            if raw is None:
                yield JsonLine(number, offset, f"longer than {MAX_LINE_BYTES // MIB} MiB")
            elif raw.strip():
                yield JsonLine(number, offset, json_object(raw, first=number == 1))


def json_object(raw: bytes, *, first: bool = False) -> Mapping[str, Any] | str:
    """The JSON object one line holds, or why it holds none (`first`: the file's first
    line, which may start with a byte order mark)."""
    try:
        text = raw.decode("utf-8-sig" if first else "utf-8")
    except UnicodeDecodeError as err:
        return f"not UTF-8 (byte {err.start + 1} of the line)"
    if raw.count(b",") + raw.count(b"[") + raw.count(b"{") >= MAX_VALUES:
        return f"more than {MAX_VALUES:,} values in one line"
    try:
        value = loads(text)
    except TooDeep:
        return f"nested deeper than {MAX_DEPTH} levels"
    except json.JSONDecodeError as err:
        return f"not valid JSON ({err.msg} at column {err.colno})"
    except ValueError:  # an integer of more than 4,300 digits
        return "not valid JSON (a number too long)"
    return value if isinstance(value, dict) else "not a JSON object"


def _lines(handle: BinaryIO, limit: int) -> Iterator[tuple[int, int, bytes | None]]:
    """(number, offset, bytes) of each line, or None for the bytes of a line longer
    than `limit` (skipped a piece at a time, never held whole)."""
    number = offset = 0
    while raw := handle.readline(limit + 1):
        number += 1
        start = offset
        offset += len(raw)
        if len(raw) <= limit or raw.endswith(b"\n"):
            yield number, start, raw
            continue
        while not raw.endswith(b"\n"):
            raw = handle.readline(_PIECE)
            if not raw:
                break
            offset += len(raw)
        yield number, start, None


def text_lines(handle: BinaryIO, path: Path, limit: int) -> Iterator[str]:
    """The lines of a UTF-8 text file, newlines kept (as csv.reader reads them);
    FileProblem for a line longer than `limit` bytes or not UTF-8."""
    for number, _, raw in _lines(handle, limit):
        if raw is None:
            raise FileProblem(path, number, f"a line longer than {limit:,} bytes")
        try:
            yield raw.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError as err:
            why = f"not UTF-8 (byte {err.start + 1} of the line)"
            raise FileProblem(path, number, why) from None


# -- JSON documents ----------------------------------------------------------------------


class _ValueTooLarge(Exception):
    """Raised by the feed inside ijson: one value grew past MAX_VALUE_BYTES."""


class _Feed:
    """The file as ijson reads it: at most one line per read, so that an error is on
    the line of the last piece read; more than MAX_VALUE_BYTES since `since` stops it."""

    def __init__(self, handle: BinaryIO) -> None:
        self._handle = handle
        self._next = 1
        self.line = 1
        self.served = 0
        self.since = 0

    def read(self, size: int) -> bytes:
        if size == 0:  # ijson asks for nothing to learn whether the file is binary
            return b""
        if self.served - self.since > MAX_VALUE_BYTES:
            raise _ValueTooLarge
        piece = self._handle.readline(min(size, _PIECE))
        if piece:
            self.line = self._next
            self._next += piece.endswith(b"\n")
            self.served += len(piece)
        return piece


Event = tuple[str, Any]


class JsonDocument:
    """One JSON document read as a stream: iterating gives the items of its list one at
    a time, `(number from 1, item)`, where the list is the document itself or the
    member `list_key` of its object; the object's other members come as
    `(key, value)`. Each item and member is bounded like a line of `json_lines`.
    `listed` says, once iterated, whether the list was there, `top` what the document
    is ("list" or "object", once its start is read). FileProblem (with the
    line) when the file is not JSON, neither a list nor an object, or a value is too
    large or too deep; the parts before it have been given. OSError when it cannot
    be read."""

    def __init__(self, path: Path, list_key: str | None = "data") -> None:
        self.path = path
        self.list_key = list_key
        self.listed = False
        self.top: str | None = None

    def __iter__(self) -> Iterator[tuple[str | int, Any]]:
        with self.path.open("rb") as handle:
            feed = _Feed(handle)
            try:
                events = ijson.basic_parse(feed, use_float=True, buf_size=_PIECE)
                yield from self._parts(feed, iter(events))
            except _ValueTooLarge:
                why = f"a value larger than {MAX_VALUE_BYTES // MIB} MiB"
                raise FileProblem(self.path, feed.line, why) from None
            except (ijson.JSONError, UnicodeDecodeError) as err:
                why = f"not valid JSON ({_reason(err)})"
                raise FileProblem(self.path, feed.line, why) from None

    def _parts(self, feed: _Feed, events: Iterator[Event]) -> Iterator[tuple[str | int, Any]]:
        event, _ = self._next(feed, events)
        if event == "start_array":
            self.top = "list"
            yield from self._items(feed, events)
        elif event == "start_map":
            self.top = "object"
            for event, key in events:
                if event == "end_map":
                    break
                feed.since = feed.served
                event, value = self._next(feed, events)
                if key == self.list_key and event == "start_array":
                    yield from self._items(feed, events)
                else:
                    yield str(key), self._value(feed, event, value, events)
                feed.since = feed.served
        else:
            raise FileProblem(self.path, feed.line, "neither a list nor an object")
        for _ in events:  # ijson's check of what follows the document
            pass

    def _next(self, feed: _Feed, events: Iterator[Event]) -> Event:
        # ijson raises at a premature end; a StopIteration here would end the caller's
        # generator silently (or as a RuntimeError).
        found = next(events, None)
        if found is None:
            raise FileProblem(self.path, feed.line, "not valid JSON (it ends too soon)")
        return found

    def _items(self, feed: _Feed, events: Iterator[Event]) -> Iterator[tuple[int, Any]]:
        self.listed = True
        # Each turn takes one item: `_value` reads the events inside it.
        for number, (event, value) in enumerate(events, start=1):
            if event == "end_array":
                return
            feed.since = feed.served
            yield number, self._value(feed, event, value, events)

    def _value(self, feed: _Feed, event: str, value: Any, events: Iterator[Event]) -> Any:
        """The value that starts with `event`, built from the events that follow it."""
        if event in _SCALARS:
            return value
        root: Any = {} if event == "start_map" else []
        stack: list[Any] = [root]
        keys: list[str] = [""]
        count = 1
        for event, value in events:
            count += 1
            if count > MAX_VALUES:
                raise FileProblem(self.path, feed.line, f"more than {MAX_VALUES:,} values")
            if event == "map_key":
                keys[-1] = value
                continue
            if event in ("end_map", "end_array"):
                stack.pop()
                keys.pop()
                if not stack:
                    return root
                continue
            if event in ("start_map", "start_array"):
                if len(stack) >= MAX_DEPTH:
                    why = f"nested deeper than {MAX_DEPTH} levels"
                    raise FileProblem(self.path, feed.line, why)
                value = {} if event == "start_map" else []
            top = stack[-1]
            if isinstance(top, list):
                top.append(value)
            else:
                top[keys[-1]] = value
            if event in ("start_map", "start_array"):
                stack.append(value)
                keys.append("")
        return root  # not reached: ijson raises at a premature end


def _reason(err: Exception) -> str:
    """The first line of ijson's message (yajl's own words), without the excerpt of the
    file it appends."""
    text = str(err)
    if text[:2] in ("b'", 'b"'):  # some messages come as the repr of bytes
        text = text[2:]
    first = text.replace("\\n", "\n").split("\n", 1)[0].strip()
    return escape_unprintable(shorten(first, 80)) or type(err).__name__


# -- folders -----------------------------------------------------------------------------


def within(root: Path, path: Path) -> bool:
    """Whether `path`, its links followed, lies in the folder `root` (resolved)."""
    try:
        return path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):  # a loop of links
        return False


def files_within(
    root: Path, suffixes: tuple[str, ...], *, recursive: bool = True
) -> tuple[list[Path], list[str]]:
    """The regular files under `root` whose names end in one of `suffixes`, in path
    order, and one problem line for each link among them that leads out of `root`
    (refused: never read). Linked folders are not entered."""
    root = root.resolve()
    found: list[Path] = []
    refused: list[str] = []
    for folder, dirs, names in os.walk(root):
        if not recursive:
            dirs.clear()
        for name in names:
            if not name.endswith(suffixes):
                continue
            path = Path(folder, name)
            if not within(root, path):
                refused.append(
                    f"{escape_unprintable(str(path))}: a link to outside "
                    f"{escape_unprintable(str(root))}; not read"
                )
            elif path.is_file():
                found.append(path)
    return sorted(found), sorted(refused)
