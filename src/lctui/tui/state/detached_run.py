"""A run of a process of its own, followed through its socket: a run of the session's
manager like any other, except that it goes on without the app.

`DetachedRun` is how the TUI sees a run `lctui run` makes: started with `--detach`,
by the launch screen's "in background", by the quit prompt's "leave them running", or
in another terminal, on the app's database. While no live view shows it, it asks the
run how far it is every `POLL_S` (the hello of a connection it closes at once, as
`lctui runs` does). While a view shows it (`watch`), it is attached: the run's replay
rebuilds its `RunState` and every event then goes to its buffer, as an engine's go
for a run of this process, so the view streams the focused generation token by token.
When the last view closes it detaches (`unwatch`): the viewer leaves, never the run.
Pause, resume and cancel go over the socket (cancel falls back to SIGTERM, which a
run treats as Ctrl-C, when the run does not listen yet). It ends when the run says it
ended (its last events, or its record), or when its process is found gone: `killed`.
Closing the app lets it go (`let_go`) and never touches the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import platform
import signal
import time
from collections.abc import Awaitable, Callable

from lctui.cli.run_args import parse_run_argv
from lctui.core import run_record as records
from lctui.core.errors import LctuiError
from lctui.core.measures import Stopwatch
from lctui.core.run_record import KILLED, LiveProgress, RunRecord

# What a detached run is doing besides what every run does (tui/state/run_manager.py):
# starting (its process loads), waiting (for its file), attaching (a view asked), left
# (the app let it go), killed (its process is gone without having ended it).
from lctui.core.statuses import ATTACHING as ATTACHING
from lctui.core.statuses import LEFT as LEFT
from lctui.core.statuses import STARTING as STARTING
from lctui.core.statuses import WAITING as WAITING
from lctui.core.text import plural
from lctui.engine import RunOutcome, RunRequest
from lctui.engine.attach import (
    DROPPED,
    LOST,
    RUN_ENDED,
    AttachedRun,
    ViewerRefused,
    current_record,
    pid_alive,
)
from lctui.tui.state.run_manager import (
    CANCELLED,
    CANCELLING,
    FAILED,
    FINISHED,
    NOTHING_TO_DO,
    PAUSED,
    RUNNING,
    STALLED,
    ManagedRun,
)
from lctui.tui.state.run_progress import RunState

POLL_S = 2.0  # how often an unwatched run is asked how far it is
ATTACH_RETRY_S = 0.2  # a view waits for a run that does not listen yet (still starting)
CONNECT_S = 2.0


class DetachedRun(ManagedRun):
    """A run of its own process, followed from the app (see the module docstring)."""

    in_process = False

    def __init__(self, record: RunRecord, request: RunRequest | None = None) -> None:
        super().__init__(request)
        self.record = record
        self.progress = LiveProgress()  # what the run said last (its hello)
        self.attached = False
        self.note: str | None = None  # a control that did not reach the run, a drop
        self._models = [spec.name for spec in request.models] if request else _models(record)
        self._viewers = 0
        self._changed = asyncio.Event()
        self._connection: AttachedRun | None = None
        self._sending: set[asyncio.Task[None]] = set()
        self.clock = self._run_clock()

    # -- the run's life ----------------------------------------------------------------

    def start(self, on_end: Callable[[ManagedRun], None] | None = None) -> None:
        super().start(on_end)
        self.clock = self._run_clock()

    def _run_clock(self) -> Stopwatch:
        """Its age is the run's, not the app's (the run may have started long before)."""
        return Stopwatch(_monotonic_of(self.record.started_at))

    async def _work(self) -> RunOutcome | None:
        while not self._over():
            if self._viewers:
                await self._attached()
            else:
                await self._poll()
            if self._over():
                break
            self._changed.clear()
            pause = ATTACH_RETRY_S if self._viewers else POLL_S
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._changed.wait(), pause)
        if self.record.status == records.FAILED and self.state.finished is None:
            self.failure = self.record.message or "the run failed (see its log)"
        return None

    def _over(self) -> bool:
        return self.state.finished is not None or self.record.ended

    async def _poll(self) -> None:
        """Ask the run how far it is (or read its record, when it does not answer)."""
        try:
            attached = await AttachedRun.connect(self.record.socket, CONNECT_S)
        except (OSError, asyncio.TimeoutError):
            self.record = await asyncio.to_thread(current_record, self.record)
            return
        self.record, self.progress = attached.record, attached.progress
        self.paused = self.progress.paused
        await attached.close()

    async def _attached(self) -> None:
        """Attach while views show the run: its replay makes a fresh state, then its live
        events go to the buffer until the run ends, drops or vanishes, or the last view
        closes."""
        try:
            attached = await AttachedRun.connect(self.record.socket, CONNECT_S)
        except ViewerRefused as err:  # tried again after ATTACH_RETRY_S
            self.note = str(err)
            return
        except (OSError, asyncio.TimeoutError):
            self.record = await asyncio.to_thread(current_record, self.record)
            return
        self._connection, self.attached = attached, True
        reading: asyncio.Task[None] | None = None
        try:
            self.record, self.progress = attached.record, attached.progress
            replay = await attached.read_replay()
            # The replay is the run so far: stamped when it was planned, so that it does
            # not count as tokens or examples of the last seconds.
            at = time.monotonic() - self.progress.elapsed_s
            state = RunState(*self._shape())
            state.replay(at, replay)
            self.buffer.drain()  # what an earlier connection left is in the replay too
            self.state, self.paused = state, state.paused
            self.note = None
            reading = asyncio.ensure_future(self._read(attached))
            while self._viewers and not reading.done():
                self._changed.clear()
                waiting = asyncio.ensure_future(self._changed.wait())
                await asyncio.wait({reading, waiting}, return_when=asyncio.FIRST_COMPLETED)
                waiting.cancel()
        finally:
            self._connection, self.attached = None, False
            if reading is not None and not reading.done():
                reading.cancel()
            await attached.close()
        if attached.ended_by == RUN_ENDED:
            self.drain()  # its last events (RunFinished): the run is over
        elif attached.ended_by == DROPPED:
            self.note = f"the run let this view go ({attached.dropped_reason}); attached again"
        elif attached.ended_by == LOST:
            self.record = await asyncio.to_thread(current_record, self.record)

    def _shape(self) -> tuple[list[str], list[str], list[int]]:
        """Its models, tasks and lengths when this app started it; else none: the
        run's plan names them (RunState)."""
        request = self.request
        if request is None:
            return [], [], []
        return self._models, [task.name for task in request.tasks], list(request.lengths)

    async def _read(self, attached: AttachedRun) -> None:
        async for event in attached:
            self.buffer(event)

    def drain(self) -> None:
        paused = self.state.paused
        super().drain()
        if self.state.paused != paused:  # the run said so (RunPaused)
            self.paused = self.state.paused

    # -- views -------------------------------------------------------------------------

    def watch(self) -> None:
        self._viewers += 1
        self._changed.set()

    def unwatch(self) -> None:
        self._viewers = max(0, self._viewers - 1)
        self._changed.set()

    def let_go(self) -> None:
        if self._task is not None:
            self._task.cancel()

    # -- controls ----------------------------------------------------------------------

    def pause(self) -> None:
        if not self.planned:  # still starting or waiting for its file: no engine yet
            self.note = "it has not started yet: nothing to pause (c cancels it)"
            return
        super().pause()

    def _set_paused(self, paused: bool) -> None:
        self._send("pause" if paused else "resume")

    def _stop(self) -> None:
        self._send("cancel")

    def _send(self, op: str) -> None:
        """Send a control in the background: on the connection when attached, else on
        one of its own; a cancel the run cannot take yet (it is still starting or
        waiting for its file) is SIGTERM, which it takes as Ctrl-C."""

        async def send() -> None:
            try:
                connection = self._connection
                if connection is not None:
                    await _control(connection, op)
                    return
                attached = await AttachedRun.connect(self.record.socket, CONNECT_S)
                async with attached:
                    await _control(attached, op)
            except (OSError, asyncio.TimeoutError) as err:
                if op == "cancel" and self._terminate():
                    return
                self.note = f"{op} did not reach the run: {err}"
                if op == "pause":
                    self.paused = False
                elif op == "cancel":
                    self.cancel_asked = False

        task = asyncio.ensure_future(send())
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    def _terminate(self) -> bool:
        record = self.record
        if record.host != platform.node() or not pid_alive(record.pid):
            return False
        with contextlib.suppress(OSError):
            os.kill(record.pid, signal.SIGTERM)
            return True
        return False

    # -- reading -----------------------------------------------------------------------

    @property
    def run_id(self) -> str:
        return self.record.run_id

    @property
    def name(self) -> str:
        models = self.state.models or self._models
        return f"#{self.number} {', '.join(models)}".rstrip()

    @property
    def planned(self) -> bool:
        return self.state.planned or self.progress.planned

    @property
    def status(self) -> str:
        record, state = self.record, self.state
        if self.running:
            if self.cancel_asked:
                return CANCELLING
            if not self.planned:
                if record.status == records.WAITING:
                    return WAITING
                return ATTACHING if self._viewers and not self.attached else STARTING
            stalled = state.store_stalled if self.attached else self.progress.stalled
            if stalled is not None:
                return STALLED
            return PAUSED if self.paused else RUNNING
        if self.failure:
            return FAILED
        if state.finished is not None:
            return CANCELLED if state.finished.cancelled else FINISHED
        return {
            records.FINISHED: FINISHED,
            records.CANCELLED: CANCELLED,
            records.FAILED: FAILED,
            records.NOTHING_TO_DO: NOTHING_TO_DO,
            KILLED: KILLED,
        }.get(record.status, LEFT)

    def elapsed_s(self, now: float) -> float:
        record = self.record
        if record.ended and record.ended_at:  # the run's own end, when its record says it
            self.clock.stop(_monotonic_of(record.ended_at))
        return self.clock.elapsed_s(now)


