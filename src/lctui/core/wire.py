"""Engine events as JSON lines, for a run's viewers in other processes (engine/publish.py).

Every event of core/events.py has a line form; `decode_event(encode_event(e))` gives an
equal event except for examples, which travel slim: a 128K-token prompt must not go to
every viewer for every example. A slim example keeps what a live view shows (task,
length, index, seed, tokenizer, prompt tokens, depth, the question cut to
`QUESTION_CHARS`, the gold answers cut to `GOLD_CHARS` each, scalar metadata) and
drops the preamble, the context and the spans.

Besides events, a viewer reads a `Hello` first (the run's record and progress), a
`ReplayDone` once the state before it connected has been replayed, and `Dropped` when
the run lets it go (it read too slowly); a connection the run does not serve (it has
as many viewers as it serves) reads only `Refused`. Viewers write control lines
(`encode_control`): pause, resume, cancel, each at most `CONTROL_BYTES` long; nothing a
viewer writes makes `decode_control` raise anything but WireError.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, NoReturn

from lctui.core.events import (
    CellKey,
    CellTally,
    ChunkReceived,
    EarlierResults,
    Event,
    ExampleFailed,
    ExampleScored,
    ExampleStarted,
    GenerationFinished,
    ItemsSkipped,
    RunFinished,
    RunPaused,
    RunPlanned,
    ServersReported,
    StoreRecovered,
    StoreStalled,
)
from lctui.core.run_record import LiveProgress, RunRecord
from lctui.core.text import shorten
from lctui.core.types import (
    CallRecord,
    Example,
    Generation,
    GenerationStatus,
    RubricPoint,
    Score,
    ScoreStatus,
    ServerShare,
)

WIRE_VERSION = 1
QUESTION_CHARS = 400
GOLD_CHARS = 400
GOLD_ITEMS = 32
METADATA_CHARS = 200
CONTROL_OPS = ("pause", "resume", "cancel")
# The longest control line a run reads: `{"op": "resume"}` takes 17 bytes. A bound on
# its size is a bound on its nesting, so its parse costs next to nothing.
CONTROL_BYTES = 256
# A line is UTF-8, but a lone surrogate (text a server split between chunks) must pass
# too: both ends use this error handler.
_ERRORS = "surrogatepass"


class WireError(ValueError):
    """A line that is not one of the wire's messages."""


@dataclass(frozen=True)
class Hello:
    """The first line a viewer reads: the run's record and how far it is."""

    record: RunRecord
    progress: LiveProgress
    version: int = WIRE_VERSION


@dataclass(frozen=True)
class ReplayDone:
    """The replay of what happened before the viewer connected is over; live events follow."""


@dataclass(frozen=True)
class Dropped:
    """The run closes this viewer's connection (it fell too far behind); reconnecting
    gives a fresh replay."""

    reason: str


@dataclass(frozen=True)
class Refused:
    """The run does not serve this connection (it serves as many viewers as it will);
    `reason` says so in words a viewer prints."""

    reason: str


Message = Event | Hello | ReplayDone | Dropped | Refused


# -- encoding ----------------------------------------------------------------------------


def encode_event(event: Event) -> bytes:
    """One JSON line (with its newline) for `event`."""
    if isinstance(event, ChunkReceived):  # the hot path: thousands a second
        return _line({"t": "ChunkReceived", **_chunk_fields(event)})
    return _line({"t": type(event).__name__, **_event_fields(event)})


def _chunk_fields(event: ChunkReceived) -> dict[str, Any]:
    data: dict[str, Any] = {
        "cell": _cell(event.cell),
        "generation_id": event.generation_id,
        "text": event.text,
        "tokens": event.tokens,
    }
    if event.restart:
        data["restart"] = True
    return data


def encode_hello(hello: Hello) -> bytes:
    return _line(
        {
            "t": "hello",
            "version": hello.version,
            "record": hello.record.as_dict(),
            "progress": hello.progress.as_dict(),
        }
    )


def encode_replay_done() -> bytes:
    return _line({"t": "live"})


def encode_dropped(reason: str) -> bytes:
    return _line({"t": "dropped", "reason": reason})


def encode_refused(reason: str) -> bytes:
    return _line({"t": "refused", "reason": reason})


def encode_control(op: str) -> bytes:
    if op not in CONTROL_OPS:
        raise ValueError(f"unknown control {op!r}: one of {', '.join(CONTROL_OPS)}")
    return _line({"op": op})


