"""The live run screen: hosts the engine on the app's loop and shows the run as it goes.

The engine's sink is an `EventBuffer` (append only); a 20 Hz timer drains it into a
`RunState` and redraws what changed, so drawing never slows the engine and a burst
of tokens costs one frame. Keys: p pause/resume, c cancel, f/tab next example,
shift+tab previous, l follow the newest, enter inspect, escape back.

When the results file cannot be written, the status line says so with the store's
error and how much waits; the engine retries, holds new work once too much waits,
and goes on by itself when a write succeeds.

Escape while the run is going asks for a second escape: the engine lives in this
screen's worker, and leaving the screen cancels it (finished work is kept). Other
screens (results, compare, SQL, ...) open above this one instead, so the run goes on
while they are browsed; escape from them comes back here, and ctrl+n returns here
while the run is going (one run at a time).
"""

from __future__ import annotations

import asyncio
import time
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, ScrollableContainer, Vertical
from textual.css.query import NoMatches
from textual.widgets import Footer, Static
from textual.worker import Worker, WorkerState

from lctui.backends import load_backend
from lctui.core.errors import LctuiError
from lctui.core.events import StoreRecovered
from lctui.core.types import ServerShare
from lctui.engine import Engine, RunOutcome, RunRequest
from lctui.engine.runner import BackendLoader
from lctui.tui.screens.base import LctuiScreen
from lctui.tui.state.run_progress import EventBuffer, RunState, StreamView, cycle
from lctui.tui.state.server_shares import server_lines, server_rows
from lctui.tui.widgets.run_grid import RunGrid
from lctui.tui.widgets.server_log import ServerLogPanel
from lctui.tui.widgets.stream_panel import StreamPanel

FRAME_S = 1 / 20  # at most ~20 redraws a second, whatever the token rate
STATS_EVERY_S = 0.25  # grid, counts and status line
LEAVE_CONFIRM_S = 3.0


