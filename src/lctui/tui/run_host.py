"""The app's side of its runs: starts them on the app's loop, opens their views, says
when one ends, and asks before quitting while runs go.

The runs themselves are held by a `RunManager` (tui/state/run_manager.py); this host
adds what needs Textual: a timer that drains every run's events once a second (a run
nobody watches keeps no backlog), notifications, the live view and the Runs screen,
and the quit prompt (`QuitRunsScreen`): cancel the runs (finished work is kept) and
quit once they have stopped, or quit when they finish. Whatever closes the app, its
runs are cancelled and waited for before the store closes (`wind_down`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App

from lctui.backends import load_backend
from lctui.engine import RunRequest
from lctui.engine.runner import BackendLoader
from lctui.store import Store
from lctui.tui.state.run_manager import (
    CANCELLED,
    FAILED,
    LocalRun,
    ManagedRun,
    RunManager,
)

DRAIN_EVERY_S = 1.0
# How long quitting waits for cancelled runs to write what they finished and stop.
CANCEL_WAIT_S = 30.0


class RunHost:
    """The runs of one app (see the module docstring)."""

    def __init__(self, app: App[Any], store: Callable[[], Store]) -> None:
        self.app = app
        self._store = store
        self.manager = RunManager(on_end=self._ended)
        self.quit_when_done = False
        self._closing = False  # the app is closing: its screens are gone

    def mount(self) -> None:
        self.app.set_interval(DRAIN_EVERY_S, self.manager.drain)

    # -- runs and their views ------------------------------------------------------------

    def start(self, request: RunRequest, loader: BackendLoader = load_backend) -> LocalRun:
        """Start `request` beside the runs already going, and open its live view."""
        run = self.manager.start_local(request, self._store(), loader)
        self.show(run)
        return run

    def show(self, run: ManagedRun) -> None:
        from lctui.tui.screens.run import RunScreen

        screen = self.app.screen
        if not (isinstance(screen, RunScreen) and screen.run is run):
            self.app.push_screen(RunScreen(run))

    def show_list(self) -> None:
        from lctui.tui.screens.runs import RunsScreen

        if not isinstance(self.app.screen, RunsScreen):
            self.app.push_screen(RunsScreen())

    def _viewing(self, run: ManagedRun) -> bool:
        from lctui.tui.screens.run import RunScreen

        screen = self.app.screen
        return isinstance(screen, RunScreen) and screen.run is run

    def _ended(self, run: ManagedRun) -> None:
        if self._closing:
            return
        status = run.status
        if status == FAILED:
            self.app.notify(
                f"Run {run.name} failed: {run.failure}",
                title="Run failed",
                severity="error",
                timeout=10,
            )
        elif status == CANCELLED:
            self.app.notify(
                f"Run {run.name} cancelled; its finished examples are kept.",
                severity="warning",
            )
        elif not self._viewing(run):  # its live view says it, when it is on screen
            state = run.state
            if state.run_id is None:
                text = f"Run {run.name}: nothing to do, all its examples are already stored."
            else:
                text = (
                    f"Run {run.name} ({state.run_id}) finished: {state.done} done, "
                    f"{state.errors} errors. ctrl+r reloads the results."
                )
            self.app.notify(text, title="Run finished", timeout=10)
        if self.quit_when_done and not self.manager.going():
            self.app.exit()

    # -- quitting ------------------------------------------------------------------------

    def quit(self) -> None:
        """Quit, or, while runs go, ask what becomes of them. In the prompt, the quit
        key (ctrl+q) is the same as escape: stay."""
        from lctui.tui.screens.quit_runs import QuitRunsScreen

        if isinstance(self.app.screen, QuitRunsScreen):
            self.app.screen.dismiss(None)
            return
        going = self.manager.going()
        if not going:
            self.app.exit()
            return
        self.app.push_screen(QuitRunsScreen(going, waiting=self.quit_when_done), self._chosen)

    def _chosen(self, choice: str | None) -> None:
        from lctui.tui.screens.quit_runs import CANCEL, WAIT

        going = self.manager.going()
        if choice is None or not going:
            if not going and choice is not None:
                self.app.exit()
            return
        self.quit_when_done = True
        if choice == CANCEL:
            count = self.manager.cancel_all()
            self.app.notify(
                f"Cancelling {count} run(s); lctui quits once what they finished is written.",
                title="Quitting",
            )
            # A backend that does not stop must not keep the app open for ever.
            self.app.set_timer(CANCEL_WAIT_S, self.app.exit)
        elif choice == WAIT:
            paused = [run.name for run in going if run.paused]
            text = f"lctui quits when the {len(going)} run(s) going have finished."
            if paused:
                text += f" Paused, they never do: resume {', '.join(paused)} (p)."
            self.app.notify(text + " ctrl+q asks again.", title="Quitting", timeout=10)

    async def wind_down(self) -> None:
        """Cancel the runs still going and wait (a while) for them to stop: the app
        closes its store next, which their last writes need."""
        self._closing = True
        if self.manager.cancel_all():
            await self.manager.wait_all(CANCEL_WAIT_S)
        self.manager.drain()
