"""A run's events for viewers in other processes: a Unix socket in the runs folder.

`EventPublisher` is an EventSink. It keeps what a viewer needs to see the run as it is
(the plan, counts of what finished, the text so far of every generation in flight and
of the last few finished ones, pause and stall states) and, while viewers are
connected, sends each event to each of them as a JSON line (core/wire.py). A viewer
that connects gets a `Hello` (the run's record and progress), then a replay built from
that state in one step on the event loop (so nothing happens between its lines), then
`ReplayDone` and the live events.

The run never waits for a viewer: events are encoded once and written to every viewer
together every `BATCH_S` (one write per viewer, never awaited); a viewer whose unread
bytes pass `VIEWER_QUEUE_BYTES` (a stopped or vanished viewer) is told (`Dropped`) and
disconnected, and may reconnect for a fresh replay. Viewers
write control lines (pause, resume, cancel) that go to the `control` callback; a line
longer than a control (`CONTROL_BYTES`) or not one is skipped, and the connection read
on. A run serves at most `MAX_VIEWERS` at once: so what viewers can cost it is bounded
(each up to VIEWER_QUEUE_BYTES unread); the next connections read `Refused`, which
says why, and are closed.
The publisher also keeps the run's record file up to date (core/run_record.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lctui.core import run_state
from lctui.core.events import ChunkReceived, Event, RunFinished, RunPlanned
from lctui.core.run_record import (
    CANCELLED,
    FINISHED,
    RUNNING,
    LiveProgress,
    RunRecord,
    write_record,
)
from lctui.core.run_state import RunProgress
from lctui.core.wire import (
    CONTROL_BYTES,
    Hello,
    WireError,
    decode_control,
    encode_dropped,
    encode_event,
    encode_hello,
    encode_refused,
    encode_replay_done,
)
from lctui.engine import local_socket
from lctui.engine.viewers import Viewer, abort_unread, control_line, refusal

RECENT_FINISHED = 64  # finished generations a replay repeats whole; older ones are counted
# Events go out in batches this often: one write per viewer, not one per token (a live
# view draws at 20 Hz, so the wait is not seen).
BATCH_S = 0.02
VIEWER_QUEUE_BYTES = 8 * 1024 * 1024  # a viewer this far behind is dropped
# Viewers served at once (a TUI's live view, `lctui attach`; `lctui runs` and the TUI's
# polls hold one for a moment): at most MAX_VIEWERS x VIEWER_QUEUE_BYTES held for them.
MAX_VIEWERS = 16
CLOSE_FLUSH_S = 2.0  # at the end, how long viewers get to read the last events
DROP_ABORT_S = 5.0  # a dropped viewer's connection is cut after this if it reads nothing

Control = Callable[[str], None]


@dataclass
class _Pending:
    """A generation's chunks since the last batch went out."""

    first: ChunkReceived
    parts: list[str]
    tokens: int


