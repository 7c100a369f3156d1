"""The A/B comparison screen: two sides picked from the models and runs in the store,
a task x length table of paired statistics, and the changed examples.

Every number comes from `analysis.compare.compare` in a thread worker; `enter` on a
changed example opens the side-by-side view of its two outputs, and `e` / `E` write
the comparison as markdown / an HTML page (analysis.report_md) into the exports folder. Two
sides that share no scored example open no comparison: the header says why
(analysis.pairing: different tokenizers, lengths, seeds, tasks, template allowance).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import duckdb
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import DataTable, Label, Select, Static

from lctui.analysis.compare import (
    ChangedExample,
    CompareCell,
    CompareResult,
    compare,
    side_notes,
)
from lctui.analysis.report_md import compare_blocks, render
from lctui.analysis.stats import MIN_INTERVAL_PAIRS, TOO_FEW_PAIRS
from lctui.core.formatting import fixed, p_value
from lctui.core.lengths import format_length
from lctui.core.paths import export_file
from lctui.core.private import write_output
from lctui.core.text import escape_unprintable, plural
from lctui.store.read.runs import compare_sides
from lctui.store.samples import SAMPLE_NOTE
from lctui.tui.screens.base import LctuiScreen, on_a_cursor
from lctui.tui.shown import shown, shown_line
from lctui.tui.widgets.key_footer import KeyFooter
from lctui.tui.widgets.safe_table import SafeTable

if TYPE_CHECKING:
    from pathlib import Path

SIGNIFICANT = 0.05
NO_SIDES = "Fewer than two models or runs in the database: nothing to compare yet."


def list_sides(cur: duckdb.DuckDBPyConnection) -> list[tuple[str, str]]:
    """(label, spec) of every model, then of every run (oldest first)."""
    sides = []
    for side in compare_sides(cur):
        if side.kind == "model":
            sides.append((f"model {side.spec}", side.spec))
        else:
            # run ids start with the date; a shipped sample run says so
            label = f"{side.label}, {SAMPLE_NOTE}" if side.sample else side.label
            sides.append((f"{side.spec} ({label})", side.spec))
    return sides


def default_sides(specs: list[str]) -> tuple[str, str]:
    """The first two models; with fewer, the two latest runs (older as A)."""
    models = [s for s in specs if not s.startswith("run:")]
    runs = [s for s in specs if s.startswith("run:")]
    if len(models) >= 2:
        return models[0], models[1]
    if len(runs) >= 2:
        return runs[-2], runs[-1]
    return specs[0], specs[1]


def diff_style(cell: CompareCell) -> str:
    """Green when A is significantly better, red when B is, muted when not significant."""
    if cell.p is None or cell.p >= SIGNIFICANT or cell.diff == 0:
        return "dim"
    return "bold green" if cell.diff > 0 else "bold red"


def report_path(result: CompareResult, fmt: str) -> Path:
    """The report's file in the exports folder (core/paths.py), like every export."""
    return export_file(("compare", result.a.spec, "vs", result.b.spec), fmt)


