"""The LongBench v2 screen: the original's table per model, mode and length (overall,
compensated, easy, hard, short, medium, long, n, unparsed) and the accuracy per domain,
as `lctui report --suite longbench` prints them.

Numbers come from `analysis.longbench.longbench_table` in a thread worker (percent,
one decimal; `-` a group without an answer). The line under the tables says what the
highlighted row (or domain) holds: its answers, those naming no option, the errors
left out. `enter` on a row lists its examples in place of the domain table; `enter`
on an example opens the inspector. `R` reads the table again, and so does coming back
to the screen when something was written meanwhile (a re-score in the inspector).
"""

from __future__ import annotations

from typing import ClassVar

import duckdb
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import DataTable, Static

from lctui.analysis.longbench import MODES, LongBenchScores, longbench_table, shown
from lctui.core.lengths import format_length
from lctui.core.text import escape_unprintable, plural
from lctui.store.read.heat import ChangeStamp, change_stamp
from lctui.tui.screens.base import LctuiScreen, on_a_cursor
from lctui.tui.shown import shown_line
from lctui.tui.state.heatmap_data import CellKey
from lctui.tui.state.longbench import MODE_NAMES
from lctui.tui.widgets.examples_table import ExamplesPage, ExamplesTable, load_examples
from lctui.tui.widgets.key_footer import KeyFooter
from lctui.tui.widgets.longbench_tables import ScoreTable, accuracy_columns, domain_columns

EMPTY_MESSAGE = (
    "No LongBench v2 scores: run some (e.g. --tasks longbench --data DIR) or "
    "`lctui import longbench-results FILE`."
)
NOTE = "% right. Comp.: an answer naming no option counts 0.25. enter: the examples"


def row_line(row: LongBenchScores) -> str:
    """What one row holds: its answers, those naming no option, those left out."""
    where = f"{row.model} · {MODES.get(row.task, row.task)} · {format_length(row.length)}"
    overall = row.overall
    left = f", {row.left_out} failed or unscored left out" if row.left_out else ""
    return f"{where}: {overall.n} answered, {overall.unparsed} name no option{left}"


def domain_line(row: LongBenchScores, domain: str) -> str:
    """One domain of one row, its name in full."""
    where = f"{row.model} · {MODE_NAMES.get(row.task, row.task)} · {format_length(row.length)}"
    group = row.groups.get(domain)
    if group is None:
        return f"{where} · {domain}: no question of it answered"
    return (
        f"{where} · {domain}: {shown(group.accuracy)} % of {group.n} "
        f"(comp. {shown(group.compensated)}), {group.unparsed} name no option"
    )


def examples_of(cur: duckdb.DuckDBPyConnection, key: CellKey) -> ExamplesPage:
    return load_examples(cur, key)


def table_and_stamp(
    cur: duckdb.DuckDBPyConnection,
) -> tuple[list[LongBenchScores], ChangeStamp]:
    """The table and the store's change stamp it was read at."""
    return longbench_table(cur), change_stamp(cur)


