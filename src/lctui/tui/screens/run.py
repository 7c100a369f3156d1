"""The live view of one run of the app's run manager: its grid, focused stream and counts.

The run belongs to the app (tui/state/run_manager.py), not to this screen: its engine
writes into the run's `EventBuffer` whether or not a view is open. A 20 Hz timer drains
the buffer into the run's `RunState` and redraws what changed, so drawing never slows
the engine and a burst of tokens costs one frame. Keys: p pause/resume, c cancel, f/tab
next example, shift+tab previous, l follow the newest, enter inspect, escape back.

Pausing stops new examples from starting; those already streaming finish (a request
cannot be held half-way on every backend: vLLM and HF generate on their own), and the
status line and the stream panel say so. Time to first token counts as soon as a
stream's first text arrives, not when the example ends; the line shows the focused
example's model's, and `—` while none of its generations has shown text. Elapsed runs
from Start (models loading included) and stops at the end; once the run has ended, its
tok/s is the run's mean (core/measures.py).

Leaving the view (escape, or any other screen) never stops the run; cancelling is `c`
here or on the Runs screen. Opening the view again shows the run as it is by then,
focused where it was.

A detached run (a process of its own: tui/state/detached_run.py) is shown the same way:
the view attaches to it while it is open and detaches when it closes; p and c reach
the run through its socket, and the status line says when it is still starting,
waits for its file, or has gone away without finishing.

When the results file cannot be written, the status line says so with the store's
error and how much waits; the engine retries, holds new work once too much waits,
and goes on by itself when a write succeeds.
"""

from __future__ import annotations

import asyncio
import time
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, ScrollableContainer, Vertical
from textual.css.query import NoMatches
from textual.widgets import Static

from lctui.core.events import StoreRecovered
from lctui.core.formatting import per_second
from lctui.core.text import escape_unprintable
from lctui.core.types import ServerShare
from lctui.store import Store
from lctui.store.read.generations import get_generation
from lctui.tui.screens.base import LctuiScreen
from lctui.tui.shown import shown, shown_line
from lctui.tui.state.detached_run import DetachedRun, detached_line
from lctui.tui.state.run_manager import LocalRun, ManagedRun
from lctui.tui.state.run_progress import RunState, StreamView, cycle
from lctui.tui.state.server_shares import server_lines, server_rows
from lctui.tui.widgets.key_footer import KeyFooter
from lctui.tui.widgets.run_grid import RunGrid
from lctui.tui.widgets.server_log import ServerLogPanel
from lctui.tui.widgets.stream_panel import StreamPanel

FRAME_S = 1 / 20  # at most ~20 redraws a second, whatever the token rate
STATS_EVERY_S = 0.25  # grid, counts and status line