class CompareScreen(LctuiScreen):
    """Pickers for A and B, the per-cell table, then the changed examples."""

    AUTO_FOCUS = "#compare-changed"

    DEFAULT_CSS = """
    CompareScreen #compare-pickers { height: auto; }
    CompareScreen #compare-pickers Select { width: 1fr; }
    CompareScreen #compare-pickers Label { padding: 0 1; text-style: bold; }
    /* Focus seen in any palette, 256 colours included: the picker turns reverse. */
    CompareScreen #compare-pickers Select:focus > SelectCurrent {
        text-style: reverse bold;
    }
    CompareScreen #compare-header {
        /* room for why two sides cannot pair (analysis/pairing.py), at 80 columns */
        height: auto; max-height: 6; padding: 0 1; background: $panel; color: $text;
    }
    CompareScreen #compare-cells, CompareScreen #compare-changed {
        border: round $primary 40%;
        border-title-color: $text;
        border-subtitle-color: $text-muted;
        &:focus { border: round $primary; }
    }
    CompareScreen #compare-cells { height: 1fr; }
    CompareScreen #compare-changed { height: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("x", "swap", "Swap A/B", id="compare.swap"),
        Binding("e", "export('md')", "Export md", id="compare.export-md"),
        Binding("E", "export('html')", "Export HTML", id="compare.export-html", show=False),
        Binding("R", "reload", "Reload", id="compare.reload", show=False),
        Binding("escape", "back", "Back", id="compare.back"),
    ]

    def __init__(self, a: str | None = None, b: str | None = None) -> None:
        super().__init__()
        self.a, self.b = a, b
        self.sides: list[tuple[str, str]] = []
        self.result: CompareResult | None = None
        self.last_export: Path | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="compare-pickers"):
            yield Label("A")
            yield Select[str]([], prompt="model or run", id="pick-a", compact=True)
            yield Label("B")
            yield Select[str]([], prompt="model or run", id="pick-b", compact=True)
        yield Static("Loading the models and runs...", id="compare-header", markup=False)
        yield SafeTable[Text](id="compare-cells", cursor_type="row", zebra_stripes=True)
        yield SafeTable[Text](id="compare-changed", cursor_type="row", zebra_stripes=True)
        yield KeyFooter()

    def on_mount(self) -> None:
        cells = self.query_one("#compare-cells", DataTable)
        cells.border_title = "A - B per task x length (paired by example)"
        for name in ("task", "length", "n", "A", "B", "A - B", "95% CI", "test", "p", "A>B", "B>A"):
            cells.add_column(name, key=name)
        changed = self.query_one("#compare-changed", DataTable)
        changed.border_title = "Changed examples"
        for name in ("task", "length", "example", "A", "B", "better"):
            changed.add_column(name, key=name)
        self._load_sides()

    # -- queries ----------------------------------------------------------------------

    def _load_sides(self) -> None:
        self.run_query(
            on_a_cursor(list_sides),
            group="compare-sides",
            done=self._show_sides,
            failed=lambda exc: self._failed(f"could not list models and runs: {exc}"),
        )

    def _compare(self, a: str, b: str) -> None:
        # A newer pair replaces the comparison still running, whose answer is dropped.
        self.run_query(
            compare, a, b, group="compare-run", done=self._show_result, failed=self._failed
        )

    def _failed(self, error: str | Exception) -> None:
        message = str(error)
        self.result = None
        self._header(Content.styled(escape_unprintable(message), "$error"))
        self.query_one("#compare-cells", DataTable).clear()
        changed = self.query_one("#compare-changed", DataTable)
        changed.clear()
        changed.can_focus = False  # as when it lists nothing: the pickers one tab away
        self.refresh_bindings()

    # -- showing ----------------------------------------------------------------------

    def _header(self, text: str | Content) -> None:
        self.query_one("#compare-header", Static).update(
            shown(text) if isinstance(text, str) else text
        )

    def _show_sides(self, sides: list[tuple[str, str]]) -> None:
        self.sides = sides
        specs = [spec for _, spec in sides]
        shown_sides = [(shown_line(label), value) for label, value in sides]
        for picker in self.query(Select):
            picker.set_options(shown_sides)
        if len(specs) < 2:
            self._header(NO_SIDES)
            return
        if not (self.a and self.b):
            self.a, self.b = default_sides(specs)
        self._set_pickers()
        self._start()

    def _set_pickers(self) -> None:
        with self.prevent(Select.Changed):
            for picker, spec in zip(self.query(Select), (self.a, self.b), strict=True):
                if spec in [s for _, s in self.sides]:
                    picker.value = spec

    def _start(self) -> None:
        if not self.a or not self.b:
            return
        self._header(f"Comparing {self.a} (A) with {self.b} (B)...")
        self._compare(self.a, self.b)

    def _show_result(self, result: CompareResult) -> None:
        self.result = result
        self._header(self._summary(result))
        cells = self.query_one("#compare-cells", DataTable)
        cells.clear()
        for c in result.cells:
            row = [c.label, format_length(c.length), str(c.n), f"{c.mean_a:.3f}",
                   f"{c.mean_b:.3f}", fixed(c.diff, signed=True), c.ci.shown(),
                   c.test, p_value(c.p),
                   str(c.a_better), str(c.b_better)]  # fmt: skip
            styled = [
                Text(t, justify="left" if i in (0, 7) else "right") for i, t in enumerate(row)
            ]
            styled[5].stylize(diff_style(c))
            styled[8].stylize(diff_style(c))
            cells.add_row(*styled)
        cells.border_subtitle = f"{plural(len(result.cells), 'cell')} · colour: p < {SIGNIFICANT}"
        changed = self.query_one("#compare-changed", DataTable)
        changed.clear()
        for index, ch in enumerate(result.changed):
            better = Text("A", style="bold green") if ch.a_better else Text("B", style="bold red")
            changed.add_row(
                Text(ch.task), Text(format_length(ch.length), justify="right"),
                Text(ch.example_id), Text(f"{ch.score_a:.2f}", justify="right"),
                Text(f"{ch.score_b:.2f}", justify="right"), better, key=str(index),
            )  # fmt: skip
        changed.border_title = (  # within 80 columns: a border title is cut at the edge
            f"Changed examples (|A - B| >= {result.threshold:g}): {result.a_better} better "
            f"in A, {result.b_better} better in B"
        )
        changed.border_subtitle = "enter: side-by-side" if result.changed else "none"
        # An empty list takes no focus, so one tab from the table reaches the pickers.
        changed.can_focus = bool(result.changed)
        if not isinstance(self.focused, Select):
            (changed if result.changed else cells).focus()
        self.refresh_bindings()

    def _summary(self, result: CompareResult) -> Content:
        pairs = sum(c.n for c in result.cells)
        notes = side_notes(result)
        too_few = sum(c.ci.too_few for c in result.cells)
        if too_few:  # the CLI and the reports name them; here the column says which
            notes.append(
                f"{plural(too_few, 'cell')} under {MIN_INTERVAL_PAIRS} pairs: no interval "
                f"({TOO_FEW_PAIRS})"
            )
        return Content.assemble(
            (escape_unprintable(result.a.label), "bold"), " (A) vs ",
            (escape_unprintable(result.b.label), "bold"),
            f" (B) · {plural(pairs, 'pair')} in {plural(len(result.cells), 'cell')}\nunmatched: ",
            (f"{result.only_a} only A, {result.only_b} only B", "$warning"),
            " · excluded errors: ",
            (f"{result.errors_a} of A, {result.errors_b} of B", "$warning"),
            *(
                (" · not scored: ", (f"{result.unscored_a} of A, {result.unscored_b} of B",
                                     "$warning"))
                if result.unscored_a or result.unscored_b else ()
            ),
            " · McNemar + Newcombe CI on pass/fail, Wilcoxon + bootstrap CI on graded",
            *((("\n" + "; ".join(notes), "$warning"),) if notes else ()),
        )  # fmt: skip

    # -- events and actions -------------------------------------------------------------

    @on(Select.Changed)
    def _side_picked(self, event: Select.Changed) -> None:
        if not isinstance(event.value, str):
            return
        if event.select.id == "pick-a":
            self.a = event.value
        else:
            self.b = event.value
        self._start()

    @on(DataTable.RowSelected, "#compare-changed")
    def _open_changed(self, event: DataTable.RowSelected) -> None:
        if self.result is None or event.row_key.value is None:
            return
        self.open_side_by_side(self.result.changed[int(event.row_key.value)])

    def open_side_by_side(self, changed: ChangedExample) -> None:
        from lctui.tui.screens.side_by_side import SideBySideScreen

        assert self.result is not None
        self.app.push_screen(SideBySideScreen(changed, self.result.a.spec, self.result.b.spec))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "export":
            return self.result is not None
        return True

    def action_swap(self) -> None:
        self.a, self.b = self.b, self.a
        self._set_pickers()
        self._start()

    def action_reload(self) -> None:
        self._load_sides()

    def action_export(self, fmt: str) -> None:
        if self.result is None:
            return
        path = report_path(self.result, fmt)
        try:
            write_output(path, render(compare_blocks(self.result), fmt))
        except OSError as exc:
            self.notify(f"could not write {path}: {exc}", title="Export", severity="error")
            return
        self.last_export = path
        self.notify(f"Wrote {path}", title="Comparison exported")

    def action_back(self) -> None:
        self.app.pop_screen()