class RunScreen(LctuiScreen):
    """One run of the engine, watched live."""

    DEFAULT_CSS = """
    RunScreen #run-body { height: 1fr; }
    RunScreen #run-grid-box { width: 1fr; border: round $primary; padding: 0 1; }
    RunScreen #run-side { width: 1fr; }
    RunScreen #stream { height: 1fr; }
    RunScreen #run-timings, RunScreen #run-counts { height: 1; padding: 0 1; }
    RunScreen #run-status { height: 2; padding: 0 1; }
    RunScreen #run-error { height: auto; max-height: 3; padding: 0 1; display: none; }
    RunScreen #run-servers { height: auto; max-height: 8; padding: 0 1; display: none; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "pause", "Pause/resume", id="run-pause"),
        Binding("c", "cancel_run", "Cancel", id="run-cancel"),
        Binding("f", "next_focus", "Next example", id="run-next"),
        Binding("tab", "next_focus", "Next example", show=False),
        Binding("shift+tab", "previous_focus", "Previous example", show=False),
        Binding("l", "follow", "Follow newest", id="run-follow"),
        Binding("enter", "inspect", "Inspect", id="run-inspect"),
        Binding("escape", "back", "Back", id="run-back"),
    ]

    def __init__(self, request: RunRequest, *, loader: BackendLoader = load_backend) -> None:
        super().__init__()
        self.request = request
        self._loader = loader
        self.buffer = EventBuffer()
        self.state = RunState(
            [m.name for m in request.models], [t.name for t in request.tasks], request.lengths
        )
        self.engine: Engine | None = None
        self.worker: Worker[RunOutcome | None] | None = None
        self.outcome: RunOutcome | None = None
        self.failure: str | None = None
        self.paused = False
        self.focus_id: str | None = None
        self.follow = True
        self._started = time.monotonic()
        self._stats_at = 0.0
        self._status_key: tuple[object, ...] = ()
        self._leave_armed_until = 0.0
        self._final_drawn = False
        self._error_text = ""
        self._recovery_told: StoreRecovered | None = None
        self._servers_shown: tuple[dict[str, tuple[ServerShare, ...]], int] = ({}, 0)

    @property
    def running(self) -> bool:
        """True from creation (the engine starts on mount) until the engine has returned."""
        return self.worker is None or self.worker.state in (
            WorkerState.PENDING,
            WorkerState.RUNNING,
        )

    def compose(self) -> ComposeResult:
        with Horizontal(id="run-body"):
            with ScrollableContainer(id="run-grid-box") as box:
                box.border_title = "progress"
                box.can_focus = False
                yield RunGrid(self.state, id="run-grid")
            with Vertical(id="run-side"):
                yield StreamPanel(id="stream")
                # Servers lctui starts itself: their log explains a slow start or a crash.
                for spec in self.request.models:
                    if spec.backend == "vllm-server":
                        yield ServerLogPanel(spec.name, classes="server-log")
                yield Static("", id="run-timings")
                yield Static("", id="run-counts")
                # A model served from several base URLs: each server's share and health.
                yield Static("", id="run-servers")
        yield Static("", id="run-status")
        yield Static("", id="run-error", classes="error-text")
        yield Footer()

    def on_mount(self) -> None:
        self._started = time.monotonic()
        self.engine = Engine(self.lctui.store, self._loader, self.buffer)
        self.worker = self.run_worker(self._run(), exclusive=True, name="engine")
        self.set_interval(FRAME_S, self.tick)
        self.tick()

    async def _run(self) -> RunOutcome | None:
        assert self.engine is not None
        try:
            self.outcome = await self.engine.run(self.request)
        except LctuiError as exc:
            self.failure = str(exc)
        except Exception as exc:  # a backend bug must not take the whole app down
            self.failure = f"{type(exc).__name__}: {exc}"
        self.tick()
        if self.failure:
            self.notify(self.failure, title="Run failed", severity="error", timeout=10)
        elif self.outcome is not None and self.outcome.cancelled:
            self.notify("Cancelled; finished examples are kept.", severity="warning")
        elif self.app.screen is not self:  # browsing meanwhile: say that it is done
            self.notify(
                f"Run {self.state.run_id} finished: {self.state.done} done, "
                f"{self.state.errors} errors. ctrl+r reloads the results.",
                title="Run finished",
                timeout=10,
            )
        return self.outcome

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # The final drawing; also when cancelled while a model was still loading, when
        # the engine never planned and no RunFinished event will come.
        if event.worker is self.worker and event.state in (
            WorkerState.CANCELLED,
            WorkerState.SUCCESS,
            WorkerState.ERROR,
        ):
            self.tick()

    # -- drawing ------------------------------------------------------------------------

    def tick(self) -> None:
        """Apply buffered events and redraw what changed (the 20 Hz timer)."""
        if self._final_drawn:
            return
        for at, event in self.buffer.drain():
            self.state.apply(at, event)
        over = not self.running
        try:
            self._draw(over)
        except NoMatches:  # left with escape: the engine winds down after the screen
            return
        # Once the run is over and drawn, the timer has nothing left to do.
        self._final_drawn = over

    def _draw(self, over: bool) -> None:
        # The stream panel is the only part worth 20 frames a second; the grid, the
        # stats and the status line move at 4 (each repaint costs frame time).
        self._show_focus()
        now = time.monotonic()
        if over or now - self._stats_at >= STATS_EVERY_S:
            self._stats_at = now
            self.query_one(RunGrid).redraw()
            self._show_stats(now)
            self._show_status()

    def _show_focus(self) -> None:
        if self.follow:
            self.focus_id = self._newest()
        view = self.state.streams.get(self.focus_id) if self.focus_id else None
        self.query_one(StreamPanel).show(view, follow=self.follow, paused=self.paused)

    def _newest(self) -> str | None:
        """Keep the followed stream until it ends, then move to the newest running one."""
        streams = self.state.streams
        current = streams.get(self.focus_id) if self.focus_id else None
        if current is not None and not current.finished:
            return current.generation_id
        for generation_id in reversed(self.state.order):
            if not streams[generation_id].finished:
                return generation_id
        return self.state.order[-1] if self.state.order else None

    def _show_stats(self, now: float) -> None:
        state = self.state
        ttft = state.mean_ttft
        end = state.finished.elapsed_s if state.finished else now - self._started
        rate = state.tokens_per_s(now) if self.running else state.average_tokens_per_s
        timings = [
            f"tok/s {rate:.0f}" if rate is not None else "tok/s —",
            f"ttft {ttft:.2f} s" if ttft is not None else "ttft —",
            f"elapsed {end:.1f} s",
        ]
        # Fixed-size lines: repaint them without a layout pass of the screen.
        self.query_one("#run-timings", Static).update("  ".join(timings), layout=False)
        counts = (
            f"queue {state.queue}  running {state.in_flight}  done {state.done}  "
            f"errors {state.errors}"
        )
        self.query_one("#run-counts", Static).update(counts, layout=False)
        self._show_servers()

    def _show_servers(self) -> None:
        servers = self.state.servers
        # The side column's width: the panel has none while it is hidden.
        width = max(20, (self.query_one("#run-side").size.width or 80) - 2)
        if (servers, width) == self._servers_shown:
            return
        self._servers_shown = (dict(servers), width)
        panel = self.query_one("#run-servers", Static)
        rows = server_rows(servers)
        panel.update("\n".join(server_lines(rows, width)))
        panel.display = bool(rows)

    def _show_status(self) -> None:
        key = (self.state.version, self.paused, self.running, self.failure, self.outcome)
        if key == self._status_key:
            return
        self._status_key = key
        self.query_one("#run-status", Static).update(self.status_line(), layout=False)
        text = self._error_line()
        if text != self._error_text:  # errors are rare: only then a layout pass
            self._error_text = text
            line = self.query_one("#run-error", Static)
            line.update(text)
            line.display = bool(text)

    def _error_line(self) -> str:
        """The line under the status: the run's failure, a stalled store, the last error."""
        stalled = self.state.store_stalled
        recovered = self.state.store_recovered
        if recovered is not None and recovered is not self._recovery_told:
            self._recovery_told = recovered
            self.notify(
                f"Writing works again: {recovered.written} row(s) written after "
                f"{recovered.stalled_s:.0f} s. The run goes on.",
                title="Results file",
            )
        if self.failure:
            return f"last error: {self.failure}"
        if stalled is not None:
            return stalled.describe()
        return f"last error: {self.state.last_error}" if self.state.last_error else ""

    def status_line(self) -> str:
        state = self.state
        total = sum(c.total for c in state.cells.values())
        finished = sum(c.finished for c in state.cells.values())
        mean = state.mean_score
        mean_text = f"; mean score {mean:.2f}" if mean is not None else ""
        if self.failure:
            return "Failed (the error is below); finished examples are kept. escape: back"
        if self.running:
            if not state.planned:
                return f"Loading {', '.join(state.models)} and planning the examples…"
            stalled = state.store_stalled
            if stalled is not None:
                held = "new examples wait until it can" if stalled.paused else "retrying"
                return (
                    f"Cannot write the results file: {stalled.waiting} finished result(s) "
                    f"wait in memory ({held}; the error is below). {finished}/{total} finished."
                )
            if self.paused:
                return f"Paused at {finished}/{total}: no new example starts (p resumes)."
            return f"Running {state.run_id}: {finished}/{total} finished{mean_text}."
        if self.outcome is not None and self.outcome.run_id is None and not state.finished:
            return (
                f"Nothing to do: all {self.outcome.planned} examples are already stored "
                "(choose another seed or a larger n)."
            )
        if state.finished is None or state.finished.cancelled:
            return (
                f"Cancelled: kept {state.done + state.errors} finished example(s); start "
                "the same run again to do the rest."
            )
        return (
            f"Finished: {state.done} scored, {state.errors} error(s), {state.skipped} already "
            f"stored{mean_text}. enter: inspect · escape: back"
        )

    # -- actions ------------------------------------------------------------------------

    def action_pause(self) -> None:
        if self.engine is None or not self.running:
            self.notify("The run is over; nothing to pause.")
            return
        self.paused = not self.paused
        if self.paused:
            self.engine.pause()
        else:
            self.engine.resume()
        self._stats_at = 0.0  # show the new state now
        self.tick()

    def action_cancel_run(self) -> None:
        if not self.running or self.worker is None:
            self.notify("The run is over; nothing to cancel.")
            return
        # Paused workers wait on the engine's event; cancelling reaches them there too.
        self.worker.cancel()

    def _cycle_example(self, step: int) -> None:
        self.follow = False
        self.focus_id = cycle(self.state.order, self.focus_id, step)
        # Drawn now, not at the next tick: a key press must show within a frame.
        self._show_focus()

    def action_next_focus(self) -> None:
        self._cycle_example(1)

    def action_previous_focus(self) -> None:
        self._cycle_example(-1)

    def action_follow(self) -> None:
        self.follow = True
        self._show_focus()

    async def action_inspect(self) -> None:
        view: StreamView | None = self.state.streams.get(self.focus_id) if self.focus_id else None
        if view is None:
            self.notify("No example yet.", severity="warning")
            return
        if not view.finished:
            self.notify("This example is still streaming; enter opens finished ones.")
            return
        # The engine writes in batches; the inspector reads the file, so write it first.
        await asyncio.to_thread(self.lctui.store.flush)
        self.lctui.open_generation(view.generation_id)

    def action_back(self) -> None:
        if not self.running:
            self.app.pop_screen()
            return
        now = time.monotonic()
        if now < self._leave_armed_until:
            if self.worker is not None:
                self.worker.cancel()
            self.app.pop_screen()
            return
        self._leave_armed_until = now + LEAVE_CONFIRM_S
        self.notify(
            "The run is still going. Press escape again to cancel it and go back "
            "(finished examples are kept), or c to cancel and stay.",
            title="Leave the run?",
            severity="warning",
            timeout=LEAVE_CONFIRM_S,
        )