class RunScreen(LctuiScreen):
    """One run of the manager, watched live."""

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
        Binding(
            "p",
            "pause",
            "Pause/resume",
            id="run-pause",
            tooltip="Pause: no new example starts; those running finish. p again resumes",
        ),
        Binding("c", "cancel_run", "Cancel", id="run-cancel"),
        Binding("f", "next_focus", "Next example", id="run-next"),
        Binding("tab", "next_focus", "Next example", show=False),
        Binding("shift+tab", "previous_focus", "Previous example", show=False),
        Binding("l", "follow", "Follow newest", id="run-follow"),
        Binding("enter", "inspect", "Inspect", id="run-inspect"),
        Binding("escape", "back", "Back", id="run-back"),
    ]

    def __init__(self, run: ManagedRun) -> None:
        super().__init__()
        self.run = run
        self._stats_at = 0.0
        self._status_key: tuple[object, ...] = ()
        self._final_drawn = False
        self._error_text = ""
        self._recovery_told: StoreRecovered | None = None
        self._servers_shown: tuple[dict[str, tuple[ServerShare, ...]], int] = ({}, 0)

    @property
    def state(self) -> RunState:
        return self.run.state

    def compose(self) -> ComposeResult:
        with Horizontal(id="run-body"):
            with ScrollableContainer(id="run-grid-box") as box:
                box.border_title = f"progress · run #{self.run.number}" + (
                    "" if self.run.in_process else " · detached"
                )
                box.can_focus = False
                yield RunGrid(self.state, id="run-grid")
            with Vertical(id="run-side"):
                yield StreamPanel(id="stream")
                # Servers lctui starts itself: their log explains a slow start or a crash.
                for spec in self.run.request.models if self.run.request else []:
                    if spec.backend == "vllm-server":
                        yield ServerLogPanel(spec.name, classes="server-log")
                yield Static("", id="run-timings")
                yield Static("", id="run-counts")
                # A model served from several base URLs: each server's share and health.
                yield Static("", id="run-servers")
        yield Static("", id="run-status")
        yield Static("", id="run-error", classes="error-text")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.run.watch()  # a detached run is attached while the view is open
        self.set_interval(FRAME_S, self.tick)
        self.tick()

    def on_unmount(self) -> None:
        self.run.unwatch()

    # -- drawing ------------------------------------------------------------------------

    def tick(self) -> None:
        """Apply buffered events and redraw what changed (the 20 Hz timer)."""
        if self._final_drawn:
            return
        self.run.drain()
        over = not self.run.running
        try:
            self._draw(over)
        except NoMatches:  # the screen is being removed
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
            self.query_one(RunGrid).redraw(self.state)
            self._show_stats(now)
            self._show_status()

    def _show_focus(self) -> None:
        run = self.run
        if run.follow:
            run.focus_id = self._newest()
        view = self.state.streams.get(run.focus_id) if run.focus_id else None
        self.query_one(StreamPanel).show(view, follow=run.follow, paused=run.paused)

    def _newest(self) -> str | None:
        """Keep the followed stream until it ends, then move to the newest running one."""
        streams = self.state.streams
        focus_id = self.run.focus_id
        current = streams.get(focus_id) if focus_id else None
        if current is not None and not current.finished:
            return current.generation_id
        for generation_id in reversed(self.state.order):
            if not streams[generation_id].finished:
                return generation_id
        return self.state.order[-1] if self.state.order else None

    def _show_stats(self, now: float) -> None:
        state = self.state
        # The focused example's model: a reference model's instant answers say nothing
        # of how long another model takes to start answering.
        focused = state.streams.get(self.run.focus_id) if self.run.focus_id else None
        ttft = state.model_ttft(focused.cell.model) if focused else state.mean_ttft
        rate = state.tokens_per_s(now)  # the run's mean once it has ended
        timings = [
            f"tok/s {per_second(rate)}" if rate is not None else "tok/s —",
            f"ttft {ttft:.2f} s" if ttft is not None else "ttft —",
            f"elapsed {self.run.elapsed_s(now):.1f} s",
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
        panel.update(
            shown("\n".join(escape_unprintable(line) for line in server_lines(rows, width)))
        )
        panel.display = bool(rows)

    def _show_status(self) -> None:
        run = self.run
        key = (self.state.version, run.paused, run.running, run.failure, run.outcome, run.status)
        if key == self._status_key:
            return
        self._status_key = key
        self.query_one("#run-status", Static).update(shown_line(self.status_line()), layout=False)
        text = self._error_line()
        if text != self._error_text:  # errors are rare: only then a layout pass
            self._error_text = text
            line = self.query_one("#run-error", Static)
            line.update(shown_line(text))
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
        if self.run.failure:
            return f"last error: {self.run.failure}"
        if stalled is not None:
            return stalled.describe()
        return f"last error: {self.state.last_error}" if self.state.last_error else ""

    def status_line(self) -> str:
        state, run = self.state, self.run
        if isinstance(run, DetachedRun) and (line := detached_line(run)):
            return line
        total = sum(c.total for c in state.cells.values())
        finished = sum(c.finished for c in state.cells.values())
        mean = state.mean_score
        mean_text = f"; mean score {mean:.2f}" if mean is not None else ""
        if run.failure:
            return "Failed (the error is below); finished examples are kept. escape: back"
        if run.running:
            if run.cancel_asked:
                return f"Cancelling at {finished}/{total}: finished examples are kept…"
            if not state.planned:
                return f"Loading {', '.join(state.models)} and planning the examples…"
            stalled = state.store_stalled
            if stalled is not None:
                held = "new examples wait until it can" if stalled.paused else "retrying"
                return (
                    f"Cannot write the results file: {stalled.waiting} finished result(s) "
                    f"wait in memory ({held}; the error is below). {finished}/{total} finished."
                )
            if run.paused:
                running = state.in_flight
                tail = {0: "none is running", 1: "the one running finishes"}.get(
                    running, f"the {running} running finish"
                )
                return f"Paused at {finished}/{total}: no new example starts; {tail} (p resumes)."
            return f"Running {state.run_id}: {finished}/{total} finished{mean_text}."
        if run.outcome is not None and run.outcome.run_id is None and not state.finished:
            return (
                f"Nothing to do: every example planned ({run.outcome.planned}) is already "
                "stored (choose another seed or a larger n)."
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
        run = self.run
        if not run.running:
            self.notify("The run is over; nothing to pause.")
            return
        if run.paused:
            run.resume()
            self.notify("Resumed: new examples start again.", title="Run resumed")
        else:
            run.pause()
            if not run.paused:  # a detached run that has not started yet
                self.notify("The run has not started yet: nothing to pause (c cancels it).")
                return
            running = self.state.in_flight
            streaming = {0: "", 1: "; the one running finishes streaming"}.get(
                running, f"; the {running} running finish streaming"
            )
            self.notify(f"No new example starts until p resumes{streaming}.", title="Run paused")
        self._stats_at = 0.0  # show the new state now
        self.tick()

    def action_cancel_run(self) -> None:
        if not self.run.cancel():
            self.notify("The run is over; nothing to cancel.")
            return
        self._stats_at = 0.0
        self.tick()

    def _cycle_example(self, step: int) -> None:
        self.run.follow = False
        self.run.focus_id = cycle(self.state.order, self.run.focus_id, step)
        # Drawn now, not at the next tick: a key press must show within a frame.
        self._show_focus()

    def action_next_focus(self) -> None:
        self._cycle_example(1)

    def action_previous_focus(self) -> None:
        self._cycle_example(-1)

    def action_follow(self) -> None:
        self.run.follow = True
        self._show_focus()

    async def action_inspect(self) -> None:
        focus_id = self.run.focus_id
        view: StreamView | None = self.state.streams.get(focus_id) if focus_id else None
        if view is None:
            self.notify("No example yet.", severity="warning")
            return
        if not view.finished:
            self.notify("This example is still streaming; enter opens finished ones.")
            return
        # The engine writes in batches; the inspector reads the file, so write it first.
        if isinstance(self.run, LocalRun):
            await asyncio.to_thread(self.lctui.store.flush)
        elif not self.run.in_process:  # its own process writes it, within a second or so
            self.run_query(
                _written,
                view.generation_id,
                group="run-inspect",
                done=lambda found: self.lctui.open_generation(view.generation_id),
            )
            return
        self.lctui.open_generation(view.generation_id)

    def action_back(self) -> None:
        """Leave the view; the run goes on (the Runs screen, G, lists it)."""
        if self.run.running:
            where = "" if self.run.in_process else " in its own process (this view detaches)"
            self.notify(
                f"Run {self.run.name} goes on{where}. G lists the runs; enter there opens "
                "this view.",
                timeout=4,
            )
        self.app.pop_screen()


WRITTEN_WAIT_S = 3.0


def _written(store: Store, generation_id: str) -> bool:
    """Whether the run of another process has written `generation_id` yet, waiting for
    its next flush or two."""
    deadline = time.monotonic() + WRITTEN_WAIT_S
    while get_generation(store, generation_id) is None:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True