def decode_control(line: bytes) -> str:
    """The op of a viewer's control line; WireError for anything else, whatever the
    line (too long, too deep, not UTF-8, not JSON)."""
    if len(line) > CONTROL_BYTES:
        raise WireError(f"a control line is at most {CONTROL_BYTES} bytes, not {len(line):,}")
    data = _object(line)
    op = data.get("op")
    if op not in CONTROL_OPS:
        raise WireError(f"unknown control {op!r}: one of {', '.join(CONTROL_OPS)}")
    return str(op)


def _line(data: dict[str, Any]) -> bytes:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=_plain)
    return text.encode("utf-8", _ERRORS) + b"\n"


def _plain(value: Any) -> Any:
    """JSON for what json does not know: mappings, tuples inside extras, enums, else text."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, set | frozenset):
        return sorted(value, key=str)
    return str(value)


def _cell(cell: CellKey) -> list[Any]:
    return [cell.model, cell.task, cell.length]


def _counts(cells: Mapping[CellKey, int]) -> list[list[Any]]:
    return [[*_cell(k), n] for k, n in cells.items()]


def _event_fields(event: Event) -> dict[str, Any]:
    """An event's line form; mypy checks that every event type has one."""
    match event:
        case RunPlanned():
            return {
                "run_id": event.run_id,
                "cells": _counts(event.cells),
                "skipped": _counts(event.skipped),
            }
        case ItemsSkipped():
            return {"skipped": _counts(event.skipped)}
        case ExampleStarted():
            return {
                "cell": _cell(event.cell),
                "generation_id": event.generation_id,
                "example": _slim_example_fields(event.example),
            }
        case ChunkReceived():  # encode_event writes it itself: the hot path
            return _chunk_fields(event)
        case GenerationFinished():
            return {"cell": _cell(event.cell), "generation": _generation(event.generation)}
        case ExampleScored():
            return {
                "cell": _cell(event.cell),
                "generation": _generation(event.generation),
                "score": _score(event.score),
            }
        case ExampleFailed():
            return {
                "cell": _cell(event.cell),
                "generation": _generation(event.generation),
                "message": event.message,
            }
        case EarlierResults():
            return {
                "cells": [[*_cell(k), asdict(t)] for k, t in event.cells.items()],
                "last_error": event.last_error,
            }
        case ServersReported():
            return {"model": event.model, "servers": [s.as_dict() for s in event.servers]}
        case StoreStalled() | StoreRecovered() | RunPaused() | RunFinished():
            return asdict(event)
        case _:
            return _no_wire_form(event)


def _no_wire_form(event: NoReturn) -> NoReturn:
    raise TypeError(f"no wire form for {type(event).__name__}")


def slim_example(example: Example) -> Example:
    """`example` as viewers get it: what a live view shows, without the long texts."""
    return replace(
        example,
        preamble="",
        context="",
        question=shorten(example.question, QUESTION_CHARS),
        gold=tuple(shorten(g, GOLD_CHARS) for g in example.gold[:GOLD_ITEMS]),
        spans=(),
        metadata={k: v for k, v in example.metadata.items() if _small(v)},
    )


def _small(value: Any) -> bool:
    if isinstance(value, str):
        return len(value) <= METADATA_CHARS
    return value is None or isinstance(value, bool | int | float)


def _slim_example_fields(example: Example) -> dict[str, Any]:
    slim = slim_example(example)
    data = {f.name: getattr(slim, f.name) for f in fields(Example)}
    for dropped in ("preamble", "context", "spans"):
        del data[dropped]
    data["params"] = dict(slim.params)
    data["metadata"] = dict(slim.metadata)
    data["gold"] = list(slim.gold)
    return data


def _generation(generation: Generation) -> dict[str, Any]:
    data = {f.name: getattr(generation, f.name) for f in fields(Generation)}
    data["status"] = generation.status.value
    data["calls"] = [c.as_dict() for c in generation.calls]
    return data


def _score(score: Score) -> dict[str, Any]:
    data = {f.name: getattr(score, f.name) for f in fields(Score)}
    data["status"] = score.status.value
    data["extracted"] = list(score.extracted)
    data["points"] = [asdict(p) for p in score.points]
    data["extras"] = dict(score.extras)
    return data


# -- decoding ----------------------------------------------------------------------------


def decode_event(line: bytes) -> Event:
    """The event of one line; WireError if the line holds anything else."""
    message = decode_message(line)
    if isinstance(message, Hello | ReplayDone | Dropped | Refused):
        raise WireError(f"expected an event, got {type(message).__name__}")
    return message


