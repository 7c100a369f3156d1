"""Publishing a run on its socket: replay for late viewers, controls, slow, vanished and
hostile viewers, the cap on viewers. A real engine on the gold model (slowed:
SlowGoldFake) and real Unix sockets, viewer and run in one event loop."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import os
import socket
import stat
import time
from pathlib import Path
from typing import Any

import duckdb
import pytest
from rich.console import Console

from helpers.live_runs import SlowGoldFake, Tally, until
from lctui.cli.attach import _connect as cli_connect
from lctui.cli.progress import RichProgressSink
from lctui.core.errors import UserInputError
from lctui.core.events import (
    CellKey,
    ChunkReceived,
    Event,
    ExampleStarted,
    RunFinished,
    fan_out,
)
from lctui.core.paths import runs_dir
from lctui.core.run_record import CANCELLED, FINISHED, RUNNING, read_record, record_path
from lctui.core.types import ModelSpec
from lctui.core.wire import Dropped, Hello, decode_message, encode_control
from lctui.engine import Engine, RunOutcome, RunRequest, local_socket, publish
from lctui.engine.attach import LOST, RUN_ENDED, AttachedRun, ViewerRefused
from lctui.engine.publish import EventPublisher
from lctui.engine.published_run import new_record, run_published
from lctui.store import open_store
from lctui.tasks import select_tasks
from lctui.tui.state.run_progress import RunState

GOLD = ModelSpec(name="gold", backend="gold", reference=True)
STUCK_N = 200


def _request(n: int) -> RunRequest:
    return RunRequest(models=[GOLD], tasks=select_tasks("niah_single_1,vt"), lengths=[1024], n=n)


class Published:
    """A published gold run in this event loop; `own` tallies the engine's own events."""

    def __init__(self, db: Path, backend: Any) -> None:
        self.store = open_store(db, shared=True)
        self.own = Tally()
        self.publisher = EventPublisher(new_record(["run", "test"], db))
        self.engine = Engine(
            self.store, lambda spec, tok: backend, fan_out(self.own, self.publisher)
        )
        self.task: asyncio.Task[RunOutcome] | None = None

    async def start(self, request: RunRequest) -> None:
        self.task = asyncio.ensure_future(run_published(self.engine, request, self.publisher))
        await until(lambda: Path(self.publisher.record.socket).exists(), 10, "the socket")

    async def outcome(self) -> RunOutcome:
        assert self.task is not None
        try:
            return await asyncio.wait_for(self.task, 120)
        finally:
            self.store.close()


async def _watch(socket: str, tally: Tally, limit: int | None = None) -> AttachedRun:
    attached = await AttachedRun.connect(socket)
    async for event in attached:
        tally(event)
        if limit is not None and tally.events >= limit:
            break
    return attached


async def test_a_late_viewer_sees_the_same_run_as_an_early_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A short replay window, so the late viewer gets most of the run as counts.
    monkeypatch.setattr(publish, "RECENT_FINISHED", 3)
    backend = SlowGoldFake(delay=0.01)
    run = Published(tmp_path / "p.duckdb", backend)
    await run.start(_request(n=6))
    early = Tally()
    early_task = asyncio.ensure_future(_watch(run.publisher.record.socket, early))
    await until(lambda: run.own.done >= 7, 60, "seven finished generations")
    # Every stream stops after its next word: the run holds still with text in flight.
    backend.gate.clear()
    own_in_flight = lambda: [g for g in run.own.texts if g not in run.own.ended]  # noqa: E731
    await until(
        lambda: len(own_in_flight()) == 2 and all(run.own.texts[g] for g in own_in_flight()),
        30,
        "two generations in flight with text",
    )
    record = read_record(record_path(run.publisher.record.run_id))
    assert record.status == RUNNING and record.to_do == 12
    late = Tally()
    late_attached = await AttachedRun.connect(run.publisher.record.socket)
    assert late_attached.progress.finished >= 7 and late_attached.progress.to_do == 12
    for event in await late_attached.read_replay():
        late(event)
    # The replay rebuilds the present: what finished, and the text so far in flight.
    assert late.counts() == run.own.counts() and late.started == run.own.started
    in_flight = set(late.texts) - late.ended
    assert in_flight == set(own_in_flight())
    assert {g: late.texts[g] for g in in_flight} == {g: run.own.texts[g] for g in in_flight}
    backend.gate.set()
    async for event in late_attached:
        late(event)
    outcome = await run.outcome()
    early_attached = await early_task
    assert outcome.done == 12 and not outcome.cancelled
    assert early.counts() == late.counts() == run.own.counts()
    assert early.texts == run.own.texts
    assert all(late.texts[g] == run.own.texts[g] for g in in_flight)
    assert early.started == late.started == 12
    assert early.finished == late.finished == run.own.finished
    assert early_attached.ended_by == late_attached.ended_by == RUN_ENDED
    # What the TUI's live view and `lctui attach` build from it is the run's own account.
    own_state, late_state = (_views(events) for events in (run.own.log, late.log))
    assert late_state == own_state
    assert read_record(record_path(run.publisher.record.run_id)).status == FINISHED
    assert not Path(run.publisher.record.socket).exists()


