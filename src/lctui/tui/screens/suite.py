"""A suite's own report as a screen: the tables a registered suite defines
(core/suites.py), as `lctui report --suite NAME` prints them, for any suite, a plugin's
included: HELMET's categories (`H`), LongBench v2's accuracy and domains (`B`), LIFBench's
capabilities and stability (`L`), any suite's from the palette.

The report is built in a thread worker. The line under the tables says what the
highlighted row of the focused table holds (the suite's row details), or its
highlighted cell in a table the suite details cell by cell (LongBench v2's domains),
then the report's notes. Tables whose rows are the same results (`ReportTable.cells`)
move together. `enter` on a row that drills into tables (`ReportTable.opens`: LIFEval's
per-level tables of a model) shows them in place of the report's, `]` / `[` those of
the next / previous row; `enter` on a row that summarises one cell's results lists its
examples in place of the other tables; `enter` on an example opens the inspector;
`escape` closes the list or the drilled tables. `p` focuses the next table shown, `1`
to `9` the n-th. `R` reads the report again, and so does coming back to the screen
when something was written meanwhile (a re-score in the inspector).
"""

from __future__ import annotations

from typing import Any, ClassVar

import duckdb
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import DataTable, Static

from lctui.core.suites import ReportTable, RowCell, Suite, SuiteReport, get_suite
from lctui.core.text import escape_unprintable, plural
from lctui.store.db import Store
from lctui.store.read.heat import ChangeStamp, change_stamp
from lctui.tui.screens.base import LctuiScreen, on_a_cursor
from lctui.tui.shown import shown_line
from lctui.tui.state.heatmap_data import CellKey
from lctui.tui.widgets.examples_table import ExamplesPage, ExamplesTable, load_examples
from lctui.tui.widgets.key_footer import KeyFooter
from lctui.tui.widgets.report_table import ReportTableView


def examples_of(cur: duckdb.DuckDBPyConnection, key: CellKey) -> ExamplesPage:
    return load_examples(cur, key)


def empty_message(suite: Suite) -> str:
    """What an empty screen says: the suite's own words, for the file open here."""
    return suite.empty.format(db="This results file", wanted="") + "."


