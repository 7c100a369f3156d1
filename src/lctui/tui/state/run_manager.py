"""The runs of a TUI session: each one's engine task, event buffer, state and controls.

Runs belong to the app, not to a screen: `RunManager` starts and holds every run of the
session, several at once, each with its own request, models and limits. A run's engine
(or whatever feeds its events) is an asyncio task on the app's loop; its sink is an
`EventBuffer`, and `drain` applies what it buffered to its `RunState`, which the live
view and the Runs screen read. Leaving a screen never touches a run: only `cancel` (an
explicit action) stops one, keeping everything it finished, as Ctrl-C does headless.

Nothing here imports Textual: the app drains the runs on a timer (tui/run_host.py) and
the screens draw what the states hold.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable

from lctui.core.errors import LctuiError
from lctui.core.measures import Stopwatch

# What a run is doing, as the Runs screen's status column says it: the words of every
# display of a run (core/statuses.py), imported from here by the TUI.
from lctui.core.statuses import CANCELLED as CANCELLED
from lctui.core.statuses import CANCELLING as CANCELLING
from lctui.core.statuses import FAILED as FAILED
from lctui.core.statuses import FINISHED as FINISHED
from lctui.core.statuses import LOADING as LOADING
from lctui.core.statuses import NOTHING_TO_DO as NOTHING_TO_DO
from lctui.core.statuses import PAUSED as PAUSED
from lctui.core.statuses import RUNNING as RUNNING
from lctui.core.statuses import STALLED as STALLED
from lctui.engine import Engine, RunOutcome, RunRequest
from lctui.engine.runner import BackendLoader
from lctui.store import Store
from lctui.tui.state.run_progress import EventBuffer, RunState


class ManagedRun:
    """One run of the session. Subclasses say what feeds its events (`_work`) and how
    it pauses and stops; the rest (state, status, the end) is the same for every run."""

    # Whether the run lives in this process (ends with the app): False for a run of its
    # own process that the app only watches (tui/state/detached_run.py).
    in_process = True

    def __init__(self, request: RunRequest | None) -> None:
        self.number = 0  # the manager numbers runs 1, 2, ... in the order they start
        self.request = request
        self.buffer = EventBuffer()
        models = [m.name for m in request.models] if request else []
        tasks = [t.name for t in request.tasks] if request else []
        self.state = RunState(models, tasks, request.lengths if request else [])
        # Elapsed from the start (models loading included) to the end (core/measures.py).
        self.clock = Stopwatch(time.monotonic())
        self.ended_at: float | None = None
        self.paused = False
        self.cancel_asked = False
        self.failure: str | None = None
        self.outcome: RunOutcome | None = None
        # The live view's choice of stream, kept while no view shows the run.
        self.focus_id: str | None = None
        self.follow = True
        self._task: asyncio.Task[None] | None = None
        self._on_end: Callable[[ManagedRun], None] | None = None

    # -- what subclasses provide -----------------------------------------------------

    async def _work(self) -> RunOutcome | None:
        """Feed `self.buffer` until the run ends; its outcome, if it has one."""
        raise NotImplementedError

    def _set_paused(self, paused: bool) -> None:
        raise NotImplementedError

    def _stop(self) -> None:
        """Ask the run to stop (once): by default, cancel its task."""
        if self._task is not None:
            self._task.cancel()

    def watch(self) -> None:
        """A live view shows the run (from its mount to its unmount)."""

    def unwatch(self) -> None:
        """A live view of the run closed."""

    def let_go(self) -> None:
        """The app closes: stop following a run that goes on without it (nothing for a
        run of this process, which the app cancels)."""

    # -- the run's life ----------------------------------------------------------------

    def start(self, on_end: Callable[[ManagedRun], None] | None = None) -> None:
        """Start the run's task on the running loop; `on_end(run)` once it has ended."""
        self._on_end = on_end
        self.clock = Stopwatch(time.monotonic())
        self._task = asyncio.get_running_loop().create_task(
            self._host(), name=f"lctui-run-{self.number}"
        )

    async def _host(self) -> None:
        try:
            self.outcome = await self._work()
        except asyncio.CancelledError:
            # Cancelled before the engine planned (a model still loading): no run was
            # recorded, so nothing is lost. The task ends here, not as cancelled.
            self.outcome = None
        except LctuiError as exc:
            self.failure = str(exc)
        except Exception as exc:  # a backend bug must not take the whole app down
            self.failure = f"{type(exc).__name__}: {exc}"
        finally:
            self.ended_at = time.monotonic()
            self.clock.stop(self.ended_at)
            self.state.end(self.ended_at)  # a run that failed has its means too
            self.paused = False
            if self._on_end is not None:
                self._on_end(self)

    @property
    def running(self) -> bool:
        """True from creation until the run has ended (before `on_end` is called)."""
        return self.ended_at is None

    async def wait(self) -> None:
        """Return once the run has ended."""
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(self._task)

    # -- controls ----------------------------------------------------------------------

    def pause(self) -> None:
        if self.running and not self.paused:
            self.paused = True
            self._set_paused(True)

    def resume(self) -> None:
        if self.running and self.paused:
            self.paused = False
            self._set_paused(False)

    def cancel(self) -> bool:
        """Stop the run, keeping what it finished. False when it is over already."""
        if not self.running:
            return False
        if not self.cancel_asked:
            self.cancel_asked = True
            # Paused workers wait on the engine's event; cancelling reaches them there.
            self._stop()
        return True

    # -- reading -----------------------------------------------------------------------

    def drain(self) -> None:
        """Apply the buffered events to the state (the UI's timers call this)."""
        if len(self.buffer):
            for at, event in self.buffer.drain():
                self.state.apply(at, event)
            if self.state.finished_at is not None:  # the run said it ended
                self.clock.stop(self.state.finished_at)

    @property
    def status(self) -> str:
        """One word for the run: loading, running, paused, stalled, cancelling, or how it
        ended (finished, cancelled, failed, nothing to do)."""
        state = self.state
        if self.failure:
            return FAILED
        if self.running:
            if self.cancel_asked:
                return CANCELLING
            if not state.planned:
                return LOADING
            if state.store_stalled is not None:
                return STALLED
            return PAUSED if self.paused else RUNNING
        if self.outcome is not None and self.outcome.run_id is None and not state.planned:
            return NOTHING_TO_DO
        if state.finished is None or state.finished.cancelled:
            return CANCELLED
        return FINISHED

    @property
    def run_id(self) -> str | None:
        """The run's id once known (the engine's, when it has planned)."""
        return self.state.run_id

    @property
    def name(self) -> str:
        """`#2 gold, smollm2-135m`: the session's number and the run's models."""
        return f"#{self.number} {', '.join(self.state.models)}".rstrip()

    def elapsed_s(self, now: float) -> float:
        """Seconds since the run started, models loading included, to its end; never
        less than it said before."""
        return self.clock.elapsed_s(now)


