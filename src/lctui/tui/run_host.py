"""The app's side of its runs: starts them, follows the detached runs of its database,
opens their views, says when one ends, and asks before quitting while runs go.

The runs themselves are held by a `RunManager` (tui/state/run_manager.py); this host
adds what needs Textual: a timer that drains every run's events once a second (a run
nobody watches keeps no backlog), notifications, the live view and the Runs screen,
and the quit prompt (`QuitRunsScreen`): cancel the runs (finished work is kept) and
quit once they have stopped, quit when they finish, or leave them running detached
(each is cancelled and started again in a process of its own with the same command,
which resumes it). Whatever closes the app, its own runs are cancelled and waited for
before the store closes (`wind_down`); detached runs are let go, never stopped.

Detached runs: every few seconds the host lists the runs folder (`live_runs`) and
follows each run of this database it does not hold yet as a `DetachedRun`. One file has
one writer: the app holds the file's claim only while it writes (`Store.lend_when_idle`),
so a run it starts in the background, or a headless run started anywhere, may write
the file whenever the app does not. Meanwhile the app reads on, read-only, and says
so (`look` finds the claim another process holds); once no other process writes the
file and no detached run of it goes on, the app may write it again, as it does for a
file it opened read-only because another lctui process wrote it.
"""

from __future__ import annotations

import asyncio
import platform
from collections.abc import Sequence, Sized
from pathlib import Path
from typing import Any, Protocol

from rich.text import Text
from textual.app import App

from lctui.backends import load_backend
from lctui.cli.run import detach_argv
from lctui.cli.run_args import request_argv
from lctui.core.config import Config
from lctui.core.errors import LctuiError
from lctui.core.run_record import RunRecord
from lctui.core.text import plural
from lctui.engine import RunRequest
from lctui.engine.attach import live_runs
from lctui.engine.runner import BackendLoader
from lctui.store import Store
from lctui.tui.state.detached_run import KILLED, LEFT, DetachedRun
from lctui.tui.state.run_manager import (
    CANCELLED,
    FAILED,
    NOTHING_TO_DO,
    LocalRun,
    ManagedRun,
    RunManager,
)

DRAIN_EVERY_S = 1.0
LOOK_EVERY_S = 3.0  # how often the runs folder is read for detached runs of the file
# How long quitting waits for cancelled runs to write what they finished and stop.
CANCEL_WAIT_S = 30.0
LET_GO_WAIT_S = 2.0


class FileOwner(Protocol):
    """What the host needs of the app besides Textual: its results file, how it holds it."""

    db_path: Path
    config: Config
    read_only: bool
    # Read-only only while another lctui process writes the file (a run the app started
    # in the background, or one that found it idle or writing it at start): the app may
    # write it again once free.
    writable_later: bool

    @property
    def store(self) -> Store: ...


