"""Engine events as JSON lines: every event of a real run comes back equal (examples slim)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import get_args

import pytest

from lctui.backends.gold import GoldBackend
from lctui.core.events import (
    CellKey,
    CellTally,
    ChunkReceived,
    EarlierResults,
    Event,
    ExampleScored,
    ExampleStarted,
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
from lctui.core.types import Chunk, ModelSpec, Request, ServerShare
from lctui.core.wire import (
    DECODERS,
    QUESTION_CHARS,
    Dropped,
    Hello,
    Refused,
    ReplayDone,
    WireError,
    decode_control,
    decode_event,
    decode_message,
    encode_control,
    encode_dropped,
    encode_event,
    encode_hello,
    encode_refused,
    encode_replay_done,
    slim_example,
)
from lctui.engine import Engine, RunRequest
from lctui.store import open_store
from lctui.tasks import select_tasks

GOLD = ModelSpec(name="gold", backend="gold", reference=True)
TASKS = "niah_multivalue,lifbench_repeat,alce_asqa"


class FailingGoldFake(GoldBackend):
    """Gold answers; every third request fails as a dropped connection would (no real
    server fails on demand), so the run has ExampleFailed events too."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    async def stream(self, request: Request) -> AsyncIterator[Chunk]:
        self.calls += 1
        if self.calls % 3 == 0:
            raise ConnectionError("connection dropped by the fake")
        async for chunk in super().stream(request):
            yield chunk


@pytest.fixture(scope="module")
def run_events(tmp_path_factory: pytest.TempPathFactory) -> list[Event]:
    """Every event of a real gold run over three suites' tasks at 4K (LIFEval points,
    ALCE's documents in the metadata), with a pause and a resume."""
    events: list[Event] = []
    request = RunRequest(models=[GOLD], tasks=select_tasks(TASKS), lengths=[4096], n=2)
    store = open_store(tmp_path_factory.mktemp("wire") / "w.duckdb")
    try:
        engine = Engine(store, lambda spec, tokenizer: FailingGoldFake(), events.append)
        engine.pause()
        engine.resume()
        asyncio.run(engine.run(request))
    finally:
        store.close()
    return events


def _kinds(events: list[Event]) -> set[str]:
    return {type(e).__name__ for e in events}


def test_every_event_of_a_real_run_comes_back_equal(run_events: list[Event]) -> None:
    assert {
        "RunPlanned",
        "ExampleStarted",
        "ChunkReceived",
        "GenerationFinished",
        "ExampleScored",
        "ExampleFailed",
        "RunPaused",
        "RunFinished",
    } <= _kinds(run_events)
    scored = [e for e in run_events if isinstance(e, ExampleScored)]
    assert any(e.score.points for e in scored), "LIFEval's rubric points travel too"
    for event in run_events:
        line = encode_event(event)
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        back = decode_event(line)
        if isinstance(event, ExampleStarted):
            assert back == replace(event, example=slim_example(event.example))
        else:
            assert back == event


def test_the_other_events_come_back_equal() -> None:
    cell = CellKey("gold", "vt", 4096)
    events: list[Event] = [
        ItemsSkipped({cell: 3}),
        StoreStalled("disk full", 4, 12, 3.5, True),
        StoreStalled(None, 0, 0, 0.0, False),
        StoreRecovered(9.0, 40),
        RunPaused(False),
        EarlierResults({cell: CellTally(5, 1, 4.0, 5, 300, 2.5, 0.3, 6)}, "timeout"),
        EarlierResults({}, None),
        RunPlanned("r", {cell: 2, CellKey("m 2", "niah_single_1", 131072): 7}, {}),
        RunFinished("r", 3, 1, True, 12.5),
        ServersReported(
            "remote",
            (
                ServerShare("http://a:8000/v1", 10, 8, 1, 1, 0.8, 0.1, "HTTP 503"),
                ServerShare("http://b:8000/v1", 9, 9, 0, 0, None, None),
            ),
        ),
    ]
    for event in events:
        assert decode_event(encode_event(event)) == event