def _monotonic_of(wall: float) -> float:
    """The monotonic clock's reading at wall-clock time `wall` (a record's times)."""
    return time.monotonic() - (time.time() - wall)


def detached_line(run: DetachedRun) -> str | None:
    """The live view's status line where a detached run differs from a run of this
    process (starting, waiting, attaching, gone, ended before the view saw it); None
    where the common line says it."""
    record, status = run.record, run.status
    if status == WAITING:
        return (
            f"Run {record.run_id} waits for its database: another lctui process writes it. "
            "It starts when that one ends."
        )
    if status == STARTING:
        return f"Run {record.run_id} is starting in its own process (pid {record.pid})…"
    if status == ATTACHING:
        return f"Attaching to run {record.run_id}…"
    if status == KILLED:
        return (
            f"Run {record.run_id} is gone: its process ended without finishing it. "
            f"`{record.command}` resumes it (what is stored is skipped)."
        )
    if not run.running and run.state.finished is None and not run.failure:
        if status == NOTHING_TO_DO:
            return f"Run {record.run_id}: nothing to do, all its examples were already stored."
        return (
            f"Run {record.run_id} {status}: {record.done} scored, {plural(record.errors, 'error')} "
            f"of {record.to_do}."
        )
    return None


async def _control(attached: AttachedRun, op: str) -> None:
    sends: dict[str, Callable[[], Awaitable[None]]] = {
        "pause": attached.pause,
        "resume": attached.resume,
        "cancel": attached.cancel,
    }
    await sends[op]()


def _models(record: RunRecord) -> list[str]:
    """The models a run's command names (none when it cannot be read as `lctui run`)."""
    try:
        return list(parse_run_argv(record.argv).model)
    except LctuiError:
        return []