class RunHost:
    """The runs of one app (see the module docstring)."""

    def __init__(self, app: App[Any], owner: FileOwner) -> None:
        self.app = app
        self.owner = owner
        self.manager = RunManager(on_end=self._ended)
        self.quit_when_done = False
        self.left_running: list[RunRecord] = []  # what "leave them running" started
        self._closing = False  # the app is closing: its screens are gone
        self._handing = False  # the file is being handed to a detached run
        self._looking: asyncio.Future[None] | None = None
        self._leaving: asyncio.Future[list[RunRecord]] | None = None

    def mount(self) -> None:
        self.app.set_interval(DRAIN_EVERY_S, self.manager.drain)
        self.app.set_interval(LOOK_EVERY_S, self.look)
        self.look()

    # -- runs and their views ------------------------------------------------------------

    def start(self, request: RunRequest, loader: BackendLoader = load_backend) -> LocalRun:
        """Start `request` beside the runs already going, and open its live view."""
        run = self.manager.start_local(request, self.owner.store, loader)
        self.show(run)
        return run

    async def start_background(self, request: RunRequest) -> DetachedRun | None:
        """Start `request` as `lctui run --detach` would (the same command), hand it the
        file and open its live view; None, having said why, when it cannot start."""
        going = self.manager.going()
        db = self.owner.db_path
        if going or self.owner.store.writes_going:
            if going:
                what = (
                    f"{plural(len(going), 'run')} of this lctui {_verb(going, 'writes', 'write')}"
                )
                after = _verb(going, "it ends", "they end")
            else:
                what, after = "A re-score of this lctui writes", "it ends"
            self.app.notify(
                f"{what} {db.name}, and a file has one writer: start this run once "
                f"{after}, or here (untick 'in background').",
                title="Cannot start in the background",
                severity="warning",
                timeout=10,
            )
            return None
        try:
            argv = request_argv(request, db, self.owner.config.path)
        except LctuiError as exc:
            self.app.notify(str(exc), title="Cannot start in the background", severity="error")
            return None
        self._handing = True  # what the runs folder shows meanwhile is this run
        try:
            # The idle app holds no claim (Store.lend_when_idle): the file is the run's.
            self.owner.read_only = self.owner.writable_later = True
            try:
                record = await asyncio.to_thread(detach_argv, argv)
            except LctuiError as exc:
                self._writable_again(quiet=True)
                self.app.notify(str(exc), title="Cannot start in the background", severity="error")
                return None
            run = DetachedRun(record, request)
            self.manager.add(run)
        finally:
            self._handing = False
        self.show(run)
        self.app.notify(
            f"Run {record.run_id} goes on in a process of its own, also once lctui closes: "
            f"G lists it, `lctui attach {record.run_id}` watches it from any terminal. "
            f"{db.name} is its to write until it ends (new runs wait until then).",
            title="Started in the background",
            timeout=10,
        )
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

    # -- detached runs of the file -------------------------------------------------------

    def look(self) -> None:
        """Look for detached runs of the file (in the background; once at a time)."""
        if self._looking is None or self._looking.done():
            self._looking = asyncio.ensure_future(self._look())

    async def _look(self) -> None:
        store = self.owner.store

        def survey() -> tuple[list[RunRecord], bool]:
            return live_runs(ended=False), store.written_elsewhere()

        try:
            found, elsewhere = await asyncio.to_thread(survey)
        except (OSError, LctuiError):
            return
        if self._closing or self._handing:
            return
        db = self.owner.db_path
        here = platform.node()
        ours = [r for r in found if r.host == here and _same_file(r.db, db)]
        for record in reversed(ours):  # oldest first: the table lists runs as they began
            if self.manager.find(record.run_id) is None:
                self.manager.add(DetachedRun(record))
        followed = any(run.running for run in self.manager.runs if not run.in_process)
        if self.owner.writable_later:
            if not ours and not followed and not elsewhere:
                self._writable_again()
        elif elsewhere and not self.owner.read_only:
            self._written_elsewhere()

    def _written_elsewhere(self) -> None:
        """Another process took the file the idle app lent (a headless run): read on."""
        self.owner.read_only = self.owner.writable_later = True
        self.app.notify(
            f"Another lctui process writes {self.owner.db_path.name} (a headless run? G lists "
            "it): read-only meanwhile, the results refresh as it writes; runs and re-scores "
            "can start here again once it has ended.",
            title="Read-only",
            timeout=10,
        )

    def _writable_again(self, quiet: bool = False) -> None:
        """No other process writes the file: the app may (it claims it for each write)."""
        self.owner.read_only = self.owner.writable_later = False
        if not quiet:
            self.app.notify(
                f"No other lctui process writes {self.owner.db_path.name} now: runs can "
                "start here again (ctrl+n).",
                title="Results file",
            )

    # -- the end of a run ----------------------------------------------------------------

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
        elif isinstance(run, DetachedRun):
            self._detached_ended(run, status)
        elif not self._viewing(run):  # its live view says it, when it is on screen
            state = run.state
            if state.run_id is None:
                text = f"Run {run.name}: nothing to do, all its examples are already stored."
            else:
                text = (
                    f"Run {run.name} ({state.run_id}) finished: {state.done} done, "
                    f"{plural(state.errors, 'error')}. ctrl+r reloads the results."
                )
            self.app.notify(text, title="Run finished", timeout=10)
        if self.quit_when_done and not self.manager.going():
            self.app.exit()
        self.look()  # the file may be free now (or another process's, if the run failed so)

    def _detached_ended(self, run: DetachedRun, status: str) -> None:
        record = run.record
        name = f"{run.name} ({record.run_id})"
        if status == KILLED:
            self.app.notify(
                f"Run {name} is gone: its process ended without finishing it (killed?). "
                f"`{record.command}` resumes it.",
                title="Run gone",
                severity="warning",
                timeout=15,
            )
        elif status == NOTHING_TO_DO:
            self.app.notify(f"Run {name}: nothing to do, all its examples were already stored.")
        elif status != LEFT and not self._viewing(run):
            finished = run.state.finished
            done, errors = (
                (finished.done, finished.errors) if finished else (record.done, record.errors)
            )
            self.app.notify(
                f"Run {name} finished: {done} done, {plural(errors, 'error')}. ctrl+r reloads the "
                "results.",
                title="Run finished",
                timeout=10,
            )

    # -- quitting ------------------------------------------------------------------------

    def quit(self) -> None:
        """Quit, or, while runs of this process go, ask what becomes of them. In the
        prompt, the quit key (ctrl+q) is the same as escape: stay."""
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
        from lctui.tui.screens.quit_runs import CANCEL, LEAVE, WAIT

        going = self.manager.going()
        if choice is None or not going:
            if not going and choice is not None:
                self.app.exit()
            return
        self.quit_when_done = True
        if choice == CANCEL:
            count = self.manager.cancel_all()
            self.app.notify(
                f"Cancelling {plural(count, 'run')}; lctui quits once the finished examples are "
                "written.",
                title="Quitting",
            )
            # A backend that does not stop must not keep the app open for ever.
            self.app.set_timer(CANCEL_WAIT_S, self.app.exit)
        elif choice == WAIT:
            paused = [run.name for run in going if run.paused]
            have = _verb(going, "has", "have")
            text = f"lctui quits when the {plural(len(going), 'run')} going {have} finished."
            if paused:
                text += f" A paused run never does: resume {', '.join(paused)} (p)."
            self.app.notify(text + " ctrl+q asks again.", title="Quitting", timeout=10)
        elif choice == LEAVE:
            self.quit_when_done = False  # quitting follows the hand-over, not the runs' end
            self._leaving = asyncio.ensure_future(self.leave_running(going))

    async def leave_running(self, going: Sequence[ManagedRun]) -> list[RunRecord]:
        """Cancel the runs of this process and start each again detached, with the same
        command (it resumes: what is stored is skipped), then quit saying where they
        are. They take turns at the file, which has one writer."""
        db, config = self.owner.db_path, self.owner.config.path
        commands: dict[int, list[str]] = {}
        kept_here: list[str] = []  # runs no command runs (re-runs of stored examples)
        for run in going:
            try:
                if run.request is None:
                    raise LctuiError("it has no command")
                commands[run.number] = request_argv(run.request, db, config)
            except LctuiError as exc:
                kept_here.append(f"{run.name}: {exc}")
        self.manager.cancel_all()
        self.app.notify(
            f"Stopping {plural(len(going), 'run')} to start them again in processes of their own…",
            title="Quitting",
        )
        lines: list[str] = []
        if not await self.manager.wait_all(CANCEL_WAIT_S):
            lines.append(
                f"The runs did not stop within {CANCEL_WAIT_S:.0f} s: they were cancelled "
                "(what finished is kept); start them again to do the rest."
            )
        else:
            self._handing = True  # the runs, ended, gave the file back (lend_when_idle)
            self.owner.read_only = True
            for run in going:
                argv = commands.get(run.number)
                if argv is None or run.status != CANCELLED:
                    continue  # it finished (or failed) meanwhile, or cannot be handed over
                try:
                    self.left_running.append(await asyncio.to_thread(detach_argv, argv, queue=True))
                except LctuiError as exc:
                    kept_here.append(f"{run.name}: {exc}")
        self.app.exit(message=Text("\n".join(lines + self._left_words(kept_here))))
        return self.left_running

    def _left_words(self, not_left: list[str]) -> list[str]:
        lines = []
        left = self.left_running
        if left:
            turns = " one after another" if len(left) > 1 else ""
            lines.append(
                f"{plural(len(left), 'run')} {_verb(left, 'goes', 'go')} on in the background"
                f"{turns}, writing "
                f"{self.owner.db_path} (the same command again resumes a run: what is "
                "stored is skipped):"
            )
            lines += [f"  {record.run_id}  {record.command}" for record in left]
            lines.append(
                "`lctui runs` lists them, `lctui attach ID` watches one; lctui on this file "
                "lists them too (G)."
            )
        if not_left:
            lines.append("Cancelled, not left running (finished examples are kept):")
            lines += [f"  {line}" for line in not_left]
        return lines

    async def wind_down(self) -> None:
        """Cancel the runs of this process still going and wait (a while) for them to
        stop: the app closes its store next, which their last writes need. Detached
        runs are let go: they go on."""
        self._closing = True
        if self._looking is not None:
            self._looking.cancel()
        if self.manager.cancel_all():
            await self.manager.wait_all(CANCEL_WAIT_S)
        await self.manager.let_go(LET_GO_WAIT_S)
        self.manager.drain()


def _verb(items: Sized, one: str, several: str) -> str:
    """The verb for a count of `items` (`goes` for one run, `go` for two)."""
    return one if len(items) == 1 else several


def _same_file(recorded: str, db: Path) -> bool:
    try:
        return Path(recorded).resolve() == db.expanduser().resolve()
    except OSError:
        return False
