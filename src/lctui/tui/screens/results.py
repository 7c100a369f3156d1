"""The results screen, the app's home: a model x task x length heatmap of mean scores,
a depth x length view of one needle task, and the examples behind any cell.

Every query runs through `LctuiScreen.run_query` (screens/base.py), so the screen never
waits on DuckDB; answers to superseded requests are dropped. Results
whose score is missing are shown as missing, those an older version of their scorer
scored are marked `old` with a notice naming their runs, and `s` scores both in a
worker (engine/rescore.py, through the store's writer) with its progress in the
status line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, cast

import duckdb
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Static
from textual.worker import get_current_worker

from lctui.engine.rescore import RescoreSummary, find_targets, rescore_targets
from lctui.store.read.heat import ChangeStamp, change_stamp
from lctui.tui.screens.base import LctuiScreen, on_a_cursor
from lctui.tui.screens.results_notices import missing_notice, outdated_notice, rescore_label
from lctui.tui.shown import shown, shown_line
from lctui.tui.state.heatmap_data import (
    CellKey,
    ResultsGrid,
    depth_grid,
    model_grid,
)
from lctui.tui.widgets.examples_table import (
    ExampleFilter,
    ExamplesPage,
    ExamplesTable,
    load_examples,
)
from lctui.tui.widgets.heat_legend import SCORE_SAMPLES, HeatLegend
from lctui.tui.widgets.heatmap import Heatmap
from lctui.tui.widgets.key_footer import KeyFooter

if TYPE_CHECKING:
    from lctui.store.db import Store

AUTO_REFRESH_S = 2.0
FILTERS = Binding.Group("Filter", compact=True)  # which examples of a cell are listed
EMPTY_MESSAGE = (
    "No results yet: ctrl+n starts a run, or `lctui run ...` in a shell "
    "(e.g. `lctui run --model gold --tasks niah_single_1 --lengths 4k`), then R reloads."
)
MODEL_TITLE = "Mean score by model, task and length (errors excluded)"
# What a cell that is not a mean says (tui/state/heatmap_data.py: heat_cell).
LEGEND_NOTES = "· not run  2err failed  3miss unscored"
RESCORE_GROUP = "rescore-missing"  # not "results-": its failures are no read errors


def grid_and_signature(
    cur: duckdb.DuckDBPyConnection, depth_of: tuple[str, str] | None
) -> tuple[ResultsGrid, ChangeStamp]:
    """The model grid (or the depth grid of `depth_of`'s model and task) and the
    store's change stamp it was read at."""
    signature = change_stamp(cur)
    grid = model_grid(cur) if depth_of is None else depth_grid(cur, *depth_of)
    return grid, signature


def examples_of(cur: duckdb.DuckDBPyConnection, key: CellKey, which: ExampleFilter) -> ExamplesPage:
    return load_examples(cur, key, which)


class ResultsScreen(LctuiScreen):
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
    ResultsScreen.-empty HeatLegend { display: none; }
    ResultsScreen.-empty #results-empty { display: block; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "toggle_depth", "Depth", id="results.depth"),
        # One item in the footer, `f/u/x/a Filter`; help names each.
        Binding("f", "filter('failures')", "Failures", id="results.failures", group=FILTERS),
        Binding("u", "filter('unparsed')", "Unparsed", id="results.unparsed", group=FILTERS),
        Binding("x", "filter('errors')", "Errors", id="results.errors", group=FILTERS),
        Binding("a", "filter('all')", "All", id="results.all", group=FILTERS),
        # One key, labelled for what it scores (check_action shows one of the two).
        Binding("s", "rescore_missing", "Score missing", id="results.rescore"),
        Binding("s", "rescore_outdated", "Re-score old", id="results.rescore-outdated"),
        # The same key with nothing to score: out of the footer, it says so.
        Binding("s", "nothing_to_score", show=False, id="results.nothing-to-score"),
        # The grid reloads itself every 2 s: the key stays, out of the footer.
        Binding("R,ctrl+l", "reload", "Reload", id="results.reload", show=False),
        Binding("escape", "back", "Back", id="results.back"),
    ]

    class RescoreProgress(Message):
        def __init__(self, done: int, total: int) -> None:
            super().__init__()
            self.done = done
            self.total = total

    def __init__(self) -> None:
        super().__init__()
        self._grid: ResultsGrid | None = None
        self._depth_of: tuple[str, str] | None = None  # (model, task) of the depth view
        self._cursor_key: CellKey | None = None
        self._open_cell: CellKey | None = None  # the cell whose examples are shown
        self._filter: ExampleFilter = "all"
        self._signature: ChangeStamp | None = None
        self._rescoring = False
        self._rescore_label = ""  # what the re-scoring going on does
        self._missing_told = 0  # the count of missing scores last announced
        self._outdated_told = 0  # the count of outdated scores last announced

    def compose(self) -> ComposeResult:
        with Vertical(id="results-body"):
            yield Heatmap(id="results-heatmap")
            yield Static(EMPTY_MESSAGE, id="results-empty")
            yield ExamplesTable(id="results-examples")
        yield HeatLegend("#results-heatmap", "mean", SCORE_SAMPLES, LEGEND_NOTES)
        yield Static("Loading results…", id="results-status", markup=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one(Heatmap).border_title = MODEL_TITLE
        self._load_grid()
        self.set_interval(AUTO_REFRESH_S, self._poll)

    def on_screen_resume(self) -> None:
        # Back from the inspector or a run: show what was written meanwhile.
        if self._signature is not None:
            self._poll()

    # -- queries (LctuiScreen.run_query) ----------------------------------------------

    def _load_grid(self) -> None:
        self.run_query(
            on_a_cursor(grid_and_signature),
            self._depth_of,
            group="results-grid",
            done=self._show_grid,
            failed=self._read_failed,
        )

    def _load_examples(self, key: CellKey) -> None:
        self._open_cell = key
        self.run_query(
            on_a_cursor(examples_of),
            key,
            self._filter,
            group="results-examples",
            done=self._show_examples,
            failed=self._read_failed,
        )

    def _poll(self) -> None:
        shown = self._signature
        if self.is_current and shown is not None:
            self.run_query(
                on_a_cursor(change_stamp),
                group="results-poll",
                # Rows the heatmap does not show yet: read the grid again.
                done=lambda now: self._load_grid() if now != shown else None,
                failed=self._read_failed,
            )

    def _read_failed(self, error: Exception) -> None:
        message = f"Could not read the results: {error}"
        self._set_status(message)
        self.notify(message, title="Results", severity="error")

    # -- answers --------------------------------------------------------------------------

    def _show_grid(self, loaded: tuple[ResultsGrid, ChangeStamp]) -> None:
        grid, signature = loaded
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
        self._grid, self._signature = grid, signature
        self.set_class(grid.is_empty, "-empty")
        heatmap = self.query_one(Heatmap)
        if grid.is_empty:
            heatmap.set_grid(grid.grid)
            self._close_examples()
            self._set_status("No results yet.")
        else:
            heatmap.border_title = shown_line(self._title(grid))
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
        quiet = self._rescoring or bool(self.lctui.runs.going())
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

    def _show_examples(self, page: ExamplesPage) -> None:
        if self._open_cell is None:
            return
        table = self.query_one(ExamplesTable)
        reference = self._grid is not None and page.key.model in self._grid.references
        table.border_title = shown_line(page.title(reference))
        table.show(page)

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
        self.query_one("#results-status", Static).update(shown(text))

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
        if action == "nothing_to_score":  # the same key, when neither is left
            grid = self._grid
            return grid is not None and grid.n_unscored == 0 and grid.n_outdated == 0
        if action == "back":
            return (
                self._open_cell is not None
                or self._depth_of is not None
                or bool(self.lctui.runs.going())
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
        self.cancel_query("results-examples")  # drop an answer still on its way
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
            why = (
                "Another lctui process writes the file"
                if self.lctui.writable_later
                else "Opened read-only"
            )
            self.notify(
                f"{why}: cannot store scores. Score them here, or with `lctui rescore --db "
                f"{self.lctui.db_path}`, once nothing else writes the file.",
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
        self.run_query(
            self._rescore_stale,
            self._depth_of,
            group=RESCORE_GROUP,
            done=lambda summary: self._rescore_done(summary, None),
            failed=lambda exc: self._rescore_done(None, f"{type(exc).__name__}: {exc}"),
        )

    def action_nothing_to_score(self) -> None:
        grid = self._grid
        why = (
            "there are no results yet."
            if grid is None or grid.is_empty
            else "every result on screen has a score from its scorer's current version "
            "(s scores those that have none, or an outdated one)."
        )
        self.notify(f"Nothing to score: {why}", title="Scores")

    def action_rescore_outdated(self) -> None:
        """Score again the results of the grid that an older scorer version scored."""
        self.action_rescore_missing()

    def _rescore_stale(self, store: Store, depth_of: tuple[str, str] | None) -> RescoreSummary:
        """In the query's thread: score what the grid shows unscored or outdated. A store
        failure reaches `_rescore_done` as an error, never a traceback."""
        models, tasks = ([depth_of[0]], [depth_of[1]]) if depth_of else (None, None)
        try:
            targets = find_targets(store, "stale", models=models, tasks=tasks)
            with store.writing():  # an app that lends its idle file takes it back for this
                return rescore_targets(
                    store,
                    targets,
                    progress=self._post_progress,
                    # Stops after its chunk once the screen closes; unmounting waits for it.
                    should_stop=lambda: self.closing or get_current_worker().is_cancelled,
                )
        finally:
            self._rescoring = False

    def _post_progress(self, done: int, total: int) -> None:
        self.post_message(self.RescoreProgress(done, total))  # thread-safe

    @on(RescoreProgress)
    def _rescore_progress(self, event: RescoreProgress) -> None:
        self._set_status(f"{self._rescore_label}: {event.done} of {event.total}…")

    def _rescore_done(self, summary: RescoreSummary | None, error: str | None) -> None:
        title = "Outdated scores" if self._rescore_label.startswith("Re-") else "Missing scores"
        if error is not None:
            message = f"{self._rescore_label} failed: {error}"
            self._set_status(message)
            self.notify(message, title=title, severity="error")
        elif summary is not None:
            message = summary.describe()
            self._set_status(message)
            self.notify(
                message,
                title=title,
                severity="information" if summary.complete else "warning",
            )
        self._load_grid()

    def action_back(self) -> None:
        """Close the examples list; from the depth view, go back to the model grid;
        while runs go, open the Runs screen (the way back to their live views)."""
        if self._open_cell is not None:
            self._close_examples()
            self.query_one(Heatmap).focus()
        elif self._depth_of is not None:
            self.action_toggle_depth()
        elif self.lctui.runs.going():
            self.lctui.show_runs()

    @property
    def grid(self) -> ResultsGrid | None:
        """The grid on screen (None until the first query answers)."""
        return self._grid

    @property
    def open_cell(self) -> CellKey | None:
        """The cell whose examples are listed, None when the list is closed."""
        return self._open_cell
