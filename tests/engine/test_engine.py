"""The engine: events per generation, errors kept as errors and retried on resume."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import duckdb

from lctui.backends import load_backend
from lctui.backends.gold import GoldBackend
from lctui.core.events import (
    ChunkReceived,
    Event,
    ExampleFailed,
    ExampleScored,
    ExampleStarted,
    GenerationFinished,
    RunFinished,
    RunPlanned,
)
from lctui.core.types import Chunk, ModelSpec, Request
from lctui.engine import Engine, RunRequest
from lctui.store import open_store
from lctui.tasks import select_tasks

GOLD = ModelSpec(name="gold", backend="gold", reference=True)


class FailingGoldFake(GoldBackend):
    """Gold answers, except that every `fail_every`-th request fails the way a dropped
    connection would (a real server cannot be made to do that on demand)."""

    def __init__(self, fail_every: int) -> None:
        super().__init__()
        self.fail_every = fail_every
        self.calls = 0

    async def stream(self, request: Request) -> AsyncIterator[Chunk]:
        self.calls += 1
        if self.calls % self.fail_every == 0:
            raise ConnectionError("connection dropped by the fake")
        async for chunk in super().stream(request):
            yield chunk


def _request(n: int = 3) -> RunRequest:
    return RunRequest(
        models=[GOLD], tasks=select_tasks("niah_single_1,vt"), lengths=[1024, 2048], n=n
    )


def _run(db: Path, backend: Any, events: list[Event]) -> Any:
    store = open_store(db)
    try:
        engine = Engine(store, lambda spec, tok: backend, events.append)
        outcome = asyncio.run(engine.run(_request()))
        assert not engine._examples, "cached examples must be released after use"
        return outcome
    finally:
        store.close()


def test_events_come_in_order_for_every_generation(tmp_path: Path) -> None:
    events: list[Event] = []
    outcome = _run(tmp_path / "e.duckdb", load_backend(GOLD), events)
    assert outcome.done == 12 and outcome.errors == 0
    assert isinstance(events[0], RunPlanned) and isinstance(events[-1], RunFinished)
    assert sum(events[0].cells.values()) == 12
    by_generation: dict[str, list[str]] = {}
    for event in events:
        if isinstance(event, ExampleStarted):
            by_generation.setdefault(event.generation_id, []).append("started")
        elif isinstance(event, ChunkReceived):
            by_generation[event.generation_id].append("chunk")
        elif isinstance(event, GenerationFinished | ExampleScored):
            kind = "finished" if isinstance(event, GenerationFinished) else "scored"
            by_generation[event.generation.generation_id].append(kind)
    assert len(by_generation) == 12
    for kinds in by_generation.values():
        assert kinds[0] == "started" and kinds[-2:] == ["finished", "scored"]
        assert set(kinds[1:-2]) == {"chunk"}


def test_failures_are_errors_not_zeros_and_the_resume_retries_them(tmp_path: Path) -> None:
    db = tmp_path / "f.duckdb"
    events: list[Event] = []
    first = _run(db, FailingGoldFake(fail_every=3), events)
    assert first.errors == 4 and first.done == 8
    failed = [e for e in events if isinstance(e, ExampleFailed)]
    assert len(failed) == 4 and all("connection dropped" in e.message for e in failed)
    con = duckdb.connect(str(db), read_only=True)
    statuses = con.execute(
        "SELECT status, count(*), count(score), avg(score) FROM results GROUP BY ALL"
    ).fetchall()
    con.close()
    assert sorted(statuses) == [("error", 4, 0, None), ("ok", 8, 8, 1.0)]

    second = _run(db, load_backend(GOLD), [])
    assert (second.done, second.errors, second.skipped) == (4, 0, 8)
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT status, count(*) FROM results GROUP BY ALL").fetchall() == [
        ("ok", 12)
    ]
    # The failed attempts stay in the table as history; results shows the latest.
    assert con.execute("SELECT count(*) FROM generations").fetchone() == (16,)
    con.close()


class RestartingGoldFake(GoldBackend):
    """Streams a false start, then retries from scratch the way a backend does after a
    dropped stream (signalled with Chunk.restart), then the gold answer, then usage."""

    async def stream(self, request: Request) -> AsyncIterator[Chunk]:
        yield Chunk("FALSE START ", tokens=3)
        first = True
        async for chunk in super().stream(request):
            if first and chunk.text:
                yield Chunk(chunk.text, chunk.tokens, restart=True)
                first = False
            else:
                yield chunk
        yield Chunk("", tokens=0, output_tokens=42)


def test_a_restarted_stream_keeps_only_the_final_attempt(tmp_path: Path) -> None:
    events: list[Event] = []
    db = tmp_path / "r.duckdb"
    outcome = _run(db, RestartingGoldFake(), events)
    assert outcome.done == 12 and outcome.errors == 0
    restarts = [e for e in events if isinstance(e, ChunkReceived) and e.restart]
    assert len(restarts) == 12
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute("SELECT output, score, output_tokens FROM results").fetchall()
    con.close()
    assert all("FALSE START" not in output for output, _, _ in rows)
    assert all(score == 1.0 and tokens == 42 for _, score, tokens in rows)
