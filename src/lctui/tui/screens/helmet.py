"""The HELMET screen: HELMET's table, the seven category means and the overall mean of
every model at every length, as `lctui report --suite helmet` prints it.

Numbers come from `analysis.helmet.helmet_table` in a thread worker (0-100; `*` marks a
mean some of whose datasets have no score; `-` a category with none). The line under
the table names what is missing in the highlighted row.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import DataTable, Static

from lctui.analysis.helmet import CATEGORIES, HEADINGS, HelmetRow, helmet_table, shown
from lctui.core.lengths import format_length
from lctui.core.text import escape_unprintable, plural
from lctui.tui.screens.base import LctuiScreen
from lctui.tui.shown import shown_line
from lctui.tui.widgets.key_footer import KeyFooter
from lctui.tui.widgets.safe_table import SafeTable

EMPTY_MESSAGE = (
    "No scores of HELMET's tasks: run some (e.g. --tasks helmet) or "
    "`lctui import helmet-results DIR`."
)
NOTE = "0-100, as HELMET's tables. *: partial (a dataset has no score)  -: none"


def missing_line(row: HelmetRow) -> str:
    """What the row lacks: the datasets of its partial categories, its empty categories."""
    partial = [m for c in row.categories.values() if c.partial for m in c.missing]
    empty = [HEADINGS[k] for k, c in row.categories.items() if c.value is None]
    parts = []
    if partial:
        parts.append(f"without a score: {', '.join(partial)}")
    if empty:
        parts.append(f"no dataset scored: {', '.join(empty)}")
    where = f"{row.model} @ {format_length(row.length)}"
    return f"{where}: " + ("; ".join(parts) if parts else "every dataset scored")


class HelmetScreen(LctuiScreen):
    """HELMET's categories per model and length; the row's gaps under it."""

    DEFAULT_CSS = """
    HelmetScreen #helmet-header { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    HelmetScreen #helmet-empty { display: none; padding: 1 2; color: $text-muted; }
    HelmetScreen.-empty #helmet-empty { display: block; }
    HelmetScreen.-empty #helmet-table { display: none; }
    HelmetScreen .note { height: auto; padding: 0 1; color: $text-muted; }
    HelmetScreen #helmet-table {
        height: 1fr;
        border: round $primary 40%;
        &:focus { border: round $primary; }
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("R", "reload", "Reload", id="helmet.reload", show=False),
        Binding("escape", "back", "Back", id="helmet.back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[HelmetRow] | None = None

    def compose(self) -> ComposeResult:
        yield Static("Loading HELMET scores...", id="helmet-header")
        yield Static(EMPTY_MESSAGE, id="helmet-empty", markup=False)
        yield Static(NOTE, classes="note")
        yield SafeTable[str](id="helmet-table", cursor_type="row", zebra_stripes=True)
        yield Static("", id="helmet-missing", classes="note", markup=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#helmet-table").border_title = "HELMET categories"
        self._load()

    def _load(self) -> None:
        self.run_query(
            helmet_table,
            group="helmet-table",
            done=self._show,
            failed=lambda exc: self._failed(f"could not read HELMET scores: {exc}"),
        )

    def _failed(self, message: str) -> None:
        self.query_one("#helmet-header", Static).update(
            Content.styled(escape_unprintable(message), "$error")
        )
        self.notify(message, title="HELMET", severity="error")

    def _show(self, rows: list[HelmetRow]) -> None:
        self.rows = rows
        self.set_class(not rows, "-empty")
        models = len({r.model for r in rows})
        header = (
            f"HELMET  ·  {plural(models, 'model')}  ·  {plural(len(rows), 'model x length row')}"
        )
        self.query_one("#helmet-header", Static).update(header if rows else "HELMET")
        table = self.query_one("#helmet-table", DataTable)
        table.clear(columns=True)
        table.add_column("model", key="model")
        table.add_column("len", key="length")
        for category in CATEGORIES:
            table.add_column(HEADINGS[category], key=category)
        table.add_column("Overall", key="overall")
        for i, r in enumerate(rows):
            cells = [shown(r.categories[k].value, r.categories[k].partial) for k in CATEGORIES]
            table.add_row(
                r.model,
                format_length(r.length),
                *cells,
                shown(r.overall, r.partial),
                key=str(i),
            )
        if rows:
            table.focus()
            self._show_missing(0)

    def _show_missing(self, index: int) -> None:
        if self.rows and 0 <= index < len(self.rows):
            self.query_one("#helmet-missing", Static).update(
                shown_line(missing_line(self.rows[index]))
            )

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_missing(event.cursor_row)

    def action_reload(self) -> None:
        self._load()

    def action_back(self) -> None:
        self.app.pop_screen()