async def test_viewers_pause_resume_and_cancel_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(publish, "RECENT_FINISHED", 2)
    run = Published(tmp_path / "c.duckdb", SlowGoldFake(delay=0.02, concurrency=1))
    await run.start(_request(n=20))
    tally = Tally()
    attached = await AttachedRun.connect(run.publisher.record.socket)
    watching = asyncio.ensure_future(_drain(attached, tally))
    await until(lambda: run.own.done >= 4, 60, "four finished generations")
    await attached.pause()
    await until(lambda: tally.paused, 10, "the pause to be published")
    assert run.engine.paused
    await until(lambda: run.own.started == run.own.done, 10, "the one in flight to finish")
    settled = run.own.started
    await asyncio.sleep(0.3)
    assert run.own.started == settled  # no new request starts while paused
    # Nothing moves now: a viewer that attaches sees exactly the run's own account.
    still = Tally()
    second = await AttachedRun.connect(run.publisher.record.socket)
    for event in await second.read_replay():
        still(event)
    assert still.counts() == run.own.counts() and still.started == settled and still.paused
    await second.close()
    await attached.resume()
    await until(lambda: not tally.paused and run.own.started > settled, 10, "a new start")
    await attached.cancel()
    outcome = await run.outcome()
    await watching
    assert outcome.cancelled and 4 <= outcome.done < 40
    assert tally.finished is not None and tally.finished.cancelled
    assert read_record(record_path(run.publisher.record.run_id)).status == CANCELLED
    con = duckdb.connect(str(tmp_path / "c.duckdb"), read_only=True)
    stored = con.execute("SELECT count(*) FROM generations WHERE status = 'ok'").fetchone()
    con.close()
    assert stored == (outcome.done,)  # what finished is kept, as with Ctrl-C


def _views(events: list[Event]) -> tuple[Any, ...]:
    """The TUI's RunState and the CLI's progress rows, built from `events`, as values."""
    state = RunState(["gold"], ["niah_single_1", "vt"], [1024])
    rows = RichProgressSink(Console(file=io.StringIO()))
    for event in events:
        state.apply(0.0, event)
        rows(event)
    cells = {k: dataclasses.astuple(c) for k, c in state.cells.items()}
    shown = [(t.description, t.completed, t.total, t.fields["score"]) for t in rows.progress.tasks]
    totals = (state.started, state.done, state.errors, state.output_tokens, state.to_do)
    return cells, totals, round(state.mean_ttft or 0.0, 9), shown, rows.errors


async def _drain(attached: AttachedRun, tally: Tally) -> None:
    async for event in attached:
        tally(event)


