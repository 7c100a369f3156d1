"""The SQL console: read-only DuckDB queries over the documented views, with history,
saved queries, a LIMIT guard, cancellation and export of any result.

A query runs in a thread worker in a `store.sandbox.SqlSandbox`: a connection of its
own, read-only, that cannot reach files, URLs or extensions nor change a setting, and
a statement gate that refuses anything but one statement that reads, with the reason.
It fetches one row past the limit, so the status can say "500 of more than 500".
Escape or ctrl+c while it runs calls the connection's `interrupt()` from the UI
thread. Results show in an `ArrowTable`, which formats only the rows on screen.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import duckdb
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import (
    Input,
    OptionList,
    Static,
    TabbedContent,
    TabPane,
)
from textual.widgets.option_list import Option

from lctui.core.errors import LctuiError
from lctui.core.paths import export_file
from lctui.core.private import open_private, prepare_output
from lctui.core.text import escape_unprintable, plural, shorten
from lctui.store.lifeval_views import LIFEVAL_VIEWS
from lctui.store.read.catalog import preview_statement, view_columns
from lctui.store.sandbox import SqlSandbox
from lctui.tui.screens.base import LctuiScreen, on_a_cursor
from lctui.tui.shown import shown
from lctui.tui.state.sql_history import add_to_history, load_history, load_saved, save_query
from lctui.tui.widgets.arrow_table import ArrowTable
from lctui.tui.widgets.ask import AskScreen
from lctui.tui.widgets.key_footer import KeyFooter
from lctui.tui.widgets.ordered_keys import OrderedInput, OrderedTextArea

if TYPE_CHECKING:
    from lctui.store.db import Store

DEFAULT_LIMIT = 500
CANCELLED = "cancelled"
DOCUMENTED_VIEWS: dict[str, str] = {
    "results": "one row per latest generation and rule-based metric (score, status, ...)",
    "results_core": "results without the example's columns: faster for aggregates",
    "rubric": "one row per rubric point of the latest score of each generation",
    "judge_scores": "one row per latest generation and LLM-judge metric",
    **{name: "LIFEval metric view (store/lifeval_views.py)" for name in LIFEVAL_VIEWS},
    "run_model_stats": "per run and model: attempts, tokens, time, TTFT percentiles",
    "judge_stats": "per run and judge model: calls, unparsed, tokens",
}
EXPORT_FORMATS = {".csv": "CSV", ".parquet": "Parquet"}


class SqlEditor(OrderedTextArea):
    """The editor; up and down in an empty editor (or on a query recalled from the
    history, unchanged) step through the history instead of moving the cursor."""

    class HistoryStep(Message):
        def __init__(self, step: int) -> None:
            super().__init__()
            self.step = step

    recalled: str | None = None  # the history entry last put into the editor

    def _browsing(self) -> bool:
        return not self.text.strip() or self.text == self.recalled

    def action_cursor_up(self, select: bool = False) -> None:
        if not select and self._browsing():
            self.post_message(self.HistoryStep(-1))
        else:
            super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        if not select and self._browsing():
            self.post_message(self.HistoryStep(1))
        else:
            super().action_cursor_down(select)


@dataclass(frozen=True)
class SqlOutcome:
    """What one query of the console brought: a table or an error, and its time."""

    table: pa.Table | None
    limit: int
    error: str | None
    seconds: float


def read_columns(cur: duckdb.DuckDBPyConnection) -> dict[str, list[tuple[str, str]]]:
    """(name, type) of every column of each documented view."""
    columns: dict[str, list[tuple[str, str]]] = {}
    for column in view_columns(cur, list(DOCUMENTED_VIEWS)):
        columns.setdefault(column.table, []).append((column.name, column.data_type))
    return columns


class SqlConsoleScreen(LctuiScreen):
    """Side tabs (views, history, saved); the editor, a status line and the result."""

    DEFAULT_CSS = """
    SqlConsoleScreen #sql-side { width: 34; max-width: 35%; }
    SqlConsoleScreen #sql-side TabPane { padding: 0; }
    SqlConsoleScreen #sql-columns { height: auto; max-height: 50%; color: $text-muted; }
    SqlConsoleScreen #sql-editor { height: 8; border: round $primary 40%; }
    SqlConsoleScreen #sql-editor:focus { border: round $primary; }
    SqlConsoleScreen #sql-bar { height: auto; max-height: 5; }
    SqlConsoleScreen #sql-status { width: 1fr; height: auto; padding: 0 1; background: $panel; }
    SqlConsoleScreen #sql-limit { width: 12; }
    SqlConsoleScreen #sql-limit-label { width: auto; color: $text-muted; }
    SqlConsoleScreen #sql-result { border: round $primary 40%; }
    SqlConsoleScreen #sql-result:focus { border: round $primary; }
    SqlConsoleScreen .-error { color: $error; }
    /* A failed query: its message in full where the result was (scrolled when longer
       than the room), never five lines of it over the previous query's rows. */
    SqlConsoleScreen.-failed #sql-bar { height: 1fr; max-height: 100%; overflow-y: auto; }
    SqlConsoleScreen.-failed #sql-result { display: none; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f5,ctrl+enter", "run", "Run", id="sql.run", priority=True),
        Binding("escape,ctrl+c", "cancel", "Cancel", id="sql.cancel", priority=True),
        Binding("ctrl+s", "save", "Save query", id="sql.save"),
        Binding("f2", "export", "Export", id="sql.export"),
        Binding("escape", "back", "Back", id="sql.back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.limit = DEFAULT_LIMIT
        self.history = load_history()
        self.saved = load_saved()
        self.status = ""
        self.last_export: Path | None = None
        self._history_index: int | None = None
        self._live_sandbox: SqlSandbox | None = None
        self._cancel_asked = False
        self._lock = threading.Lock()
        self._columns: dict[str, list[tuple[str, str]]] = {}

    @property
    def query_running(self) -> bool:
        return self._live_sandbox is not None

    def compose(self) -> ComposeResult:
        with Horizontal():
            with TabbedContent(id="sql-side"):
                with TabPane("Views", id="tab-views"), Vertical():
                    yield OptionList(id="sql-views")
                    yield Static(id="sql-columns", markup=False)
                with TabPane("History", id="tab-history"):
                    yield OptionList(id="sql-history")
                with TabPane("Saved", id="tab-saved"):
                    yield OptionList(id="sql-saved")
            with Vertical():
                yield SqlEditor(id="sql-editor", show_line_numbers=True)
                with Horizontal(id="sql-bar"):
                    yield Static("", id="sql-status", markup=False)
                    yield Static("limit ", id="sql-limit-label")
                    yield OrderedInput(
                        str(DEFAULT_LIMIT), id="sql-limit", type="integer", compact=True
                    )
                yield ArrowTable(id="sql-result")
        yield KeyFooter()

    def on_mount(self) -> None:
        editor = self.query_one(SqlEditor)
        if "sql" in editor.available_languages:
            editor.language = "sql"
        editor.border_title = "SQL (read-only) · F5 / ctrl+enter runs · up: history"
        self.query_one("#sql-limit", Input).tooltip = "LIMIT guard: rows fetched at most"
        self.query_one("#sql-result").border_title = "Result"
        self._fill_views()
        self._fill_history()
        self._fill_saved()
        self._set_status(
            "Ready (read-only: one statement that reads the results; files, URLs and "
            "extensions are out of reach). Views on the left; enter inserts a query."
        )
        self._load_columns()
        editor.focus()

    # -- side lists ---------------------------------------------------------------------

    def _fill_views(self) -> None:
        """Once, on mount: the documented views do not change."""
        views = self.query_one("#sql-views", OptionList)
        views.add_options(Option(name, id=name) for name in DOCUMENTED_VIEWS)

    def _fill_history(self) -> None:
        history = self.query_one("#sql-history", OptionList)
        history.clear_options()
        history.add_options(_one_line(q) for q in reversed(self.history))

    def _fill_saved(self) -> None:
        saved = self.query_one("#sql-saved", OptionList)
        saved.clear_options()
        saved.add_options(
            Option(f"{name}: {_one_line(q)}", id=name) for name, q in self.saved.items()
        )

    def _load_columns(self) -> None:
        self.run_query(
            on_a_cursor(read_columns),
            group="sql-columns",
            done=self._columns_loaded,
            # The list still names the views; their columns just stay unknown.
            failed=lambda exc: None,
        )

    def _columns_loaded(self, columns: dict[str, list[tuple[str, str]]]) -> None:
        self._columns = columns
        views = self.query_one("#sql-views", OptionList)
        if views.highlighted is None:
            views.highlighted = 0  # announces itself, which shows the columns
        else:
            self._show_columns(list(DOCUMENTED_VIEWS)[views.highlighted])

    def _show_columns(self, view: str) -> None:
        lines = [f"{view}: {DOCUMENTED_VIEWS[view]}", ""]
        lines += [f"{name}  {kind.lower()}" for name, kind in self._columns.get(view, [])]
        self.query_one("#sql-columns", Static).update(
            shown("\n".join(escape_unprintable(line) for line in lines))
        )

    @on(OptionList.OptionHighlighted, "#sql-views")
    def _view_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id is not None:
            self._show_columns(event.option.id)

    @on(OptionList.OptionSelected)
    def _option_selected(self, event: OptionList.OptionSelected) -> None:
        source = event.option_list.id
        if source == "sql-views":
            self._load_sql(preview_statement(str(event.option.id)))
        elif source == "sql-history":
            self._load_sql(self.history[len(self.history) - 1 - event.option_index])
        elif source == "sql-saved" and event.option.id is not None:
            self._load_sql(self.saved[event.option.id])

    def _load_sql(self, sql: str) -> None:
        editor = self.query_one(SqlEditor)
        editor.text = sql
        editor.recalled = sql
        editor.focus()

    @on(SqlEditor.HistoryStep)
    def _history_step(self, event: SqlEditor.HistoryStep) -> None:
        if not self.history:
            return
        last = len(self.history) - 1
        index = last + 1 if self._history_index is None else self._history_index
        index = max(0, min(last + 1, index + event.step))
        self._history_index = index
        self._load_sql("" if index > last else self.history[index])

    # -- running ------------------------------------------------------------------------

    def _read_limit(self) -> int | None:
        """The LIMIT guard from its box, or None (and a message) when it is not a count."""
        text = self.query_one("#sql-limit", Input).value.strip()
        if text.isdigit() and int(text) > 0:
            return int(text)
        self._set_status(f"The limit must be a positive whole number, not {text!r}.", True)
        return None

    def action_run(self) -> None:
        sql = self.query_one(SqlEditor).text.strip()
        limit = self._read_limit()
        if not sql or self.query_running or limit is None:
            return
        self.limit = limit
        self.history = add_to_history(self.history, sql)
        self._history_index = None
        self._fill_history()
        self._cancel_asked = False
        self._set_status(f"Running (limit {self.limit:,}; escape cancels)...")
        self.run_query(self._run_sandboxed, sql, self.limit, group="sql-run", done=self._finished)
        self.refresh_bindings()

    def _run_sandboxed(self, store: Store, sql: str, limit: int) -> SqlOutcome:
        """In the query's thread: `sql` on a sandbox connection, which escape interrupts
        (action_cancel) and so does leaving the screen (registered with the base)."""
        started = time.monotonic()
        table: pa.Table | None = None
        error: str | None = None
        try:
            with SqlSandbox(store) as sandbox:
                self.register_connection(sandbox)
                with self._lock:
                    self._live_sandbox = sandbox
                try:
                    table = sandbox.query(sql, limit=limit + 1)
                finally:
                    with self._lock:
                        self._live_sandbox = None
        except (LctuiError, duckdb.Error) as exc:
            error = CANCELLED if self._cancel_asked else str(exc)
        return SqlOutcome(table, limit, error, time.monotonic() - started)

    def _finished(self, event: SqlOutcome) -> None:
        failed = event.error is not None
        self.set_class(failed, "-failed")
        if failed:  # the rows shown are the last query's: none of this one
            self.query_one(ArrowTable).show(pa.table({}))
        if event.error == CANCELLED:
            self._set_status(f"Query cancelled after {event.seconds:.1f} s.", error=True)
        elif event.error is not None:
            self._set_status(event.error, error=True)
        elif event.table is not None:
            table = event.table
            limit = event.limit
            if table.num_rows > limit:
                table = table.slice(0, limit)
                count = f"{limit:,} of more than {plural(limit, 'row')} (LIMIT guard)"
            else:
                count = plural(table.num_rows, "row")
            self.query_one(ArrowTable).show(table)
            columns = plural(table.num_columns, "column")
            self._set_status(f"{count}, {columns} in {event.seconds:.2f} s")
        self.refresh_bindings()  # export: only a result that has columns

    def _set_status(self, text: str, error: bool = False) -> None:
        self.status = text
        status = self.query_one("#sql-status", Static)
        text = escape_unprintable(text)  # an error quotes the SQL and DuckDB
        status.update(Content.styled(text, "$error") if error else Content(text))
        status.set_class(error, "-error")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel":
            return self.query_running
        if action == "export":
            return self.query_one(ArrowTable).table.num_columns > 0
        return True

    def action_cancel(self) -> None:
        with self._lock:  # the worker clears _live_sandbox under it before closing it
            sandbox = self._live_sandbox
            self._cancel_asked = sandbox is not None
            if sandbox is not None:
                sandbox.interrupt()
        if sandbox is not None:
            self._set_status("Cancelling...")

    def action_back(self) -> None:
        self.app.pop_screen()

    # -- saving and export ----------------------------------------------------------------

    def action_save(self) -> None:
        sql = self.query_one(SqlEditor).text.strip()
        if not sql:
            self.notify("Nothing to save: the editor is empty.", severity="warning")
            return

        def saved(name: str | None) -> None:
            if name:
                self.saved = save_query(self.saved, name, sql)
                self._fill_saved()
                self.notify(f"Saved as {name!r} (the Saved tab lists it).", title="SQL console")

        self.app.push_screen(AskScreen("Save the query as:", note="a name"), saved)

    def action_export(self) -> None:
        default = export_file(("result",), "csv")
        note = "The suffix picks the format: .csv or .parquet."
        self.app.push_screen(AskScreen("Export the result to:", str(default), note), self.export)

    def export(self, path_text: str | None) -> None:
        """Write the shown result to `path_text` (.csv or .parquet) in a worker."""
        if not path_text:
            return
        path = Path(path_text).expanduser()
        if path.suffix.lower() not in EXPORT_FORMATS:
            self.notify(f"{path}: use a .csv or .parquet file name.", severity="error")
            return
        self._export(self.query_one(ArrowTable).table, path)

    @work(thread=True, exclusive=True, group="sql-export", exit_on_error=False)
    def _export(self, table: pa.Table, path: Path) -> None:
        try:
            private = prepare_output(path)
            with open_private(path, binary=True) if private else path.open("wb") as out:
                if path.suffix.lower() == ".csv":
                    pa_csv.write_csv(table, out)
                else:
                    pq.write_table(table, out)
        except (OSError, pa.ArrowException) as exc:
            self.app.call_from_thread(self._set_status, f"could not write {path}: {exc}", True)
            return
        self.app.call_from_thread(self._exported, path, table.num_rows)

    def _exported(self, path: Path, rows: int) -> None:
        self.last_export = path
        kind = EXPORT_FORMATS[path.suffix.lower()]
        self._set_status(f"Wrote {plural(rows, 'row')} as {kind} to {path}")
        self.notify(f"Wrote {path}", title="Exported")


def _one_line(sql: str, width: int = 60) -> str:
    return shorten(sql, width, one_line=True, cells=True)
