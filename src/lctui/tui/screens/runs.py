"""The Runs screen: every run of the session, going or ended, in one table, and the
detached runs of the app's database (runs of processes of their own: `lctui run
--detach`, the launch screen's "in background", a run in another terminal), which the
app finds in the runs folder every few seconds and keeps listed once they end.

Each row: the run's number in this session, its run id, status, examples finished of
those it has to do, ETA (at the rate of the last minute), output tokens per second
and errors. The lines under the table name the highlighted run in full (models,
tasks, lengths, n and seed, or a detached run's command, process and log; its failure
or last error; a line per server of a model served from several base URLs). Keys:
enter opens the run's live view (attached to a detached run while it is open), p
pauses or resumes it, c cancels it (what it finished is kept), ctrl+n starts another
beside it. The table refreshes twice a second.
"""

from __future__ import annotations

import time
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Static
from textual.widgets.data_table import RowDoesNotExist

from lctui.core.text import escape_unprintable
from lctui.tui.screens.base import LctuiScreen
from lctui.tui.shown import shown
from lctui.tui.state.run_manager import ManagedRun
from lctui.tui.state.run_rows import COLUMNS, run_details, run_row
from lctui.tui.state.server_shares import server_lines, server_rows
from lctui.tui.widgets.key_footer import KeyFooter
from lctui.tui.widgets.safe_table import SafeTable

REFRESH_S = 0.5
EMPTY = "No run in this session yet: ctrl+n starts one."


class RunsScreen(LctuiScreen):
    """The session's runs (see the module docstring)."""

    DEFAULT_CSS = """
    RunsScreen #runs-table { height: 1fr; border: round $primary; }
    RunsScreen #runs-detail { height: auto; max-height: 8; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        # Before the table's own enter, so that the footer names what enter does here.
        Binding("enter", "open_run", "Live view", id="runs-open", priority=True),
        Binding("p", "pause", "Pause/resume", id="runs-pause"),
        Binding("c", "cancel_run", "Cancel", id="runs-cancel"),
        Binding("escape", "app.pop_screen", "Back", id="runs-back"),
    ]

    def compose(self) -> ComposeResult:
        table = SafeTable[str](id="runs-table", cursor_type="row", zebra_stripes=True)
        table.border_title = "Runs of this session and detached runs of this file"
        yield table
        yield Static("", id="runs-detail")
        yield KeyFooter()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for name in COLUMNS:
            table.add_column(name, key=name)
        self.refresh_rows()
        self.set_interval(REFRESH_S, self.refresh_rows)
        table.focus()

    def on_screen_resume(self) -> None:
        if self.is_mounted:
            self.refresh_rows()

    # -- drawing ------------------------------------------------------------------------

    def refresh_rows(self) -> None:
        """Read every run's new events and update the rows that changed."""
        manager = self.lctui.runs
        manager.drain()
        table = self.query_one(DataTable)
        now = time.monotonic()
        for run in manager.runs:
            cells = run_row(run, now).cells
            key = str(run.number)
            try:
                shown = table.get_row(key)
            except RowDoesNotExist:
                table.add_row(*cells, key=key)
                continue
            for column, old, new in zip(COLUMNS, shown, cells, strict=True):
                if old != new:  # a run id or a status longer than the column so far
                    table.update_cell(key, column, new, update_width=True)
        self._show_detail(now)

    def _show_detail(self, now: float) -> None:
        run = self.highlighted
        detail = self.query_one("#runs-detail", Static)
        if run is None:
            detail.update(EMPTY)
            return
        lines = run_details(run, now)
        # A model served from several base URLs: a line per server (share, errors, latency).
        width = max(20, (detail.size.width or self.size.width) - 2)
        lines += server_lines(server_rows(run.state.servers), width)
        detail.update(shown("\n".join(escape_unprintable(line) for line in lines)))

    @on(DataTable.RowHighlighted)
    def _highlighted(self) -> None:
        self._show_detail(time.monotonic())

    # -- the highlighted run ----------------------------------------------------------

    @property
    def highlighted(self) -> ManagedRun | None:
        table = self.query_one(DataTable)
        runs = self.lctui.runs.runs
        if not table.row_count or not 0 <= table.cursor_row < len(runs):
            return None
        # Rows are added in the order runs start, which is the manager's order.
        return runs[table.cursor_row]

    def action_open_run(self) -> None:
        run = self.highlighted
        if run is None:
            self.notify(EMPTY, severity="warning")
            return
        self.lctui.show_run(run)

    def action_pause(self) -> None:
        run = self.highlighted
        if run is None or not run.running:
            self.notify("No run going here: nothing to pause.", severity="warning")
            return
        if run.paused:
            run.resume()
            self.notify(f"Run {run.name} resumed.")
        else:
            run.pause()
            if not run.paused:  # a detached run that has not started yet
                self.notify(f"Run {run.name} has not started yet: nothing to pause.")
                return
            self.notify(f"Run {run.name} paused: no new example starts (p resumes).")
        self.refresh_rows()

    def action_cancel_run(self) -> None:
        run = self.highlighted
        if run is None or not run.cancel():
            self.notify("No run going here: nothing to cancel.", severity="warning")
            return
        self.notify(f"Cancelling run {run.name}; its finished examples are kept.")
        self.refresh_rows()