def decode_message(line: bytes) -> Message:
    """The message of one line a run sends its viewers; WireError when it is malformed."""
    data = _object(line)
    kind = data.get("t")
    try:
        if kind == "ChunkReceived":
            return ChunkReceived(
                _cell_of(data["cell"]),
                _str(data["generation_id"]),
                _str(data["text"]),
                _int(data["tokens"]),
                bool(data.get("restart", False)),
            )
        if kind == "hello":
            return Hello(
                RunRecord.from_dict(data["record"]),
                LiveProgress.from_dict(data["progress"]),
                _int(data["version"]),
            )
        if kind == "live":
            return ReplayDone()
        if kind == "dropped":
            return Dropped(_str(data["reason"]))
        if kind == "refused":
            return Refused(_str(data["reason"]))
        decode = DECODERS.get(str(kind))
        if decode is None:
            raise WireError(f"unknown message type {kind!r}")
        return decode(data)
    except (KeyError, TypeError, ValueError) as err:
        if isinstance(err, WireError):
            raise
        raise WireError(f"malformed {kind} line: {type(err).__name__}: {err}") from err


def _object(line: bytes) -> dict[str, Any]:
    try:
        data = json.loads(line.decode("utf-8", _ERRORS))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise WireError(f"not a JSON line: {err}") from err
    except RecursionError as err:  # `[[[[...`: nested deeper than the parser goes
        raise WireError("a line nested too deep") from err
    if not isinstance(data, dict):
        raise WireError("a line is a JSON object")
    return data


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected text, got {type(value).__name__}")
    return value


def _int(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"expected an integer, got {type(value).__name__}")
    return value


def _cell_of(value: Any) -> CellKey:
    model, task, length = value
    return CellKey(_str(model), _str(task), _int(length))


def _counts_of(value: Any) -> dict[CellKey, int]:
    return {CellKey(_str(m), _str(t), _int(n)): _int(c) for m, t, n, c in value}


def _example_of(data: Any) -> Example:
    values = dict(data)
    values["gold"] = tuple(values["gold"])
    return Example(preamble="", context="", spans=(), **values)


def _generation_of(data: Any) -> Generation:
    values = dict(data)
    values["status"] = GenerationStatus(values["status"])
    values["calls"] = tuple(CallRecord(**c) for c in values.get("calls", ()))
    return Generation(**values)


def _score_of(data: Any) -> Score:
    values = dict(data)
    values["status"] = ScoreStatus(values["status"])
    values["extracted"] = tuple(values["extracted"])
    values["points"] = tuple(
        RubricPoint(**{**p, "capabilities": tuple(p.get("capabilities", ()))})
        for p in values["points"]
    )
    return Score(**values)


def _earlier_of(data: dict[str, Any]) -> EarlierResults:
    cells = {
        CellKey(_str(m), _str(t), _int(n)): CellTally(**tally) for m, t, n, tally in data["cells"]
    }
    last = data.get("last_error")
    return EarlierResults(cells, None if last is None else _str(last))


def _plain_event(cls: type[Any]) -> Any:
    names = [f.name for f in fields(cls)]
    return lambda data: cls(**{name: data[name] for name in names})


# How each event but ChunkReceived (decoded on its own, the hot path) is read back.
DECODERS: dict[str, Any] = {
    "RunPlanned": lambda d: RunPlanned(
        _str(d["run_id"]), _counts_of(d["cells"]), _counts_of(d["skipped"])
    ),
    "ItemsSkipped": lambda d: ItemsSkipped(_counts_of(d["skipped"])),
    "ExampleStarted": lambda d: ExampleStarted(
        cell=_cell_of(d["cell"]),
        example=_example_of(d["example"]),
        generation_id=_str(d["generation_id"]),
    ),
    "GenerationFinished": lambda d: GenerationFinished(
        _cell_of(d["cell"]), _generation_of(d["generation"])
    ),
    "ExampleScored": lambda d: ExampleScored(
        _cell_of(d["cell"]), _generation_of(d["generation"]), _score_of(d["score"])
    ),
    "ExampleFailed": lambda d: ExampleFailed(
        _cell_of(d["cell"]), _generation_of(d["generation"]), _str(d["message"])
    ),
    "EarlierResults": _earlier_of,
    "ServersReported": lambda d: ServersReported(
        _str(d["model"]), tuple(ServerShare.from_dict(row) for row in d["servers"])
    ),
    "StoreStalled": _plain_event(StoreStalled),
    "StoreRecovered": _plain_event(StoreRecovered),
    "RunPaused": _plain_event(RunPaused),
    "RunFinished": _plain_event(RunFinished),
}