class LongBenchScreen(LctuiScreen):
    """LongBench v2's accuracy per model, mode and length; by domain below it."""

    DEFAULT_CSS = """
    LongBenchScreen #lb-header { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    LongBenchScreen #lb-empty { display: none; padding: 1 2; color: $text-muted; }
    LongBenchScreen.-empty #lb-empty { display: block; }
    LongBenchScreen.-empty ScoreTable { display: none; }
    LongBenchScreen .note { height: auto; padding: 0 1; color: $text-muted; }
    LongBenchScreen ScoreTable, LongBenchScreen #lb-examples {
        height: 1fr;
        border: round $primary 40%;
        &:focus { border: round $primary; }
    }
    LongBenchScreen #lb-examples { display: none; }
    LongBenchScreen.-examples #lb-examples { display: block; }
    LongBenchScreen.-examples #lb-domains { display: none; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("R", "reload", "Reload", id="longbench.reload", show=False),
        Binding("escape", "back", "Back", id="longbench.back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[LongBenchScores] | None = None
        self._stamp: ChangeStamp | None = None
        self.open_row: LongBenchScores | None = None  # the row whose examples are listed

    def compose(self) -> ComposeResult:
        yield Static("Loading LongBench v2 scores...", id="lb-header")
        yield Static(EMPTY_MESSAGE, id="lb-empty", markup=False)
        yield Static(NOTE, classes="note")
        yield ScoreTable(accuracy_columns(), id="lb-table")
        yield ScoreTable(domain_columns(), id="lb-domains")
        yield ExamplesTable(id="lb-examples")
        yield Static("", id="lb-detail", classes="note", markup=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#lb-table").border_title = "Accuracy (%)"
        domains = self.query_one("#lb-domains", ScoreTable)
        domains.border_title = "By domain (%)"
        domains.cursor_type = "cell"  # the line under it names the highlighted domain
        self._load()

    def on_screen_resume(self) -> None:
        shown = self._stamp
        if shown is not None:  # back from the inspector (a re-score?) or a run
            self.run_query(
                on_a_cursor(change_stamp),
                group="longbench-poll",
                done=lambda now: self._load() if now != shown else None,
                failed=self._read_failed,
            )

    def _load(self) -> None:
        self.run_query(
            on_a_cursor(table_and_stamp),
            group="longbench-table",
            done=self._show,
            failed=self._read_failed,
        )

    def _read_failed(self, error: Exception) -> None:
        self._failed(f"could not read LongBench v2 scores: {error}")

    def _failed(self, message: str) -> None:
        self.query_one("#lb-header", Static).update(
            Content.styled(escape_unprintable(message), "$error")
        )
        self.notify(message, title="LongBench v2", severity="error")

    def _show(self, loaded: tuple[list[LongBenchScores], ChangeStamp]) -> None:
        rows, self._stamp = loaded
        first = self.rows is None
        self.rows = rows
        self.set_class(not rows, "-empty")
        models = len({r.model for r in rows})
        header = (
            f"LongBench v2  ·  {plural(models, 'model')}  ·  "
            f"{plural(len(rows), 'model x mode x length row')}"
        )
        self.query_one("#lb-header", Static).update(header if rows else "LongBench v2")
        table = self.query_one("#lb-table", ScoreTable)
        table.show_rows(rows)
        self.query_one("#lb-domains", ScoreTable).show_rows(rows)
        if rows and first:
            table.focus()
        self._describe()
        if self.open_row is not None:
            self._open_examples(self.open_row)

    def _row(self, index: int) -> LongBenchScores | None:
        rows = self.rows or []
        return rows[index] if 0 <= index < len(rows) else None

    def _describe(self) -> None:
        """The line under the tables: the highlighted row, or the highlighted domain when
        the domain table has the focus."""
        table = self.query_one("#lb-table", ScoreTable)
        domains = self.query_one("#lb-domains", ScoreTable)
        row = self._row(table.cursor_row)
        line = "" if row is None else row_line(row)
        at = domains.cursor_column - 3  # after model, mode and length
        if row is not None and domains.has_focus and 0 <= at < len(domains.columns_shown):
            line = domain_line(row, domains.columns_shown[at].key)
        self.query_one("#lb-detail", Static).update(shown_line(line))

    # -- the two tables move together -------------------------------------------------
    # Only the focused one leads: a table filled again moves its own cursor too.

    @on(DataTable.RowHighlighted, "#lb-table")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.has_focus:
            self.query_one("#lb-domains", ScoreTable).move_cursor(row=event.cursor_row)
            self._describe()

    @on(DataTable.CellHighlighted, "#lb-domains")
    def _domain_highlighted(self, event: DataTable.CellHighlighted) -> None:
        if event.data_table.has_focus:
            self.query_one("#lb-table", ScoreTable).move_cursor(row=event.coordinate.row)
            self._describe()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self._describe()

    # -- a row's examples ---------------------------------------------------------------

    @on(DataTable.RowSelected, "#lb-table")
    def _row_chosen(self, event: DataTable.RowSelected) -> None:
        self._choose(event.cursor_row)

    @on(DataTable.CellSelected, "#lb-domains")
    def _domain_chosen(self, event: DataTable.CellSelected) -> None:
        self._choose(event.coordinate.row)

    def _choose(self, index: int) -> None:
        row = self._row(index)
        if row is not None:
            self._open_examples(row)
            self.query_one("#lb-examples").focus()

    def _open_examples(self, row: LongBenchScores) -> None:
        self.open_row = row
        self.add_class("-examples")
        self.run_query(
            on_a_cursor(examples_of),
            CellKey(row.model, row.task, row.length),
            group="longbench-examples",
            done=self._show_examples,
            failed=lambda exc: self._failed(f"could not read the examples: {exc}"),
        )

    def _show_examples(self, page: ExamplesPage) -> None:
        if self.open_row is None:
            return
        table = self.query_one("#lb-examples", ExamplesTable)
        table.border_title = shown_line(page.title())
        table.show(page)

    @on(DataTable.RowSelected, "#lb-examples")
    def _example_chosen(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.lctui.open_generation(str(event.row_key.value))

    def _close_examples(self) -> None:
        self.open_row = None
        self.cancel_query("longbench-examples")
        self.remove_class("-examples")
        self.query_one("#lb-examples", ExamplesTable).clear()
        self.query_one("#lb-table").focus()

    def action_reload(self) -> None:
        self._load()

    def action_back(self) -> None:
        """Close the examples list, else leave the screen."""
        if self.open_row is not None:
            self._close_examples()
        else:
            self.app.pop_screen()