async def test_a_viewer_that_stops_reading_is_dropped_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(publish, "VIEWER_QUEUE_BYTES", 16 * 1024)
    # The dropped viewer reads only once the run has ended: on a loaded machine that is
    # more than the 5 s after which an unread connection is cut (and its Dropped lost).
    monkeypatch.setattr(publish, "DROP_ABORT_S", 600.0)
    run = Published(tmp_path / "s.duckdb", SlowGoldFake(delay=0.001, concurrency=4))
    # About 1 MB of events: more than the socket's and the transport's buffers hold.
    await run.start(_request(n=STUCK_N))
    # A viewer that reads its hello, then nothing (a plain socket, outside the loop, whose
    # buffers fill up as a stopped process's would).
    stuck = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with local_socket.reachable(Path(run.publisher.record.socket)) as name:
        stuck.connect(name)
    stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    good = Tally()
    good_task = asyncio.ensure_future(_watch(run.publisher.record.socket, good))
    # A viewer that connected and vanished at once.
    _, vanished = await local_socket.connect(Path(run.publisher.record.socket))
    vanished.transport.abort()
    # Garbage from a viewer costs the run nothing either.
    _, noisy = await local_socket.connect(Path(run.publisher.record.socket))
    noisy.write(b"not json\n" + encode_control("resume") + b'{"op": "explode"}\n')
    outcome = await run.outcome()
    await good_task
    assert outcome.done == 2 * STUCK_N and run.publisher.failure is None
    assert good.counts() == run.own.counts()

    # What it gets when it reads again: the start of the run, then word that it was let
    # go, and the end of the connection (no RunFinished).
    def read_all() -> bytes:
        received = b""
        stuck.settimeout(10)
        while chunk := stuck.recv(1 << 16):
            received += chunk
        stuck.close()
        return received

    received = await asyncio.to_thread(read_all)  # the loop must run to send the rest
    messages = [decode_message(line) for line in received.splitlines()]
    assert isinstance(messages[0], Hello) and isinstance(messages[-1], Dropped)
    assert "behind" in messages[-1].reason
    assert not any(isinstance(m, RunFinished) for m in messages)
    noisy.close()


