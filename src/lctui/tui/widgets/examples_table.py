"""The examples of one heatmap cell: a filtered, limited page of them (read by
`lctui.store.read.examples.cell_examples`) and the table showing it.

A page stops at `EXAMPLES_LIMIT` rows and fetches one more to say "500 of more than
500": the built-in DataTable is fine for hundreds of rows, not for a 100K-row cell.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import duckdb
from rich.text import Text
from textual.binding import Binding, BindingType

from lctui.core.text import escape_unprintable
from lctui.store.read.examples import ExampleFilter, ExampleRow, cell_examples
from lctui.tui.state.heatmap_data import CellKey
from lctui.tui.widgets.safe_table import SafeTable

EXAMPLES_LIMIT = 500
OUTPUT_CHARS = 60

FILTER_NAMES: dict[ExampleFilter, str] = {
    "all": "all",
    "failures": "failures (score < 1 or unparsed)",
    "unparsed": "unparsed only",
    "errors": "errors only",
}


@dataclass(frozen=True)
class ExamplesPage:
    key: CellKey
    filter: ExampleFilter
    rows: tuple[ExampleRow, ...]
    more: bool  # the cell has more matching examples than were fetched

    def title(self, reference: bool = False) -> str:
        shown = len(self.rows)
        count = f"{shown} of more than {shown}" if self.more else str(shown)
        noun = "example" if shown == 1 and not self.more else "examples"
        return f"{self.key.describe(reference)} · {FILTER_NAMES[self.filter]}: {count} {noun}"


def load_examples(
    cur: duckdb.DuckDBPyConnection,
    key: CellKey,
    which: ExampleFilter = "all",
    limit: int = EXAMPLES_LIMIT,
) -> ExamplesPage:
    # One more than shown, to tell "500 of more than 500".
    found = cell_examples(
        cur,
        model=key.model,
        task=key.task,
        length=key.length,
        depth=key.depth,
        which=which,
        limit=limit + 1,
        head_chars=OUTPUT_CHARS,
    )
    return ExamplesPage(key, which, tuple(found[:limit]), more=len(found) > limit)


class ExamplesTable(SafeTable[Any]):
    """Rows keyed by generation_id; enter (RowSelected) is handled by the screen."""

    # DataTable hides its enter binding; here it is the way into the inspector.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Inspect", id="examples.inspect"),
    ]

    DEFAULT_CSS = """
    ExamplesTable { height: 1fr; }
    """

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.zebra_stripes = True
        self.add_column("idx", key="idx")
        self.add_column("depth", key="depth")
        self.add_column("status", key="status")
        self.add_column("score", key="score")
        # A fixed width: auto widths settle a frame late, which made renders differ.
        self.add_column("output", key="output", width=OUTPUT_CHARS)

    def show(self, page: ExamplesPage) -> None:
        self.clear()
        for row in page.rows:
            self.add_row(
                Text(_idx(row), justify="right"),
                Text("—" if row.depth is None else f"{row.depth:.0f} %", justify="right"),
                self._status(row.status),
                Text("—" if row.score is None else f"{row.score:.2f}", justify="right"),
                Text(escape_unprintable(row.head)),  # plain text on one line, never markup
                key=row.generation_id,
            )

    def _status(self, status: str) -> Text:
        # Theme colours, so the statuses read the same as the heatmap's scale.
        colours = self.app.theme_variables
        styles = {
            "ok": "",
            "unparsed": f"bold {colours.get('warning', 'yellow')}",
            "error": f"bold {colours.get('error', 'red')}",
            # No score is stored (missing, never a 0): the score column shows —.
            "unscored": f"italic {colours.get('warning', 'yellow')}",
        }
        return Text(status, style=styles.get(status, "dim"))

    @property
    def highlighted_generation(self) -> str | None:
        if self.row_count == 0:
            return None
        key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key
        return None if key.value is None else str(key.value)


def _idx(row: ExampleRow) -> str:
    # Seeds are shown only when they are not the default, to keep the column narrow.
    if row.seed:
        return f"{row.seed}:{row.idx}"
    return "" if row.idx is None else str(row.idx)
