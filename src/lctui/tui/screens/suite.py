"""A suite's own report as a screen: the tables a registered suite defines
(core/suites.py), as `lctui report --suite NAME` prints them, for any suite, a plugin's
included. HELMET's categories (`H`) are shown here; LongBench v2 and LIFBench keep
screens of their own for their drill-downs until their reports carry them.

The report is built in a thread worker. Each table is a row-cursor table; the line
under them says what the highlighted row of the focused table holds (the suite's row
details, e.g. HELMET's datasets without a score), then the report's notes.
"""

from __future__ import annotations

from typing import ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import DataTable, Static

from lctui.core.suites import ReportTable, Suite, SuiteReport, get_suite
from lctui.core.text import escape_unprintable, plural
from lctui.store.db import Store
from lctui.tui.screens.base import LctuiScreen
from lctui.tui.shown import shown_line
from lctui.tui.widgets.key_footer import KeyFooter
from lctui.tui.widgets.safe_table import SafeTable


def empty_message(suite: Suite) -> str:
    """What an empty screen says: the suite's own words, for the file open here."""
    return suite.empty.format(db="This results file", wanted="") + "."


class SuiteScreen(LctuiScreen):
    """One suite's report: its tables, the highlighted row's details, its notes."""

    DEFAULT_CSS = """
    SuiteScreen #suite-header { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    SuiteScreen #suite-empty { display: none; padding: 1 2; color: $text-muted; }
    SuiteScreen.-empty #suite-empty { display: block; }
    SuiteScreen.-empty #suite-tables { display: none; }
    SuiteScreen .note { height: auto; padding: 0 1; color: $text-muted; }
    SuiteScreen #suite-tables { height: 1fr; }
    SuiteScreen #suite-tables SafeTable {
        height: 1fr;
        border: round $primary 40%;
        &:focus { border: round $primary; }
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("R", "reload", "Reload", id="suite.reload", show=False),
        Binding("escape", "back", "Back", id="suite.back"),
    ]

    def __init__(self, suite: str) -> None:
        super().__init__()
        self.suite = get_suite(suite)
        self.report: SuiteReport | None = None
        self._tables: list[DataTable[str]] = []  # in the report's order

    def compose(self) -> ComposeResult:
        yield Static(f"Loading {self.suite.title}...", id="suite-header", markup=False)
        yield Static(empty_message(self.suite), id="suite-empty", markup=False)
        yield Static(self.suite.about, classes="note", markup=False)
        yield Vertical(id="suite-tables")
        yield Static("", id="suite-detail", classes="note", markup=False)
        yield Static("", id="suite-notes", classes="note", markup=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        self._load()

    def _load(self) -> None:
        self.run_query(
            self._build,
            group="suite-report",
            done=self._show,
            failed=lambda exc: self._failed(f"could not read {self.suite.title}: {exc}"),
        )

    def _build(self, store: Store) -> SuiteReport | None:
        build = self.suite.report
        return None if build is None else build(store, None, None)

    def _failed(self, message: str) -> None:
        self.query_one("#suite-header", Static).update(
            Content.styled(escape_unprintable(message), "$error")
        )
        self.notify(message, title=self.suite.title, severity="error")

    def _show(self, report: SuiteReport | None) -> None:
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
        if shown:
            shown[0].focus()
            self._describe(0, 0)

    def _table(self, index: int, table: ReportTable) -> SafeTable[str]:
        shown: SafeTable[str] = SafeTable(
            id=f"suite-table-{index}", cursor_type="row", zebra_stripes=True
        )
        shown.border_title = table.title
        for i, heading in enumerate(table.narrow_columns()):
            shown.add_column(heading, key=str(i))
        for i, row in enumerate(table.rows):
            shown.add_row(*row, key=str(i))
        return shown

    def _describe(self, table: int, row: int) -> None:
        """The line under the tables: the details of `row` of table `table`."""
        line = ""
        if self.report and 0 <= table < len(self.report.tables):
            details = self.report.tables[table].details
            line = details[row] if 0 <= row < len(details) else ""
        self.query_one("#suite-detail", Static).update(shown_line(line))

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._describe(self._index(event.data_table), event.cursor_row)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        if isinstance(event.widget, DataTable):
            self._describe(self._index(event.widget), event.widget.cursor_row)

    def _index(self, table: DataTable[str]) -> int:
        return self._tables.index(table) if table in self._tables else -1

    def action_reload(self) -> None:
        self._load()

    def action_back(self) -> None:
        self.app.pop_screen()
