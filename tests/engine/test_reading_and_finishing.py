"""A stream is read to the cap in characters too, and a run whose results are all
stored is not reported as losing them when only its status cannot be recorded
(both found in review; fakes, since no real server or file fails so on demand)."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from lctui.backends import load_backend
from lctui.backends.gold import GoldBackend
from lctui.core.errors import StoreError
from lctui.core.events import Event, ExampleScored, StoreStalled
from lctui.core.types import Chunk, ModelSpec, Request
from lctui.engine import Engine, RunRequest, flushing
from lctui.engine.plan import generation_config
from lctui.engine.reading import MAX_CHARS_PER_TOKEN, read_stream
from lctui.store import db as store_db
from lctui.store import open_store
from lctui.tasks import select_tasks

GOLD = ModelSpec(name="gold", backend="gold", reference=True)


class FakeServerSendingHugeDeltas(GoldBackend):
    """Counts one token per event, as a server that ignores max_tokens may, while each
    event carries 10,000 characters."""

    def __init__(self) -> None:
        super().__init__()
        self.sent = 0

    async def stream(self, request: Request) -> AsyncIterator[Chunk]:
        for _ in range(10_000):
            self.sent += 1
            yield Chunk(text="x" * 10_000, tokens=1)


async def test_output_is_cut_at_the_cap_in_characters_with_fake_huge_deltas() -> None:
    backend = FakeServerSendingHugeDeltas()
    example = select_tasks("niah_single_1")[0]
    request = backend.build_request(
        example.generate(1024, 0, 0, backend.tokenizer),
        generation_config(GOLD, example, 0.0, 1024),
    )
    read = await read_stream(backend, request, lambda chunk: None)
    cap = request.config.max_new_tokens * MAX_CHARS_PER_TOKEN
    assert read.finish_reason == "length"
    assert cap <= len(read.output) < cap + 10_000
    assert backend.sent < 10_000, "the stream was left, not read to its end"


def test_a_status_that_cannot_be_recorded_is_said_not_a_loss_with_fake_refusals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[Event] = []
    monkeypatch.setattr(flushing, "FINISH_TRIES", 2)
    with open_store(tmp_path / "f.duckdb", shared=True) as store:
        writer = store.writer

        def refusing(run_id: str, status: str, notes: object = None) -> Any:
            writer.flush(force=True)  # every result is written; only the status fails
            raise StoreError("the file is busy (a fake refusal)")

        monkeypatch.setattr(store, "finish_run", refusing)
        engine = Engine(store, lambda spec, tok: load_backend(spec, tok), events.append)
        request = RunRequest(models=[GOLD], tasks=select_tasks("vt"), lengths=[1024], n=2)
        outcome = asyncio.run(engine.run(request))
        assert store.backlog().generations == 0
    assert outcome.done == 2 and not outcome.cancelled
    said = [e.error or "" for e in events if isinstance(e, StoreStalled)]
    assert any("every result is stored, but the run's end could not be recorded" in s for s in said)


class SlowGold(GoldBackend):
    """Gold answers, one at a time, each after a pause: a run that lasts seconds."""

    max_concurrency = 1

    async def stream(self, request: Request) -> AsyncIterator[Chunk]:
        await asyncio.sleep(0.25)
        async for chunk in super().stream(request):
            yield chunk


def test_the_file_alone_holds_a_running_runs_results_after_a_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shared store writes to the write-ahead log; copying only the .duckdb file of a
    running run (common) must not miss more than CHECKPOINT_EVERY_S of results."""
    monkeypatch.setattr(flushing, "CHECKPOINT_EVERY_S", 0.0)
    db = tmp_path / "c.duckdb"
    copy = tmp_path / "copy.duckdb"
    scored: list[Event] = []
    with open_store(db, shared=True) as store:
        engine = Engine(store, lambda spec, tok: SlowGold(), scored.append)
        request = RunRequest(models=[GOLD], tasks=select_tasks("vt"), lengths=[1024], n=30)

        async def run_and_copy() -> None:
            running = asyncio.ensure_future(engine.run(request))
            while sum(isinstance(e, ExampleScored) for e in scored) < 3:
                await asyncio.sleep(0.05)
            await asyncio.sleep(2.5)  # a flush and a checkpoint later, the run still going
            assert not running.done()
            shutil.copy(db, copy)  # the file alone, as `cp` or rsync of it would
            await running

        asyncio.run(run_and_copy())
    with duckdb.connect(str(copy), read_only=True) as con:
        row = con.execute("SELECT count(*) FROM generations").fetchone()
    assert row is not None and row[0] >= 3


def test_a_short_run_opens_its_shared_file_three_times(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shared file is opened per query and per write, each open costing about what a
    small model's answer does: a run that ends before its first timed flush opens it to
    check what is stored, to start (the run's row with its models' rows), and to end
    (its last results with its status), and leaves it holding every result."""
    monkeypatch.setattr(flushing, "FLUSH_EVERY_S", 60.0)  # no timed flush in this run
    opened: list[Path] = []
    connect = store_db.connect_waiting

    def counting(file: Path, *args: Any, **kwargs: Any) -> duckdb.DuckDBPyConnection:
        opened.append(file)
        return connect(file, *args, **kwargs)

    db = tmp_path / "s.duckdb"
    request = RunRequest(models=[GOLD], tasks=select_tasks("vt"), lengths=[1024], n=4)
    with open_store(db, shared=True) as store:
        monkeypatch.setattr(store_db, "connect_waiting", counting)
        engine = Engine(store, lambda spec, tok: load_backend(spec, tok), lambda event: None)
        outcome = asyncio.run(engine.run(request))
        assert outcome.done == 4
        assert len(opened) == 3
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM results").fetchone() == (4,)
        assert con.execute("SELECT count(*) FROM models").fetchone() == (1,)
        assert con.execute("SELECT status FROM runs").fetchall() == [("finished",)]
