"""The results screen, the app's home: a model x task x length heatmap of mean scores,
a depth x length view of one needle task, and the examples behind any cell.

Every query runs in a thread worker on its own cursor and comes back as a message, so
the screen never waits on DuckDB; answers to superseded requests are dropped. Results
whose score is missing are shown as missing, those an older version of their scorer
scored are marked `old` with a notice naming their runs, and `s` scores both in a
worker (engine/rescore.py, through the store's writer) with its progress in the
status line.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, ClassVar, cast

import duckdb
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static
from textual.worker import Worker, WorkerState, get_current_worker

from lctui.engine.rescore import RescoreSummary, find_targets, rescore_targets
from lctui.tui.screens.results_notices import missing_notice, outdated_notice, rescore_label
from lctui.tui.state.heatmap_data import (
    CellKey,
    ResultsGrid,
    depth_grid,
    model_grid,
    store_signature,
)
from lctui.tui.widgets.examples_table import (
    ExampleFilter,
    ExamplesPage,
    ExamplesTable,
    load_examples,
)
from lctui.tui.widgets.heatmap import Heatmap

if TYPE_CHECKING:
    from lctui.tui.app import LctuiApp

AUTO_REFRESH_S = 2.0
EMPTY_MESSAGE = (
    "No results yet: ctrl+n starts a run, or `lctui run ...` in a shell "
    "(e.g. `lctui run --model gold --tasks niah_single_1 --lengths 4k`), then R reloads."
)
MODEL_TITLE = "Mean score by model, task and length (errors excluded)"
RESCORE_GROUP = "rescore-missing"  # not "results-": its failures are no read errors


class _ScreenClosing(Exception):
    """A worker started as the screen was closing; it must not touch the store."""


class ResultsScreen(Screen[None]):
    """Heatmap on top, the selected cell's examples below it once a cell is opened."""

    DEFAULT_CSS = """
    ResultsScreen #results-body { height: 1fr; }
    ResultsScreen #results-heatmap {
        max-height: 100%;
        border: round $primary 40%;
        border-title-color: $text;
        border-subtitle-color: $text-muted;
        &:focus { border: round $primary; }
    }
    ResultsScreen #results-empty {
        display: none;
        padding: 1 2;
        color: $text-muted;
    }
    ResultsScreen #results-examples {
        display: none;
        border: round $primary 40%;
        &:focus { border: round $primary; }
    }
    ResultsScreen #results-status {
        height: auto;
        max-height: 2;
        padding: 0 1;
        background: $panel;
        color: $text;
    }
    ResultsScreen.-examples #results-heatmap { max-height: 50%; }
    ResultsScreen.-examples #results-examples { display: block; }
    ResultsScreen.-empty #results-heatmap { display: none; }
    ResultsScreen.-empty #results-empty { display: block; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "toggle_depth", "Depth", id="results.depth"),
        Binding("f", "filter('failures')", "Failures", id="results.failures"),
        Binding("u", "filter('unparsed')", "Unparsed", id="results.unparsed"),
        Binding("x", "filter('errors')", "Errors", id="results.errors"),
        Binding("a", "filter('all')", "All", id="results.all"),
        # One key, labelled for what it scores (check_action shows one of the two).
        Binding("s", "rescore_missing", "Score missing", id="results.rescore"),
        Binding("s", "rescore_outdated", "Re-score old", id="results.rescore-outdated"),
        Binding("R,ctrl+l", "reload", "Reload", id="results.reload"),
        Binding("escape", "back", "Back", id="results.back"),
    ]

    class GridLoaded(Message):
        def __init__(self, token: int, grid: ResultsGrid, signature: tuple[object, ...]) -> None:
            super().__init__()
            self.token = token
            self.grid = grid
            self.signature = signature

    class ExamplesLoaded(Message):
        def __init__(self, token: int, page: ExamplesPage) -> None:
            super().__init__()
            self.token = token
            self.page = page

    class StoreChanged(Message):
        """The poll saw rows that the heatmap does not show yet."""

    class RescoreProgress(Message):
        def __init__(self, done: int, total: int) -> None:
            super().__init__()
            self.done = done
            self.total = total

    class RescoreDone(Message):
        def __init__(self, summary: RescoreSummary | None, error: str | None = None) -> None:
            super().__init__()
            self.summary = summary
            self.error = error

    def __init__(self) -> None:
        super().__init__()
        self._grid: ResultsGrid | None = None
        self._depth_of: tuple[str, str] | None = None  # (model, task) of the depth view
        self._cursor_key: CellKey | None = None
        self._open_cell: CellKey | None = None  # the cell whose examples are shown
        self._filter: ExampleFilter = "all"
        self._signature: tuple[object, ...] | None = None
        self._grid_token = 0
        self._examples_token = 0
        self._closing = False
        self._live_cursors: set[duckdb.DuckDBPyConnection] = set()
        self._cursors_lock = threading.Lock()
        self._rescoring = False
        self._rescore_label = ""  # what the re-scoring going on does
        self._missing_told = 0  # the count of missing scores last announced
        self._outdated_told = 0  # the count of outdated scores last announced

    @property
    def lctui(self) -> LctuiApp:
        return cast("LctuiApp", self.app)

    def compose(self) -> ComposeResult:
        with Vertical(id="results-body"):
            yield Heatmap(id="results-heatmap")
            yield Static(EMPTY_MESSAGE, id="results-empty")
            yield ExamplesTable(id="results-examples")
        yield Static("Loading results…", id="results-status", markup=False)
        # The palette key is left out of the footer so this screen's keys fit in 80
        # columns; ctrl+p still opens it and the help screen lists it.
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.query_one(Heatmap).border_title = MODEL_TITLE
        self._load_grid()
        self.set_interval(AUTO_REFRESH_S, self._poll)

    def on_screen_resume(self) -> None:
        # Back from the inspector or a run: show what was written meanwhile.
        if self._signature is not None:
            self._poll()

    # -- queries (thread workers) ---------------------------------------------------------

    @contextmanager
    def _cursor(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A fresh cursor for one worker, known to the screen so unmount can interrupt it."""
        with self._cursors_lock:
            # Checked under the lock unmount takes, so no query starts after it looked.
            if self._closing:
                raise _ScreenClosing
            cur = self.lctui.store.cursor()
            self._live_cursors.add(cur)
        try:
            yield cur
        finally:
            with self._cursors_lock:
                self._live_cursors.discard(cur)
            cur.close()

    async def on_unmount(self) -> None:
        # The app closes the store right after its screens; DuckDB refuses to close a
        # connection while a cursor of it is mid-query, so stop ours and wait for them.
        with self._cursors_lock:
            self._closing = True
            live = list(self._live_cursors)
        for cur in live:
            cur.interrupt()
        deadline = time.monotonic() + 2.0
        # A re-scoring stops after its chunk (it checks `_closing`); its last flush must
        # end before the app closes the store.
        while (self._live_cursors or self._rescoring) and time.monotonic() < deadline:
            await asyncio.sleep(0.01)

    def _load_grid(self) -> None:
        if self._closing:
            return
        self._grid_token += 1
        self._query_grid(self._grid_token, self._depth_of)

    @work(thread=True, exclusive=True, group="results-grid", exit_on_error=False)
    def _query_grid(self, token: int, depth_of: tuple[str, str] | None) -> None:
        with self._cursor() as cur:
            signature = store_signature(cur)
            grid = model_grid(cur) if depth_of is None else depth_grid(cur, *depth_of)
        if not get_current_worker().is_cancelled:
            self.post_message(self.GridLoaded(token, grid, signature))

    def _load_examples(self, key: CellKey) -> None:
        self._open_cell = key
        if self._closing:
            return
        self._examples_token += 1
        self._query_examples(self._examples_token, key, self._filter)

    @work(thread=True, exclusive=True, group="results-examples", exit_on_error=False)
    def _query_examples(self, token: int, key: CellKey, which: ExampleFilter) -> None:
        with self._cursor() as cur:
            page = load_examples(cur, key, which)
        if not get_current_worker().is_cancelled:
            self.post_message(self.ExamplesLoaded(token, page))

    def _poll(self) -> None:
        if self.is_current and self._signature is not None and not self._closing:
            self._check_for_changes(self._signature)

    @work(thread=True, exclusive=True, group="results-poll", exit_on_error=False)
    def _check_for_changes(self, shown: tuple[object, ...]) -> None:
        with self._cursor() as cur:
            changed = store_signature(cur) != shown
        if changed and not get_current_worker().is_cancelled:
            self.post_message(self.StoreChanged())

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if event.state != WorkerState.ERROR or not worker.group.startswith("results-"):
            return
        if self._closing:
            return  # an interrupted query of a closing screen is no error to report
        message = f"Could not read the results: {worker.error}"
        self._set_status(message)
        self.notify(message, title="Results", severity="error")

    # -- answers --------------------------------------------------------------------------

    @on(GridLoaded)
    def _show_grid(self, event: GridLoaded) -> None:
        if event.token != self._grid_token:
            return
        grid = event.grid
        if self._depth_of is not None and grid.is_empty:
            model, task = self._depth_of
            self._depth_of = None
            self.notify(
                f"{task} records no needle depth for {model}: the depth view needs a "
                "needle task (niah_*, json_kv, ...).",
                title="Depth x length",
                severity="warning",
            )
            self.refresh_bindings()
            return
        self._grid, self._signature = grid, event.signature
        self.set_class(grid.is_empty, "-empty")
        heatmap = self.query_one(Heatmap)
        if grid.is_empty:
            heatmap.set_grid(grid.grid)
            self._close_examples()
            self._set_status("No results yet.")
        else:
            heatmap.border_title = self._title(grid)
            heatmap.border_subtitle = grid.totals()
            heatmap.set_grid(grid.grid, self._cursor_for(grid))
            if self._open_cell is not None:
                self._load_examples(self._open_cell)
            self._tell_scores(grid)
        self.refresh_bindings()

    def _tell_scores(self, grid: ResultsGrid) -> None:
        """Say once (per count) that some results have no score, or one an older scorer
        version made, and how to score them."""
        missing, outdated = grid.n_unscored, grid.n_outdated
        # A run going here writes each score with its generation (or ~10 s after it).
        quiet = self._rescoring or self.lctui.running_run() is not None
        if missing and missing != self._missing_told and not quiet:
            self.notify(missing_notice(missing), title="Missing scores", severity="warning")
        if outdated and outdated != self._outdated_told and not quiet:
            self.notify(outdated_notice(grid), title="Outdated scores", severity="warning")
        self._missing_told, self._outdated_told = missing, outdated

    def _title(self, grid: ResultsGrid) -> str:
        if not grid.is_depth:
            return MODEL_TITLE
        model = grid.rows[0].model
        label = f"{model} (reference)" if model in grid.references else model
        return f"{label} · {grid.rows[0].task}: mean score by needle depth x length"

    def _cursor_for(self, grid: ResultsGrid) -> tuple[int, int]:
        """Keep the cursor on the same cell, else the same model, task and length."""
        key = self._cursor_key
        exact = grid.find(key)
        if exact is not None or key is None:
            return exact or (0, 0)
        row = grid.find_row(key.model, key.task)
        column = grid.lengths.index(key.length) if key.length in grid.lengths else 0
        return (row or 0, column)

    @on(ExamplesLoaded)
    def _show_examples(self, event: ExamplesLoaded) -> None:
        if event.token != self._examples_token or self._open_cell is None:
            return
        table = self.query_one(ExamplesTable)
        reference = self._grid is not None and event.page.key.model in self._grid.references
        table.border_title = event.page.title(reference)
        table.show(event.page)

    @on(StoreChanged)
    def _store_changed(self) -> None:
        self._load_grid()

    @on(Heatmap.CellHighlighted)
    def _cell_highlighted(self, event: Heatmap.CellHighlighted) -> None:
        if self._grid is None or self._grid.is_empty:
            return
        key = self._grid.key(event.row, event.column)
        self._set_status(self._grid.describe(event.row, event.column))
        moved = key != self._cursor_key
        self._cursor_key = key
        # An open examples list follows the cursor, like a master-detail view.
        if moved and self._open_cell is not None:
            self._load_examples(key)

    @on(Heatmap.CellSelected)
    def _cell_selected(self, event: Heatmap.CellSelected) -> None:
        if self._grid is not None and not self._grid.is_empty:
            self._open_examples(self._grid.key(event.row, event.column))

    @on(DataTable.RowSelected, "#results-examples")
    def _example_chosen(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.lctui.open_generation(str(event.row_key.value))

    def _set_status(self, text: str) -> None:
        self.query_one("#results-status", Static).update(text)

    # -- actions --------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        has_cells = self._grid is not None and not self._grid.is_empty
        if action in ("toggle_depth", "filter"):
            return has_cells or self._depth_of is not None
        if action == "rescore_missing":
            # Shown only where a score is missing, so the footer fits 80 columns.
            return self._grid is not None and self._grid.n_unscored > 0
        if action == "rescore_outdated":  # the same key, when only outdated ones are left
            grid = self._grid
            return grid is not None and grid.n_unscored == 0 and grid.n_outdated > 0
        if action == "back":
            return (
                self._open_cell is not None
                or self._depth_of is not None
                or self.lctui.running_run() is not None
            )
        return True

    def _open_examples(self, key: CellKey) -> None:
        opening = self._open_cell is None
        self.add_class("-examples")
        self._load_examples(key)
        if opening:
            self.query_one(ExamplesTable).focus()
        self.refresh_bindings()

    def _close_examples(self) -> None:
        self._open_cell = None
        self._examples_token += 1  # drop an answer still on its way
        self.remove_class("-examples")
        self.query_one(ExamplesTable).clear()
        self.refresh_bindings()

    def action_filter(self, which: str) -> None:
        """Show the failures, unparsed, errors or all examples of the open (or cursor) cell."""
        self._filter = cast("ExampleFilter", which)
        key = self._open_cell or self._cursor_key
        if key is not None:
            self._open_examples(key)

    def action_toggle_depth(self) -> None:
        """Switch between the model grid and depth x length of the cursor's model and task."""
        key = self._cursor_key
        if self._depth_of is not None:
            self._depth_of = None
        elif key is not None:
            self._depth_of = (key.model, key.task)
        else:
            return
        self._load_grid()
        self.refresh_bindings()

    def action_reload(self) -> None:
        self._set_status("Reloading…")
        self._load_grid()

    def action_rescore_missing(self) -> None:
        """Score the results of the grid on screen that have no score, or one an older
        version of their scorer made."""
        if self.lctui.read_only:
            self.notify(
                "Opened read-only: cannot store scores. Score them with "
                f"`lctui rescore --db {self.lctui.db_path}` once nothing else writes the file.",
                title="Missing scores",
                severity="warning",
            )
            return
        if self._rescoring:
            self.notify(f"Already busy: {self._rescore_label.lower()}.", severity="warning")
            return
        self._rescoring = True
        self._rescore_label = rescore_label(self._grid)
        self._set_status(f"{self._rescore_label}…")
        self._rescore(self._depth_of)

    def action_rescore_outdated(self) -> None:
        """Score again the results of the grid that an older scorer version scored."""
        self.action_rescore_missing()

    @work(thread=True, exclusive=True, group=RESCORE_GROUP, exit_on_error=False)
    def _rescore(self, depth_of: tuple[str, str] | None) -> None:
        models, tasks = ([depth_of[0]], [depth_of[1]]) if depth_of else (None, None)
        try:
            with self._cursor() as cur:
                targets = find_targets(cur, "stale", models=models, tasks=tasks)
            summary = rescore_targets(
                self.lctui.store,
                targets,
                progress=self._post_progress,
                should_stop=lambda: self._closing or get_current_worker().is_cancelled,
            )
        except _ScreenClosing:
            summary = None
        except Exception as exc:  # a store failure: said in the UI, never a traceback
            self.post_message(self.RescoreDone(None, f"{type(exc).__name__}: {exc}"))
            return
        finally:
            self._rescoring = False
        self.post_message(self.RescoreDone(summary))

    def _post_progress(self, done: int, total: int) -> None:
        self.post_message(self.RescoreProgress(done, total))  # thread-safe

    @on(RescoreProgress)
    def _rescore_progress(self, event: RescoreProgress) -> None:
        self._set_status(f"{self._rescore_label}: {event.done} of {event.total}…")

    @on(RescoreDone)
    def _rescore_done(self, event: RescoreDone) -> None:
        title = "Outdated scores" if self._rescore_label.startswith("Re-") else "Missing scores"
        if event.error is not None:
            message = f"{self._rescore_label} failed: {event.error}"
            self._set_status(message)
            self.notify(message, title=title, severity="error")
        elif event.summary is not None:
            message = event.summary.describe()
            self._set_status(message)
            self.notify(
                message,
                title=title,
                severity="information" if event.summary.complete else "warning",
            )
        self._load_grid()

    def action_back(self) -> None:
        """Close the examples list; from the depth view, go back to the model grid;
        opened above a run that is going, go back to the run."""
        if self._open_cell is not None:
            self._close_examples()
            self.query_one(Heatmap).focus()
        elif self._depth_of is not None:
            self.action_toggle_depth()
        elif self.lctui.running_run() is not None:
            self.lctui.back_to_run()

    @property
    def grid(self) -> ResultsGrid | None:
        """The grid on screen (None until the first query answers)."""
        return self._grid

    @property
    def open_cell(self) -> CellKey | None:
        """The cell whose examples are listed, None when the list is closed."""
        return self._open_cell
