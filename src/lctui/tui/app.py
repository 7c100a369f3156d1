"""The Textual app: owns the results store, themes, global keys and screen changes.

Screens read through `app.store` (a connection per query, in workers, closed after it)
and start runs with `app.start_run`: the app's run manager (`app.runs`, hosted by
tui/run_host.py) runs the same engine as `lctui run` on the app's event loop, several
runs at once, whatever screen is open; the engine's flushes open the file for each
write in the same way.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel
from textual.screen import Screen

from lctui.backends import load_backend
from lctui.core.config import Config
from lctui.core.errors import LctuiError, NotWritableError, StoreError
from lctui.core.private import open_data_dir_warning
from lctui.core.suites import reporting_suites
from lctui.core.text import break_long_words, escape_unprintable, shown_error
from lctui.engine import RunRequest
from lctui.engine.runner import BackendLoader
from lctui.resources import sample_runs_dir
from lctui.store import Store, open_store
from lctui.store.claim import writer_active
from lctui.store.read.catalog import count_generations
from lctui.tui.keys import key_name
from lctui.tui.run_host import RunHost
from lctui.tui.state.run_manager import LocalRun, ManagedRun, RunManager
from lctui.tui.themes import THEME_ERRORS, initial_theme, load_themes, remember_theme

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel

    from lctui.tui.screens.base import LctuiHost

SAMPLE_RUNS = sample_runs_dir()
# Textual's toast (textual/widgets/_toast.py): 60 cells wide, at most half of its rack,
# whose scrollbar takes 2 cells of the screen's width; a 1-cell left border and padding
# 1 on each side leave the text its room on one line.
TOAST_WIDTH, RACK_SCROLLBAR, TOAST_FRAME = 60, 2, 3


def toast_text_width(screen_width: int) -> int:
    """Cells a notification's line has on a screen `screen_width` cells wide."""
    return min(TOAST_WIDTH, (screen_width - RACK_SCROLLBAR) // 2) - TOAST_FRAME


class LctuiApp(App[None]):
    """lctui's terminal UI."""

    TITLE = "lctui"
    CSS_PATH = "app.tcss"
    ENABLE_COMMAND_PALETTE = True
    BINDINGS: ClassVar[list[BindingType]] = [
        # In the footer (tui/widgets/key_footer.py fits them to the width, help first);
        # the others are left out of it, and help and ctrl+p list them.
        Binding("ctrl+r", "show_results", "Results", id="results"),
        Binding("ctrl+n", "new_run", "New run", id="new_run"),
        Binding("G", "show_runs", "Runs", id="runs", show=False),
        Binding("L", "show_lifbench", "LIFBench", id="lifbench", show=False),
        Binding("H", "show_helmet", "HELMET", id="helmet", show=False),
        Binding("B", "show_longbench", "LongBench v2", id="longbench", show=False),
        Binding("C", "show_compare", "Compare A/B", id="compare", show=False),
        Binding("S", "show_correlation", "Correlation", id="correlation", show=False),
        Binding("V", "show_curves", "Length views", id="curves", show=False),
        Binding("Q,ctrl+e", "show_sql_console", "SQL console", id="sql_console", show=False),
        # A key like the others, not docked over them as Textual's footer does.
        Binding("ctrl+p", "command_palette", "Palette", id="palette", priority=True),
        Binding("ctrl+t", "next_theme", "Theme", id="theme"),
        Binding("f1,question_mark", "help", "Help", id="help"),
        Binding("ctrl+q", "quit", "Quit", id="quit"),
    ]

    def __init__(
        self,
        db_path: Path,
        config: Config,
        *,
        read_only: bool = False,
        import_samples: bool = True,
        samples_dir: Path = SAMPLE_RUNS,
    ) -> None:
        super().__init__()
        self.db_path = db_path
        self.config = config
        self.read_only = read_only
        self.import_samples = import_samples
        self.samples_dir = samples_dir
        self._store: Store | None = None
        # Read-only only while another lctui process writes the file: see RunHost.
        self.writable_later = False
        self.run_host = RunHost(self, self)
        self._themes = load_themes()
        for theme in self._themes.values():
            self.register_theme(theme)
        self.theme = initial_theme(self._themes)

    @property
    def store(self) -> Store:
        if self._store is None:
            raise RuntimeError("the store is not open yet")
        return self._store

    @property
    def runs(self) -> RunManager:
        return self.run_host.manager

    def on_mount(self) -> None:
        exposed = open_data_dir_warning()  # before the store creates the folder (0700)
        if exposed is not None:
            self.notify(exposed, title="Data folder", severity="warning", timeout=20)
        try:
            self._store = self._open_store()
        except LctuiError as exc:
            self.exit(return_code=2, message=f"lctui: error: {shown_error(exc)}")
            return
        for error in THEME_ERRORS:
            self.notify(error, title="Theme file skipped", severity="warning")
        if self.import_samples and not self.read_only and self._is_empty():
            self._import_samples()
        if not self.read_only or self.writable_later:
            # Idle, the app holds no claim on its file: a headless run may write it
            # meanwhile (the app reads on, read-only, and says so; see RunHost.look).
            self.store.lend_when_idle()
        self.run_host.mount()
        self.action_show_results()

    async def on_unmount(self) -> None:
        await self.run_host.wind_down()  # runs write through the store closed next
        if self._store is not None:
            self._store.close()
        _release_print_capture(self)

    def _open_store(self) -> Store:
        """The file, shared: held open only while a query or a write runs, so that other
        processes (`lctui query`, a second TUI) can read it in between, and so that the
        SQL console's sandbox connection (other settings) can open it in this process.

        Read-write, the app takes the file's writer claim to open it (migrations, the
        sample import), then lends it while idle (`Store.lend_when_idle`): it takes the
        claim back for each write (a run, a re-score), so that a headless run can write
        the file while the app is merely open. Read-only when asked, or while another
        process holds the claim (a headless run writes the file): browsing never fails
        with a lock error.
        """
        if self.read_only:
            return open_store(self.db_path, read_only=True, shared=True)
        why = (
            "is being written by another process (a headless run?): opened read-only; the "
            "results refresh as it writes, G lists the run, and runs can start here once it "
            "has ended."
        )
        if not writer_active(self.db_path):
            try:
                return open_store(self.db_path, shared=True)
            except NotWritableError as exc:
                if not self.db_path.exists():
                    raise
                why = f"cannot be written here, so it was opened read-only: {exc}"
            except StoreError as exc:
                taken = writer_active(self.db_path)  # claimed by a run just now
                if not taken and "in use by another process" not in str(exc):
                    raise
        store = open_store(self.db_path, read_only=True, shared=True)
        self.read_only = True
        self.writable_later = writer_active(self.db_path)
        self.notify(f"{self.db_path} {why}", title="Read-only", timeout=10)
        return store

    def _is_empty(self) -> bool:
        # count_generations closes its cursor: a shared store's file is held until then.
        return count_generations(self.store) == 0

    def _import_samples(self) -> None:
        from lctui.store.transfer import import_parquet

        folders = sorted(p for p in self.samples_dir.glob("*") if p.is_dir())
        added = sum(import_parquet(self.store, folder) for folder in folders)
        if added:
            self.notify(
                f"The database was empty: imported {added} sample generations of the "
                "embedded model so there is something to browse.",
                title="Sample runs",
            )

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every notification of the app (screens' too): its text is plain, never
        markup, and a name, a path or a server's message in it shows what would act on
        the terminal as escapes; its own line breaks stay. A word longer than the toast's
        line (a path) is broken into lines here: Textual folds such a word at the edge,
        mid-name (`lctui.duckd` / `b`), where `break_long_words` breaks it after a `/`."""
        message = break_long_words(
            escape_unprintable(message, keep="\n"), toast_text_width(self.size.width)
        )
        super().notify(
            message,
            title=escape_unprintable(title),
            severity=severity,
            timeout=timeout,
            markup=False,
        )

    def on_app_blur(self, event: events.AppBlur) -> None:
        """Keep the focus where it is when the app loses focus: textual-serve's page
        starts blurred (its driver sends AppBlur at once), and Textual's blur takes the
        focus from every widget, so the home screen's heatmap never got it and the
        footer left out its keys (enter: Examples) until a click."""
        event.prevent_default()

    def get_key_display(self, binding: Binding) -> str:
        """The footer's name of a key: the app's one formatter (tui/keys.py)."""
        return binding.key_display or key_name(binding.key, compact=True)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Not offered on the screen they lead to (the footer has no room to spare).
        if action == "show_results":
            from lctui.tui.screens.results import ResultsScreen

            return not isinstance(self.screen, ResultsScreen)
        if action == "new_run":
            from lctui.tui.screens.launch import LaunchScreen

            return not isinstance(self.screen, LaunchScreen)
        return True

    # -- actions ---------------------------------------------------------------------

    def action_help(self) -> None:
        from lctui.tui.screens.help import HelpScreen

        self.push_screen(HelpScreen())

    def action_show_results(self) -> None:
        from lctui.tui.screens.results import ResultsScreen

        self._switch(ResultsScreen())

    def action_show_lifbench(self) -> None:
        self.show_suite("lifbench")

    def action_show_helmet(self) -> None:
        self.show_suite("helmet")

    def show_suite(self, name: str) -> None:
        """Push the screen of suite `name`'s report unless it is already on top."""
        from lctui.tui.screens.suite import SuiteScreen

        top = self.screen
        if not (isinstance(top, SuiteScreen) and top.suite.name == name):
            self.push_screen(SuiteScreen(name))

    def action_show_longbench(self) -> None:
        self.show_suite("longbench")

    def action_show_compare(self) -> None:
        from lctui.tui.screens.compare import CompareScreen

        self._push_once(CompareScreen)

    def action_show_correlation(self) -> None:
        from lctui.tui.screens.correlation import CorrelationScreen

        self._push_once(CorrelationScreen)

    def action_show_curves(self) -> None:
        from lctui.tui.screens.curves import CurvesScreen

        self._push_once(CurvesScreen)

    def action_show_sql_console(self) -> None:
        from lctui.tui.screens.sql_console import SqlConsoleScreen

        self._push_once(SqlConsoleScreen)

    def _push_once(self, kind: type[Screen[Any]]) -> None:
        """Push a new `kind` screen unless one is already on top."""
        if not isinstance(self.screen, kind):
            self.push_screen(kind())

    def action_new_run(self) -> None:
        if self.read_only:
            if self.writable_later:
                self.notify(
                    f"Another lctui process writes {self.db_path.name} (G lists the runs): "
                    "runs can start here once it has ended.",
                    severity="warning",
                )
            else:
                self.notify("Opened read-only: runs cannot be started.", severity="warning")
            return
        from lctui.tui.screens.launch import LaunchScreen

        self._push_once(LaunchScreen)

    def start_run(self, request: RunRequest, loader: BackendLoader = load_backend) -> LocalRun:
        """Start a run beside those going and open its live view."""
        return self.run_host.start(request, loader)

    async def start_background(self, request: RunRequest) -> ManagedRun | None:
        """Start a run in a process of its own (it outlives the app) and open its live
        view; None, having said why, when it cannot start."""
        return await self.run_host.start_background(request)

    def show_run(self, run: ManagedRun) -> None:
        self.run_host.show(run)

    def show_runs(self) -> None:
        self.run_host.show_list()

    def action_show_runs(self) -> None:
        self.show_runs()

    async def action_quit(self) -> None:
        """ctrl+q and the palette's Quit: while runs go, ask what becomes of them."""
        self.run_host.quit()

    def open_generation(self, generation_id: str) -> None:
        from lctui.tui.screens.inspector import InspectorScreen

        self.push_screen(InspectorScreen(generation_id))

    def action_next_theme(self) -> None:
        names = sorted(self._themes) or [self.theme]
        current = names.index(self.theme) if self.theme in names else -1
        self.theme = names[(current + 1) % len(names)]

    def watch_theme(self, name: str) -> None:
        if name in self._themes:
            remember_theme(name)

    def _switch(self, screen: Screen[Any]) -> None:
        # Results is the home screen: drop whatever is stacked above the base (runs go
        # on whatever screens close: they belong to the run manager).
        while len(self.screen_stack) > 1:
            self.pop_screen()
        self.push_screen(screen)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand(
            "Results", "The model x task x length heatmap", self.action_show_results
        )
        yield SystemCommand("New run", "Pick models, tasks and lengths", self.action_new_run)
        yield SystemCommand(
            "Runs", "Every run of this session: open, pause, cancel", self.action_show_runs
        )
        yield SystemCommand("Help", "Every key of this screen", self.action_help)
        yield SystemCommand("Next theme", "Cycle the themes", self.action_next_theme)
        # Every suite's report (core/suites.py), a plugin's too, on the generic screen.
        for suite in reporting_suites():
            yield SystemCommand(
                f"Report: {suite.title}", suite.about, partial(self.show_suite, suite.name)
            )
        # Every key binding of the screen is a palette entry too, with its key as help.
        seen = {"Results", "New run", "Runs", "Help", "Next theme", "Theme", "Quit"}
        for key, active in screen.active_bindings.items():
            binding = active.binding
            title = binding.description
            if not title or title in seen or not active.enabled:
                continue
            seen.add(title)
            yield SystemCommand(
                title,
                f"{active.tooltip or binding.tooltip or title} (key: {key})",
                partial(self.run_action, binding.action, active.node),
            )


if TYPE_CHECKING:
    # Screens see the app as an LctuiHost (screens/base.py); mypy checks it is one here.
    _AS_HOST: type[LctuiHost] = LctuiApp


def _release_print_capture(app: App[Any]) -> None:
    """Point the logging handlers made while the app ran at the real streams again.

    A library that sets up logging while the app runs (torch makes dozens of handlers
    when the embedded model loads) keeps sys.stderr as it was then: Textual's print
    capture, which holds the app, and through it every DuckDB object the app reached,
    to the end of the interpreter, where DuckDB reports each one as leaked.
    """
    manager = logging.Logger.manager
    loggers = [logging.getLogger(), *manager.loggerDict.values()]
    for logger in loggers:
        for handler in getattr(logger, "handlers", ()):
            # The stream a handler was given; not logging's last resort, which reads
            # sys.stderr each time it writes.
            stream = vars(handler).get("stream")
            if isinstance(handler, logging.StreamHandler) and getattr(stream, "app", None) is app:
                handler.setStream(
                    sys.__stderr__ if getattr(stream, "stderr", True) else sys.__stdout__
                )