class LocalRun(ManagedRun):
    """A run whose engine runs in this process, on the app's loop, over the app's store.

    It writes from start to end: the store holds the file's claim meanwhile
    (`Store.begin_writing`; a store that lends its file while idle takes it back, and
    the run fails with the reason when another process writes the file)."""

    def __init__(self, request: RunRequest, store: Store, loader: BackendLoader) -> None:
        super().__init__(request)
        self.store = store
        self.engine = Engine(store, loader, self.buffer)

    async def _work(self) -> RunOutcome | None:
        assert self.request is not None
        taking = asyncio.ensure_future(asyncio.to_thread(self.store.begin_writing))
        try:
            await asyncio.shield(taking)
        except asyncio.CancelledError:
            # Cancelled while the claim is being taken (in a thread, which goes on):
            # give it back once taken, so the count of writes stays true.
            with contextlib.suppress(LctuiError):
                await taking
                await asyncio.to_thread(self.store.end_writing)
            raise
        try:
            return await self.engine.run(self.request)
        finally:
            # Shielded: a cancel while the file is handed over must not leave it half so.
            await asyncio.shield(asyncio.to_thread(self.store.end_writing))

    def _set_paused(self, paused: bool) -> None:
        if paused:
            self.engine.pause()
        else:
            self.engine.resume()


class RunManager:
    """Every run of the session, in start order; several go at once."""

    def __init__(self, on_end: Callable[[ManagedRun], None] | None = None) -> None:
        self.runs: list[ManagedRun] = []
        self._on_end = on_end

    def add(self, run: ManagedRun) -> ManagedRun:
        """Number `run`, hold it and start it on the running loop."""
        run.number = len(self.runs) + 1
        self.runs.append(run)
        run.start(self._ended)
        return run

    def start_local(self, request: RunRequest, store: Store, loader: BackendLoader) -> LocalRun:
        run = LocalRun(request, store, loader)
        self.add(run)
        return run

    def _ended(self, run: ManagedRun) -> None:
        run.drain()  # its last events (RunFinished) are read before anyone is told
        if self._on_end is not None:
            self._on_end(run)

    def going(self) -> list[ManagedRun]:
        """The runs of this process that are going: what quitting asks about and what
        closing the app cancels (a detached run goes on without the app)."""
        return [run for run in self.runs if run.running and run.in_process]

    def find(self, run_id: str) -> ManagedRun | None:
        """The run of the session with this run id (a detached run's, or an engine's)."""
        for run in self.runs:
            if run_id in (run.run_id, run.state.run_id):
                return run
        return None

    async def let_go(self, timeout: float) -> None:
        """Stop following the runs that go on without the app (and wait for that)."""
        followed = [run for run in self.runs if run.running and not run.in_process]
        for run in followed:
            run.let_go()
        if followed:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.gather(*(run.wait() for run in followed)), timeout)

    def drain(self) -> None:
        """Apply every run's buffered events (so a run nobody watches holds no backlog)."""
        for run in self.runs:
            run.drain()

    def cancel_all(self) -> int:
        """Cancel every run that is going; how many were."""
        return sum(run.cancel() for run in self.going())

    async def wait_all(self, timeout: float | None = None) -> bool:
        """Wait until every run has ended (at most `timeout` s); whether they all have."""
        going = self.going()
        if not going:
            return True
        waiting = asyncio.gather(*(run.wait() for run in going))
        try:
            await asyncio.wait_for(waiting, timeout)
        except asyncio.TimeoutError:
            return False
        return True