class EventPublisher:
    """The sink that publishes a run (see the module's docstring)."""

    def __init__(
        self,
        record: RunRecord,
        control: Control | None = None,
        *,
        keep_record: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.record = record
        self.control = control  # set later when what it acts on is made after the sink
        self._keep_record = keep_record
        self._clock = clock
        self._server: asyncio.AbstractServer | None = None
        self._viewers: set[Viewer] = set()
        self._batch: list[bytes] = []  # encoded events not yet sent
        self._batch_due: asyncio.TimerHandle | None = None
        # What a replay repeats: the last RECENT_FINISHED finished generations whole,
        # the older ones as counts (core/run_state.py).
        self._state = RunProgress(keep_finished=RECENT_FINISHED)
        self._chunks: dict[str, _Pending] = {}  # per generation, merged until sent
        self.failure: str | None = None  # why publishing stopped, if it did

    @property
    def socket(self) -> Path:
        return Path(self.record.socket)

    @property
    def viewers(self) -> int:
        return len(self._viewers)

    async def start(self) -> None:
        """Write the record and listen on its socket (OSError if the socket cannot be made)."""
        if self._keep_record:
            write_record(self.record)
        # Viewers write only control lines: a reader's buffer holds about two of them.
        self._server = await local_socket.listen(self.socket, self._connected, limit=CONTROL_BYTES)

    def set_status(self, status: str, message: str | None = None) -> None:
        """Record a new status (and last words), e.g. `failed` with the error."""
        changes = {} if message is None else {"message": message}
        self._save(self.record.with_status(status, **changes))

    async def close(self, status: str | None = None, message: str | None = None) -> None:
        """Stop listening, send what is pending, let viewers read it (up to
        CLOSE_FLUSH_S), close them, remove the socket, and record `status` (if given)."""
        if self._server is not None:
            self._server.close()
        self._send_batch()
        deadline = self._clock() + CLOSE_FLUSH_S
        while any(v.behind for v in self._viewers) and self._clock() < deadline:
            await asyncio.sleep(0.02)
        for viewer in list(self._viewers):
            self._disconnect(viewer)
        local_socket.remove(self.socket)
        if status is not None:
            self.set_status(status, message)

    # -- the sink -------------------------------------------------------------------------

    def __call__(self, event: Event) -> None:
        if self.failure is not None:
            return
        try:
            self._keep(event)
            if self._viewers:
                if isinstance(event, ChunkReceived):
                    self._merge(event)
                else:
                    self._pending_chunks()  # a generation's text comes before its end
                    self._batch.append(encode_event(event))
                if self._batch_due is None:
                    loop = asyncio.get_running_loop()
                    self._batch_due = loop.call_later(BATCH_S, self._send_batch)
        except Exception as err:
            # A fault of publishing must never fail the run: viewers are let go, the run
            # goes on, and the fault is kept for whoever asks (the CLI says it at the end).
            self.failure = f"{type(err).__name__}: {err}"
            for viewer in list(self._viewers):
                self._drop(viewer, f"the run stopped publishing: {self.failure}")

    def _keep(self, event: Event) -> None:
        now = self._clock()
        state = self._state
        run_state.apply(state, now, event)
        # The record says what `lctui runs` shows of a run without connecting to it.
        if isinstance(event, RunPlanned):
            self._save(self.record.with_status(RUNNING, to_do=state.to_do))
        elif isinstance(event, RunFinished):
            status = CANCELLED if event.cancelled else FINISHED
            self._save(
                self.record.with_status(
                    status,
                    to_do=state.to_do,
                    done=event.done,
                    errors=event.errors,
                    tokens_per_s=state.rates.tokens_per_s(now),
                )
            )

    def _save(self, record: RunRecord) -> None:
        self.record = record
        if self._keep_record:
            with contextlib.suppress(
                OSError
            ):  # a record that cannot be written is no failure of the run
                write_record(record)

    # -- what a viewer gets ----------------------------------------------------------------

    def progress(self) -> LiveProgress:
        now = self._clock()
        state = self._state
        planned_at = state.planned_at
        return LiveProgress(
            to_do=state.to_do,
            skipped=state.skipped,
            started=state.started,
            done=state.done,
            errors=state.errors,
            output_tokens=state.output_tokens,
            elapsed_s=now - planned_at if planned_at is not None else 0.0,
            tokens_per_s=state.rates.tokens_per_s(now),
            examples_per_s=state.rates.examples_per_s(now),
            paused=state.paused,
            stalled=state.stalled.describe() if state.stalled is not None else None,
            last_error=state.last_error,
            viewers=len(self._viewers),
            planned=state.planned,
        )

    def replay(self) -> list[Event]:
        """Events that bring a new viewer to the run's present state."""
        return run_state.replay_events(self._state)

    def _merge(self, chunk: ChunkReceived) -> None:
        """Chunks of one generation within a batch travel as one: what a view draws
        at 20 Hz is the same, and a viewer decodes far fewer lines (256 streams of
        small models send tens of thousands of tokens a second)."""
        pending = self._chunks.get(chunk.generation_id)
        if pending is None or chunk.restart:  # a restart voids the text before it
            self._chunks[chunk.generation_id] = _Pending(chunk, [chunk.text], chunk.tokens)
        else:
            pending.parts.append(chunk.text)
            pending.tokens += chunk.tokens

    def _pending_chunks(self) -> None:
        for pending in self._chunks.values():
            first = pending.first
            text = "".join(pending.parts)
            merged = ChunkReceived(
                first.cell, first.generation_id, text, pending.tokens, first.restart
            )
            self._batch.append(encode_event(merged))
        self._chunks.clear()

    def _send_batch(self) -> None:
        """Write the pending events to every viewer; drop those too far behind."""
        if self._batch_due is not None:
            self._batch_due.cancel()
            self._batch_due = None
        self._pending_chunks()
        if not self._batch:
            return
        data = b"".join(self._batch)
        self._batch.clear()
        for viewer in list(self._viewers):
            if viewer.transport.is_closing():  # it went away
                self._disconnect(viewer)
            elif viewer.behind > VIEWER_QUEUE_BYTES:
                self._drop(viewer, f"fell {VIEWER_QUEUE_BYTES >> 20} MiB behind the run")
            else:
                viewer.writer.write(data)

    async def _connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if len(self._viewers) >= MAX_VIEWERS:
            writer.write(encode_refused(refusal(MAX_VIEWERS)))
            writer.close()  # after the line is sent; nothing it writes is read
            return
        # What is pending goes to the others first: the replay below already holds it.
        self._send_batch()
        viewer = Viewer(writer)
        # Built and written in one step: no event comes between the replay and the live
        # ones. The replay is bounded itself (RECENT_FINISHED, what is in flight).
        lines = [encode_hello(Hello(self.record, self.progress()))]
        lines += [encode_event(e) for e in self.replay()]
        lines.append(encode_replay_done())
        writer.write(b"".join(lines))
        self._viewers.add(viewer)
        viewer.reader = asyncio.ensure_future(self._read_controls(viewer, reader))

    async def _read_controls(self, viewer: Viewer, reader: asyncio.StreamReader) -> None:
        try:
            while (line := await control_line(reader)) is not None:
                try:
                    op = decode_control(line)
                except WireError:
                    continue  # a viewer's bad line costs the run nothing
                if self.control is not None:
                    self.control(op)
        except (ConnectionError, OSError, ValueError):
            pass
        self._disconnect(viewer)

    def _drop(self, viewer: Viewer, reason: str) -> None:
        transport = viewer.transport
        with contextlib.suppress(Exception):
            viewer.writer.write(encode_dropped(reason))  # after what it has not read
        self._disconnect(viewer)
        # A viewer that reads nothing would keep the closing transport's buffer forever.
        with contextlib.suppress(RuntimeError):
            asyncio.get_running_loop().call_later(DROP_ABORT_S, abort_unread, transport)

    def _disconnect(self, viewer: Viewer) -> None:
        if viewer.closed:
            return
        viewer.closed = True
        self._viewers.discard(viewer)
        if viewer.reader is not None and viewer.reader is not asyncio.current_task():
            viewer.reader.cancel()
        with contextlib.suppress(Exception):
            viewer.writer.close()