async def test_the_socket_and_folder_are_the_users_alone_at_any_path_length(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    monkeypatch.setenv("LCTUI_DATA_DIR", str(deep))
    run = Published(tmp_path / "l.duckdb", SlowGoldFake(delay=0.05, concurrency=1))
    await run.start(_request(n=2))
    socket = Path(run.publisher.record.socket)
    assert len(os.fsencode(socket)) > 108  # longer than a socket address holds
    assert stat.S_IMODE(socket.stat().st_mode) == 0o600
    assert stat.S_IMODE(runs_dir().stat().st_mode) == 0o700
    tally = Tally()
    attached = await _watch(str(socket), tally)
    await run.outcome()
    assert attached.ended_by == RUN_ENDED and tally.done == 4


async def test_a_run_that_vanishes_leaves_its_viewer_lost(tmp_path: Path) -> None:
    run = Published(tmp_path / "v.duckdb", SlowGoldFake(delay=0.05, concurrency=1))
    await run.start(_request(n=10))
    tally = Tally()
    attached = await AttachedRun.connect(run.publisher.record.socket)
    watching = asyncio.ensure_future(_drain(attached, tally))
    await until(lambda: tally.started >= 1, 30, "a start")
    # As if the process died: its connections close with no RunFinished.
    assert run.task is not None
    for viewer in list(run.publisher._viewers):
        viewer.writer.transport.abort()
    await watching
    assert attached.ended_by == LOST
    run.task.cancel()
    await run.outcome()


async def test_a_retried_answer_reaches_viewers_as_it_ends_up(tmp_path: Path, o200k: Any) -> None:
    """Chunks merged for viewers keep a restart's meaning: the text before it is void."""
    publisher = EventPublisher(new_record(["run", "test"], tmp_path / "r.duckdb"))
    await publisher.start()
    attached = await AttachedRun.connect(publisher.record.socket)
    await attached.read_replay()
    example = select_tasks("vt")[0].generate(1024, 0, 0, o200k)
    cell = CellKey("m", "vt", 1024)
    own, seen = Tally(), Tally()
    events: list[Event] = [ExampleStarted(cell, example, "g1")]
    events += [ChunkReceived(cell, "g1", t, 1) for t in ("lost ", "words")]
    events += [ChunkReceived(cell, "g1", "kept ", 1, restart=True)]
    events += [ChunkReceived(cell, "g1", t, 1) for t in ("and ", "more")]
    for event in events:
        publisher(event)
        own(event)
    await publisher.close()
    async for event in attached:
        seen(event)
    assert own.texts == seen.texts == {"g1": "kept and more"}
    lines = [e for e in seen.log if isinstance(e, ChunkReceived)]
    assert len(lines) < 5 and publisher.failure is None  # merged within a batch


def test_a_run_that_has_ended_tells_its_mean_rates_not_an_idle_window(tmp_path: Path) -> None:
    """Issue 24: an hour after a real gold run ended, its summary (what `lctui runs`, the
    Runs screen and a late viewer read) and its record give the run's mean tok/s, the
    output tokens over the time it generated, not the 0 of the last seconds."""
    later = [0.0]  # how far the publisher's clock is moved on
    db = tmp_path / "rates.duckdb"
    publisher = EventPublisher(
        new_record(["run", "test"], db),
        keep_record=False,
        clock=lambda: time.monotonic() + later[0],
    )
    tally = Tally()
    with open_store(db) as store:
        engine = Engine(
            store, lambda spec, tok: SlowGoldFake(delay=0.01), fan_out(tally, publisher)
        )
        outcome = asyncio.run(engine.run(_request(2)))
    assert outcome.done == 4
    finished = next(e for e in tally.log if isinstance(e, RunFinished))
    later[0] = 3600.0
    progress = publisher.progress()
    assert progress.output_tokens > 0 and finished.elapsed_s > 0
    assert progress.tokens_per_s == pytest.approx(progress.output_tokens / finished.elapsed_s)
    assert progress.examples_per_s == pytest.approx(4 / finished.elapsed_s)
    assert publisher.record.tokens_per_s == pytest.approx(progress.tokens_per_s, rel=1e-3)


async def test_a_hostile_control_line_costs_nothing_and_pause_works_after_it(
    tmp_path: Path,
) -> None:
    run = Published(tmp_path / "h.duckdb", SlowGoldFake(delay=0.02, concurrency=1))
    await run.start(_request(n=20))
    tally = Tally()
    attached = await AttachedRun.connect(run.publisher.record.socket)
    watching = asyncio.ensure_future(_drain(attached, tally))
    await until(lambda: run.own.done >= 2, 60, "two finished generations")
    # On the viewer's own connection: a line nested past the parser's depth, one far
    # longer than any control, bytes that are not UTF-8; then a pause.
    hostile = b"[" * 100_000 + b"\n" + b'{"op": "' + b"x" * (4 << 20) + b'"}\n' + b"\xff\xfe\n"
    attached._writer.write(hostile)
    await attached.pause()
    await until(lambda: tally.paused, 10, "the pause after the hostile lines")
    assert run.engine.paused
    await attached.cancel()
    outcome = await run.outcome()
    await watching
    assert outcome.cancelled and run.publisher.failure is None


async def test_the_viewer_past_the_cap_is_refused_in_words_and_the_run_goes_on(
    tmp_path: Path,
) -> None:
    most = publish.MAX_VIEWERS
    run = Published(tmp_path / "cap.duckdb", SlowGoldFake(delay=0.01, concurrency=2))
    await run.start(_request(n=10))
    socket = run.publisher.record.socket
    viewers = [await AttachedRun.connect(socket) for _ in range(most)]
    tallies = [Tally() for _ in viewers]
    watching = [asyncio.ensure_future(_drain(a, t)) for a, t in zip(viewers, tallies, strict=True)]
    with pytest.raises(ViewerRefused, match=f"serves {most} viewers at once and has {most}"):
        await AttachedRun.connect(socket)
    # `lctui attach` says so in words (exit status 2), neither a traceback nor a wait.
    with pytest.raises(UserInputError, match=r"refused this viewer: .* close one"):
        await cli_connect(run.publisher.record)
    # A flood of connections is refused at once, and costs the run none of its viewers.
    flood = [await local_socket.connect(Path(socket)) for _ in range(200)]
    refused = [await reader.readline() for reader, _ in flood]
    assert all(b'"refused"' in line for line in refused)
    assert [await reader.read() for reader, _ in flood] == [b""] * len(flood)  # closed
    for _, writer in flood:
        writer.close()
    assert run.publisher.viewers == most
    # One leaves: the next is served, replay and all.
    await viewers[0].close()
    await until(lambda: run.publisher.viewers < most, 10, "a free place")
    late = Tally()
    late_task = asyncio.ensure_future(_watch(socket, late))
    outcome = await run.outcome()
    await asyncio.gather(*watching, late_task)
    assert outcome.done == 20 and not outcome.cancelled and run.publisher.failure is None
    assert all(t.counts() == run.own.counts() for t in [*tallies[1:], late])