def test_examples_travel_slim_with_what_the_live_view_shows(run_events: list[Event]) -> None:
    started = [e for e in run_events if isinstance(e, ExampleStarted)]
    for event in started:
        example = event.example
        line = encode_event(event)
        assert len(line) < 4000, (example.task, len(line))
        assert example.context[:200].encode() not in line
        slim = decode_event(line)
        assert isinstance(slim, ExampleStarted)
        got = slim.example
        assert (got.task, got.length, got.index, got.prompt_tokens, got.depth) == (
            example.task,
            example.length,
            example.index,
            example.prompt_tokens,
            example.depth,
        )
        assert got.context == got.preamble == "" and got.spans == ()
        assert got.question == shorten(example.question, QUESTION_CHARS) and got.gold
    alce = next(e.example for e in started if e.example.task == "alce_asqa")
    assert "documents" in alce.metadata and "documents" not in slim_example(alce).metadata


def test_every_kind_of_event_has_a_wire_form() -> None:
    assert {t.__name__ for t in get_args(Event)} == {*DECODERS, "ChunkReceived"}


def test_chunks_of_any_text_stay_one_line() -> None:
    cell = CellKey("m", "t", 1024)
    for text in ["line one\nline two\r\n", "\ud83d", "emoji 🦆 and \u2028 separator", ""]:
        event = ChunkReceived(cell, "g", text, 3, restart=True)
        line = encode_event(event)
        assert line.count(b"\n") == 1
        assert decode_event(line) == event


def test_hello_replay_done_dropped_and_controls() -> None:
    record = RunRecord("r1", 42, "host", "/x.duckdb", ("run", "-m", "gold"), "/", 1.0, "/s")
    progress = LiveProgress(to_do=10, done=3, errors=1, paused=True, planned=True)
    assert decode_message(encode_hello(Hello(record, progress))) == Hello(record, progress)
    assert decode_message(encode_replay_done()) == ReplayDone()
    assert decode_message(encode_dropped("slow")) == Dropped("slow")
    assert decode_message(encode_refused("full")) == Refused("full")
    for op in ("pause", "resume", "cancel"):
        assert decode_control(encode_control(op)) == op
    with pytest.raises(ValueError, match="unknown control"):
        encode_control("stop")
    with pytest.raises(WireError):
        decode_event(encode_replay_done())


@pytest.mark.parametrize(
    "line",
    [
        b"not json\n",
        b"[1, 2]\n",
        b'{"t": "Nope"}\n',
        b'{"t": "ChunkReceived", "cell": ["m", "t"], "generation_id": "g", "text":"", "tokens": 0}',
        b'{"t": "ChunkReceived", "cell": ["m", "t", 1], "generation_id":5, "text":"", "tokens": 0}',
        b'{"t": "RunPaused"}\n',
        b'{"t": "RunPlanned", "run_id": "r", "cells": [[1]], "skipped": []}\n',
        b'{"t": "hello", "version": 1, "record": {"run_id": "r"}, "progress": {}}\n',
        b'{"t": "ExampleScored", "cell": ["m", "t", 1], "generation": {}, "score": {}}\n',
        b"\xff\xfe\n",
    ],
)
def test_malformed_lines_are_wire_errors(line: bytes) -> None:
    with pytest.raises(WireError):
        decode_message(line)


def test_a_decoded_control_must_be_known() -> None:
    with pytest.raises(WireError):
        decode_control(json.dumps({"op": "explode"}).encode())
    with pytest.raises(WireError):
        decode_control(b"{}")


@pytest.mark.parametrize(
    "line",
    [
        b"[" * 100_000 + b"\n",  # deeper than the parser goes: RecursionError before
        b'{"op": ' * 50_000 + b"\n",
        b'{"op": "pause", "pad": "' + b"x" * 1_000_000 + b'"}\n',
        b"\xc3\x28\n",
        b"\x00" * 300,
        b"",
    ],
)
def test_no_control_line_raises_anything_but_a_wire_error(line: bytes) -> None:
    with pytest.raises(WireError):
        decode_control(line)


def test_run_records_refuse_what_they_cannot_hold(tmp_path: Path) -> None:
    record = RunRecord("r1", 42, "host", "/x.duckdb", ("run",), "/", 1.0, "/s")
    assert RunRecord.from_dict(record.as_dict()) == record
    for broken in [
        {**record.as_dict(), "pid": "42"},
        {**record.as_dict(), "argv": "run"},
        {k: v for k, v in record.as_dict().items() if k != "socket"},
        [],
    ]:
        with pytest.raises(ValueError):
            RunRecord.from_dict(broken)
    newer = {**record.as_dict(), "field_of_a_newer_lctui": 1}
    assert RunRecord.from_dict(newer) == record