class SuiteScreen(LctuiScreen):
    """One suite's report: its tables, the highlighted row's details, its notes, and
    the examples of a row's results."""

    DEFAULT_CSS = """
    SuiteScreen #suite-header { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    SuiteScreen #suite-empty { display: none; padding: 1 2; color: $text-muted; }
    SuiteScreen.-empty #suite-empty { display: block; }
    SuiteScreen.-empty #suite-tables { display: none; }
    SuiteScreen .note { height: auto; padding: 0 1; color: $text-muted; }
    SuiteScreen #suite-tables { height: 1fr; overflow-y: auto; scrollbar-gutter: stable; }
    /* As tall as its rows, within the screen: a suite of many tables scrolls them. */
    SuiteScreen #suite-tables ReportTableView { height: auto; max-height: 100%; }
    SuiteScreen.-examples #suite-tables { height: auto; max-height: 50%; }
    SuiteScreen #suite-tables ReportTableView, SuiteScreen #suite-examples {
        border: round $primary 40%;
        &:focus { border: round $primary; }
    }
    SuiteScreen #suite-drill { display: none; height: 1fr; overflow-y: auto; }
    SuiteScreen.-drill #suite-drill { display: block; }
    SuiteScreen.-drill #suite-tables { display: none; }
    SuiteScreen #suite-drill ReportTableView {
        height: auto; max-height: 100%; border: round $primary 40%;
        &:focus { border: round $primary; }
    }
    SuiteScreen #suite-examples { height: 1fr; }
    SuiteScreen #suite-examples { display: none; }
    SuiteScreen.-examples #suite-examples { display: block; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "next_table", "Next table", id="suite.next-table"),
        Binding("right_square_bracket", "step_row(1)", "Next row", id="suite.next-row"),
        Binding(
            "left_square_bracket", "step_row(-1)", "Prev row", id="suite.previous-row", show=False
        ),
        *(
            Binding(
                str(n), f"focus_table({n - 1})", f"Table {n}", id=f"suite.table-{n}", show=False
            )
            for n in range(1, 10)
        ),
        Binding("R", "reload", "Reload", id="suite.reload", show=False),
        Binding("escape", "back", "Back", id="suite.back"),
    ]

    def __init__(self, suite: str) -> None:
        super().__init__()
        self.suite = get_suite(suite)
        self.report: SuiteReport | None = None
        self._tables: list[ReportTableView] = []  # in the report's order
        self._stamp: ChangeStamp | None = None
        self.open_cell: RowCell | None = None  # the results whose examples are listed
        self.drilled: tuple[int, int] | None = None  # (table, row) whose tables are shown
        self._drilled: list[ReportTableView] = []

    def compose(self) -> ComposeResult:
        yield Static(f"Loading {self.suite.title}...", id="suite-header", markup=False)
        yield Static(empty_message(self.suite), id="suite-empty", markup=False)
        yield Static(self.suite.about, classes="note", markup=False)
        yield Vertical(id="suite-tables")
        yield Vertical(id="suite-drill")
        yield ExamplesTable(id="suite-examples")
        yield Static("", id="suite-detail", classes="note", markup=False)
        yield Static("", id="suite-notes", classes="note", markup=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        self._load()

    def on_screen_resume(self) -> None:
        shown = self._stamp
        if shown is not None:  # back from the inspector (a re-score?) or a run
            self.run_query(
                on_a_cursor(change_stamp),
                group="suite-poll",
                done=lambda now: self._load() if now != shown else None,
                failed=self._read_failed,
            )

    def _load(self) -> None:
        self.run_query(self._build, group="suite-report", done=self._show, failed=self._read_failed)

    def _build(self, store: Store) -> tuple[SuiteReport | None, ChangeStamp]:
        stamp = change_stamp(store)  # before the report: a later write reads again
        build = self.suite.report
        return (None if build is None else build(store, None, None)), stamp

    def _read_failed(self, error: Exception) -> None:
        self._failed(f"could not read {self.suite.title}: {error}")

    def _failed(self, message: str) -> None:
        self.query_one("#suite-header", Static).update(
            Content.styled(escape_unprintable(message), "$error")
        )
        self.notify(message, title=self.suite.title, severity="error")

    def _show(self, loaded: tuple[SuiteReport | None, ChangeStamp]) -> None:
        report, self._stamp = loaded
        self.report = report if report is not None and report.tables else None
        self.call_later(self._fill)

    async def _fill(self) -> None:
        tables = self.report.tables if self.report else ()
        self.set_class(not tables, "-empty")
        rows = sum(len(t.rows) for t in tables)
        models = len({row[0] for t in tables for row in t.rows})
        header = f"{self.suite.title}  ·  {plural(models, 'model')}  ·  {plural(rows, 'row')}"
        self.query_one("#suite-header", Static).update(header if tables else self.suite.title)
        box = self.query_one("#suite-tables", Vertical)
        await box.remove_children()
        shown = [self._table(i, table) for i, table in enumerate(tables)]
        self._tables = list(shown)
        await box.mount_all(shown)
        notes = "\n".join(self.report.notes) if self.report else ""
        self.query_one("#suite-notes", Static).update(shown_line(notes))
        self.refresh_bindings()
        if self.open_cell is not None:
            self._open_examples(self.open_cell)
        elif self.drilled is not None:
            await self._drill(*self.drilled)
        elif shown:
            shown[0].focus()
            self._describe(0, 0)

    def _table(self, index: int, table: ReportTable) -> ReportTableView:
        return ReportTableView(table, id=f"suite-table-{index}")

    def _report_table(self, index: int) -> ReportTable | None:
        """Table `index` of those shown: the report's own, then the drilled ones."""
        views = self._views()
        return views[index].table if 0 <= index < len(views) else None

    def _views(self) -> list[ReportTableView]:
        return [*self._tables, *self._drilled]

    def _shown_views(self) -> list[ReportTableView]:
        return self._drilled if self.drilled is not None else self._tables

    def _describe(self, index: int, row: int, column: int | None = None) -> None:
        """The line under the tables: row `row` (its cell `column`) of table `index`."""
        table = self._report_table(index)
        line = "" if table is None else table.detail(row, column)
        self.query_one("#suite-detail", Static).update(shown_line(line))

    # -- tables of the same results move together -------------------------------------
    # Only the focused one leads: a table filled again moves its own cursor too.

    def _follow(self, index: int, row: int) -> None:
        table = self._report_table(index)
        if table is None or not table.cells:
            return
        for other, shown in enumerate(self._tables):
            linked = self._report_table(other)
            if other != index and linked is not None and linked.cells == table.cells:
                shown.move_cursor(row=row)

    @on(DataTable.RowHighlighted, "ReportTableView")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.has_focus:
            index = self._index(event.data_table)
            self._follow(index, event.cursor_row)
            self._describe(index, event.cursor_row)

    @on(DataTable.CellHighlighted, "ReportTableView")
    def _cell_highlighted(self, event: DataTable.CellHighlighted) -> None:
        if event.data_table.has_focus:
            index, at = self._index(event.data_table), event.coordinate
            self._follow(index, at.row)
            self._describe(index, at.row, at.column)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        widget = event.widget
        if isinstance(widget, ReportTableView) and widget in self._views():
            column = widget.cursor_column if widget.cursor_type == "cell" else None
            self._describe(self._index(widget), widget.cursor_row, column)

    def _index(self, table: DataTable[Any]) -> int:
        views = self._views()
        return views.index(table) if table in views else -1

    # -- a row's examples ---------------------------------------------------------------

    @on(DataTable.RowSelected, "ReportTableView")
    def _row_chosen(self, event: DataTable.RowSelected) -> None:
        self._choose(self._index(event.data_table), event.cursor_row)

    @on(DataTable.CellSelected, "ReportTableView")
    def _cell_chosen(self, event: DataTable.CellSelected) -> None:
        self._choose(self._index(event.data_table), event.coordinate.row)

    def _choose(self, index: int, row: int) -> None:
        table = self._report_table(index)
        if table is not None and table.opened(row):
            self.run_worker(self._drill(index, row), group="suite-drill", exclusive=True)
            return
        cell = None if table is None else table.cell(row)
        if cell is not None:
            self._open_examples(cell)
            self.query_one("#suite-examples").focus()

    def _open_examples(self, cell: RowCell) -> None:
        """List the examples of `cell`, under the first table holding its row."""
        self.open_cell = cell
        self.add_class("-examples")
        tables = self.report.tables if self.report else ()
        first = next((i for i, t in enumerate(tables) if cell in t.cells), None)
        for i, shown in enumerate(self._tables):
            shown.display = i == first
        self.run_query(
            on_a_cursor(examples_of),
            CellKey(cell.model, cell.task, cell.length),
            group="suite-examples",
            done=self._show_examples,
            failed=lambda exc: self._failed(f"could not read the examples: {exc}"),
        )

    def _show_examples(self, page: ExamplesPage) -> None:
        if self.open_cell is None:
            return
        table = self.query_one("#suite-examples", ExamplesTable)
        table.border_title = shown_line(page.title())
        table.show(page)

    @on(DataTable.RowSelected, "#suite-examples")
    def _example_chosen(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.lctui.open_generation(str(event.row_key.value))

    def _close_examples(self) -> None:
        cell, self.open_cell = self.open_cell, None
        self.cancel_query("suite-examples")
        self.remove_class("-examples")
        self.query_one("#suite-examples", ExamplesTable).clear()
        for shown in self._tables:
            shown.display = True
        tables = self.report.tables if self.report else ()
        back = next((i for i, t in enumerate(tables) if cell in t.cells), 0)
        if back < len(self._tables):
            self._tables[back].focus()

    # -- the tables a row drills into ---------------------------------------------------

    async def _drill(self, index: int, row: int) -> None:
        """Show the tables row `row` of the report's table `index` opens."""
        table = self._report_table(index) if index < len(self._tables) else None
        opened = () if table is None else table.opened(row)
        focused = self.focused
        at = self._drilled.index(focused) if focused in self._drilled else 0
        box = self.query_one("#suite-drill", Vertical)
        await box.remove_children()
        self._drilled = [ReportTableView(t, id=f"suite-drill-{i}") for i, t in enumerate(opened)]
        if not opened:
            self._close_drill()
            return
        self.drilled = (index, row)
        self.add_class("-drill")
        await box.mount_all(self._drilled)
        self._tables[index].move_cursor(row=row)
        self._drilled[min(at, len(opened) - 1)].focus()
        self.refresh_bindings()

    def _close_drill(self) -> None:
        index = 0 if self.drilled is None else self.drilled[0]
        self.drilled = None
        self.remove_class("-drill")
        self.refresh_bindings()
        if index < len(self._tables):
            self._tables[index].focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "next_table":
            return len(self._shown_views()) > 1
        if action == "step_row":
            return any(t.table.opens for t in self._tables) and self.open_cell is None
        if action == "focus_table":
            return bool(self._tables) and self.open_cell is None
        return True

    def action_next_table(self) -> None:
        views = self._shown_views()
        if views:
            at = views.index(self.focused) if self.focused in views else -1
            views[(at + 1) % len(views)].focus()

    def action_focus_table(self, n: int) -> None:
        views = self._shown_views()
        if 0 <= n < len(views):
            views[n].focus()

    def action_step_row(self, step: int) -> None:
        """Drill into the next (previous) row's tables of the table that opens them."""
        if self.drilled is not None:
            index, row = self.drilled
        else:
            focused = self.focused
            index = self._tables.index(focused) if focused in self._tables else -1
            if index < 0 or not self._tables[index].table.opens:
                index = next(i for i, v in enumerate(self._tables) if v.table.opens)
            row = self._tables[index].cursor_row - step
        rows = len(self._tables[index].table.rows)
        if rows:
            self.run_worker(
                self._drill(index, (row + step) % rows), group="suite-drill", exclusive=True
            )

    def action_reload(self) -> None:
        self._load()

    def action_back(self) -> None:
        """Close the examples list or the drilled tables, else leave the screen."""
        if self.open_cell is not None:
            self._close_examples()
        elif self.drilled is not None:
            self._close_drill()
        else:
            self.app.pop_screen()
