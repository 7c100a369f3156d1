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
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

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
from lctui.core.measures import Throughput
from lctui.core.run_record import (
    CANCELLED,
    FINISHED,
    RUNNING,
    LiveProgress,
    RunRecord,
    write_record,
)
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
    slim_example,
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
class _Counts:
    """A cell's CellTally while it grows."""

    done: int = 0
    errors: int = 0
    score_sum: float = 0.0
    scored: int = 0
    output_tokens: int = 0
    decode_s: float = 0.0
    ttft_sum: float = 0.0
    ttft_n: int = 0


@dataclass
class _Pending:
    """A generation's chunks since the last batch went out."""

    first: ChunkReceived
    parts: list[str]
    tokens: int


@dataclass
class _Stream:
    """One generation, as a replay repeats it."""

    started: ExampleStarted  # with its slim example
    parts: list[str] = field(default_factory=list)
    tokens: int = 0
    finished: GenerationFinished | None = None
    ended: ExampleScored | ExampleFailed | None = None

    def replay(self) -> list[Event]:
        events: list[Event] = [self.started]
        if self.parts:
            text = "".join(self.parts)
            events.append(
                ChunkReceived(self.started.cell, self.started.generation_id, text, self.tokens)
            )
        if self.finished is not None:
            events.append(self.finished)
        if self.ended is not None:
            events.append(self.ended)
        return events


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
        self._planned: RunPlanned | None = None
        self._skipped: Counter[CellKey] = Counter()
        self._streams: dict[str, _Stream] = {}  # in flight, in start order
        self._recent: deque[_Stream] = deque()
        self._tallies: dict[CellKey, _Counts] = {}
        self._earlier_error: str | None = None
        self._paused = False
        self._stalled: StoreStalled | None = None
        self._servers: dict[str, ServersReported] = {}  # the last report of each model
        self._finished: RunFinished | None = None
        self._to_do = self._skipped_n = self._started = self._done = self._errors = 0
        self._planned_at: float | None = None
        self._rates = Throughput()  # measured as every display measures (core/measures.py)
        self._chunks: dict[str, _Pending] = {}  # per generation, merged until sent
        self._last_error: str | None = None
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
            if isinstance(event, ExampleStarted):
                event = replace(event, example=slim_example(event.example))
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
        if isinstance(event, ChunkReceived):
            stream = self._streams.get(event.generation_id)
            if stream is not None:
                if event.restart:
                    stream.parts.clear()
                    stream.tokens = 0
                stream.parts.append(event.text)
                stream.tokens += event.tokens
            self._rates.add_tokens(now, event.tokens)
        elif isinstance(event, ExampleStarted):
            self._streams[event.generation_id] = _Stream(event)
            self._started += 1
        elif isinstance(event, GenerationFinished):
            stream = self._streams.get(event.generation.generation_id)
            if stream is not None:
                stream.finished = event
        elif isinstance(event, ExampleScored | ExampleFailed):
            self._ended(event, now)
        elif isinstance(event, RunPlanned):
            self._planned, self._planned_at = event, now
            self._rates.plan(now)
            self._to_do = sum(event.cells.values())
            self._skipped_n = sum(event.skipped.values())
            self._save(self.record.with_status(RUNNING, to_do=self._to_do))
        elif isinstance(event, ItemsSkipped):
            self._skipped.update(event.skipped)
            moved = sum(event.skipped.values())
            self._to_do -= moved
            self._skipped_n += moved
        elif isinstance(event, StoreStalled):
            self._stalled = event
        elif isinstance(event, StoreRecovered):
            self._stalled = None
        elif isinstance(event, RunPaused):
            self._paused = event.paused
        elif isinstance(event, ServersReported):
            self._servers[event.model] = event
        elif isinstance(event, RunFinished):
            self._finished = event
            planned = self._planned_at
            self._rates.end(planned + event.elapsed_s if planned is not None else now)
            status = CANCELLED if event.cancelled else FINISHED
            self._save(
                self.record.with_status(
                    status,
                    to_do=self._to_do,
                    done=event.done,
                    errors=event.errors,
                    tokens_per_s=self._rates.tokens_per_s(now),
                )
            )

    def _ended(self, event: ExampleScored | ExampleFailed, now: float) -> None:
        if isinstance(event, ExampleFailed):
            self._errors += 1
            self._last_error = event.message
        else:
            self._done += 1
        self._rates.add_finished(now)
        stream = self._streams.pop(event.generation.generation_id, None)
        if stream is None:
            return
        stream.ended = event
        self._recent.append(stream)
        while len(self._recent) > RECENT_FINISHED:
            self._tally(self._recent.popleft())

    def _tally(self, stream: _Stream) -> None:
        """Fold a finished generation into its cell's counts (it leaves the replay)."""
        ended = stream.ended
        assert ended is not None
        counts = self._tallies.setdefault(stream.started.cell, _Counts())
        generation = ended.generation
        counts.output_tokens += generation.output_tokens
        if generation.ttft_s is not None:
            counts.ttft_sum += generation.ttft_s
            counts.ttft_n += 1
            counts.decode_s += max(0.0, generation.latency_s - generation.ttft_s)
        if isinstance(ended, ExampleFailed):
            counts.errors += 1
            self._earlier_error = ended.message
        else:
            counts.done += 1
            if ended.score.value is not None:
                counts.score_sum += ended.score.value
                counts.scored += 1

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
        elapsed = now - self._planned_at if self._planned_at is not None else 0.0
        return LiveProgress(
            to_do=self._to_do,
            skipped=self._skipped_n,
            started=self._started,
            done=self._done,
            errors=self._errors,
            output_tokens=self._rates.output_tokens,
            elapsed_s=elapsed,
            tokens_per_s=self._rates.tokens_per_s(now),
            examples_per_s=self._rates.examples_per_s(now),
            paused=self._paused,
            stalled=self._stalled.describe() if self._stalled is not None else None,
            last_error=self._last_error,
            viewers=len(self._viewers),
            planned=self._planned is not None,
        )

    def replay(self) -> list[Event]:
        """Events that bring a new viewer to the run's present state."""
        events: list[Event] = []
        if self._planned is not None:
            events.append(self._planned)
        if self._skipped:
            events.append(ItemsSkipped(dict(self._skipped)))
        if self._tallies:
            tallies = {cell: CellTally(**asdict(c)) for cell, c in self._tallies.items()}
            events.append(EarlierResults(tallies, self._earlier_error))
        for stream in [*self._recent, *self._streams.values()]:
            events.extend(stream.replay())
        events.extend(self._servers.values())
        if self._paused:
            events.append(RunPaused(True))
        if self._stalled is not None:
            events.append(self._stalled)
        if self._finished is not None:
            events.append(self._finished)
        return events

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
