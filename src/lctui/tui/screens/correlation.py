"""The correlation screen: Spearman rho across models between tasks or categories at
one length (or every model's mean over all lengths), as a heatmap; enter opens the
scatter of the two scores behind a coefficient, with the model names. A second tab
sets each model's synthetic score against its downstream mean. Scatters are plotext
plots, or the character drawing where 256 colours show (widgets/plots.py); p switches.

The numbers come from `analysis.correlation` in a thread worker; with too few models
the screen shows the analysis's message instead of coefficients.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import duckdb
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import Static, TabbedContent, TabPane

from lctui.analysis.correlation import (
    BY,
    CorrelationMatrix,
    ScatterPoint,
    SyntheticDownstream,
    correlate,
    synthetic_vs_downstream,
)
from lctui.analysis.stats import SpearmanResult
from lctui.core.errors import LctuiError
from lctui.core.formatting import p_value
from lctui.core.lengths import format_length
from lctui.core.text import escape_unprintable, plural
from lctui.store.read.correlation import scored_lengths
from lctui.tui.screens.base import LctuiScreen
from lctui.tui.shown import shown, shown_line
from lctui.tui.widgets.heat_legend import HeatLegend
from lctui.tui.widgets.heatmap import HeatCell, HeatGrid, Heatmap, HeatRow
from lctui.tui.widgets.key_footer import KeyFooter
from lctui.tui.widgets.plots import ScatterView, plots_wanted
from lctui.tui.widgets.scatter import Point

if TYPE_CHECKING:
    from lctui.store.db import Store


def rho_text(rho: float | None) -> str:
    return "n/a" if rho is None else f"{rho:+.2f}"


def describe(result: SpearmanResult) -> str:
    """'rho +0.88  p 0.001  n 20', with the reason when there is no coefficient."""
    text = f"rho {rho_text(result.rho)}  p {p_value(result.p)}  n {result.n}"
    return f"{text}  ({result.reason})" if result.reason else text


# rho from -1 (red) through 0 (amber) to +1 (green), as rho_grid colours it.
RHO_SAMPLES = tuple(((rho + 1) / 2, rho_text(rho)) for rho in (-1.0, -0.5, 0.0, 0.5, 1.0))


def rho_grid(matrix: CorrelationMatrix) -> HeatGrid:
    """rho in every cell, coloured from -1 (red) through 0 (amber) to +1 (green). The rows
    carry the names, numbered; the columns their numbers (as `lctui correlate` prints
    them): task names as column titles made every column as wide as the longest."""
    labels = matrix.labels
    cells = {
        (i, j): HeatCell(None if c.rho is None else (c.rho + 1) / 2, rho_text(c.rho))
        for i, row in enumerate(matrix.cells)
        for j, c in enumerate(row)
    }
    rows = tuple(HeatRow("", f"{i + 1} {label}") for i, label in enumerate(labels))
    columns = tuple(str(i + 1) for i in range(len(labels)))
    return HeatGrid(matrix.scores.by, columns, rows, cells)


def points(found: list[ScatterPoint]) -> list[Point]:
    return [Point(p.model, p.x, p.y) for p in found]


@dataclass(frozen=True)
class Loaded:
    by: str
    length: int | None
    matrix: CorrelationMatrix | None
    message: str | None  # why there is no matrix
    synthetic: SyntheticDownstream | None


def read_correlation(
    store: Store,
    by: str,
    length: int | None,
    with_lengths: bool,
    synthetic: SyntheticDownstream | None,
) -> tuple[Loaded, list[int] | None]:
    """The matrix for `by` at `length` (or why there is none), the synthetic result
    unless given, and the lengths the results hold when `with_lengths`."""
    matrix, message = None, None
    lengths: list[int] | None = None
    try:
        if with_lengths:
            lengths = scored_lengths(store)
        try:
            matrix = correlate(store, by=by, length=length)
        except LctuiError as exc:  # too few models, said in the analysis's words
            message = str(exc)
        if synthetic is None:
            synthetic = synthetic_vs_downstream(store, length=length)
    except (LctuiError, duckdb.Error) as exc:
        message = f"could not read the results: {exc}"
    return Loaded(by, length, matrix, message, synthetic), lengths


class RhoHeatmap(Heatmap):
    """The heatmap, with enter named for what it opens here."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cell", "Scatter", id="correlation.scatter"),
    ]


class ScatterScreen(LctuiScreen):
    """The two scores of every model behind one coefficient (HELMET's figure 4)."""

    DEFAULT_CSS = """
    ScatterScreen #scatter-title { height: auto; padding: 0 1; background: $panel; }
    ScatterScreen ScatterView { border: round $primary; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "toggle_plots", "Plot/text", id="scatter.plots"),
        Binding("escape", "app.pop_screen", "Back", id="scatter.back"),
    ]

    def __init__(self, x: str, y: str, found: list[ScatterPoint], result: SpearmanResult) -> None:
        super().__init__()
        self.x, self.y, self.found, self.result = x, y, found, result

    def compose(self) -> ComposeResult:
        yield Static(f"{self.y} vs {self.x}: {describe(self.result)}", id="scatter-title")
        yield ScatterView(plots=plots_wanted(self.app.theme), id="scatter")
        yield KeyFooter()

    def on_mount(self) -> None:
        scatter = self.query_one(ScatterView)
        scatter.border_title = plural(len(self.found), "model")
        scatter.plot(points(self.found), self.x, self.y)

    def action_toggle_plots(self) -> None:
        view = self.query_one(ScatterView)
        view.show_plots(not view.plots)


class CorrelationScreen(LctuiScreen):
    """Tabs: 1 the rho matrix, 2 synthetic vs downstream."""

    DEFAULT_CSS = """
    CorrelationScreen #corr-header {
        height: auto; padding: 0 1; background: $panel; color: $text;
    }
    CorrelationScreen #corr-tabs { height: 1fr; }
    CorrelationScreen TabPane { padding: 0; }
    CorrelationScreen #corr-message { display: none; padding: 1 2; color: $warning; }
    CorrelationScreen.-few #corr-message { display: block; }
    CorrelationScreen.-few #corr-heatmap { display: none; }
    CorrelationScreen.-few HeatLegend { display: none; }
    CorrelationScreen #corr-heatmap, CorrelationScreen #synthetic-scatter {
        border: round $primary 40%;
        border-title-color: $text;
        &:focus { border: round $primary; }
    }
    CorrelationScreen #corr-cell { height: auto; padding: 0 1; }
    CorrelationScreen #synthetic-note { height: auto; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "show_tab('matrix')", "Matrix", id="correlation.matrix", show=False),
        Binding("2", "show_tab('synthetic')", "Synthetic", id="correlation.synthetic", show=False),
        Binding("t", "toggle_by", "Task/category", id="correlation.by"),
        Binding("n", "next_length", "Length", id="correlation.length"),
        Binding("p", "toggle_plots", "Plot/text", id="correlation.plots", show=False),
        Binding("escape", "back", "Back", id="correlation.back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.by = "task"
        self.length: int | None = None
        self.lengths: list[int | None] = [None]
        self.loaded: Loaded | None = None
        self._lengths_known = False

    def compose(self) -> ComposeResult:
        yield Static("Loading...", id="corr-header")
        with TabbedContent(id="corr-tabs", initial="matrix"):
            with TabPane("1 Matrix", id="matrix"):
                yield Static(id="corr-message", markup=False)
                yield RhoHeatmap(id="corr-heatmap")
                yield HeatLegend(
                    "#corr-heatmap", "rho", RHO_SAMPLES, "n/a no coefficient (why: below)"
                )
                yield Static(id="corr-cell")
            with TabPane("2 Synthetic vs downstream", id="synthetic"):
                yield Static(id="synthetic-note")
                yield ScatterView(plots=plots_wanted(self.app.theme), id="synthetic-scatter")
        yield KeyFooter()

    def on_mount(self) -> None:
        self._load(self.by, self.length, first=True)

    # -- queries ----------------------------------------------------------------------

    def _load(
        self,
        by: str,
        length: int | None,
        first: bool = False,
        synthetic: SyntheticDownstream | None = None,
    ) -> None:
        """Read the matrix for `by` at `length`; `synthetic`, when given, is the loaded
        synthetic-vs-downstream result for the same length (it does not depend on `by`).
        A newer choice replaces the load still running, whose answer is dropped; the
        lengths are asked again until one load has brought them."""
        self.run_query(
            read_correlation,
            by,
            length,
            first or not self._lengths_known,
            synthetic,
            group="correlation",
            done=lambda found: self._show(*found),
        )

    # -- showing ----------------------------------------------------------------------

    def _show(self, loaded: Loaded, lengths: list[int] | None) -> None:
        if lengths is not None:
            self.lengths = [None, *lengths]
            self._lengths_known = True
        if (loaded.by, loaded.length) != (self.by, self.length):
            return  # an answer to a superseded choice
        self.loaded = loaded
        at = (
            "all lengths (each model's mean)"
            if loaded.length is None
            else format_length(loaded.length)
        )
        matrix = loaded.matrix
        self.set_class(matrix is None, "-few")
        heatmap = self.query_one(Heatmap)
        if matrix is None:
            self.query_one("#corr-message", Static).update(shown(loaded.message or ""))
            self.query_one("#corr-cell", Static).update("")
            header = f"Spearman rho by {loaded.by} @ {at}"
        else:
            across = plural(len(matrix.models), "model")
            header = f"Spearman rho across {across} by {loaded.by} @ {at}"
            heatmap.border_title = f"rho by {loaded.by} (-1 red · 0 amber · +1 green)"
            heatmap.set_grid(rho_grid(matrix), heatmap.cursor)
            if self.query_one(TabbedContent).active == "matrix":
                heatmap.focus()
        keys = "  ·  t: task/category  n: length  enter: scatter  2: synthetic"
        self.query_one("#corr-header", Static).update(
            Content.assemble((escape_unprintable(header), "bold"), (keys, "$text-muted"))
        )
        self._show_synthetic(loaded.synthetic)

    def _show_synthetic(self, synthetic: SyntheticDownstream | None) -> None:
        note = self.query_one("#synthetic-note", Static)
        scatter = self.query_one("#synthetic-scatter", ScatterView)
        if synthetic is None:
            note.update("")
            scatter.plot([], "synthetic", "downstream")
            return
        lines = [f"synthetic vs downstream mean: {describe(synthetic.overall)}"]
        if synthetic.downstream:
            lines.append(f"  downstream: {synthetic.downstream}")
        lines += [f"  synthetic vs {c}: {describe(r)}" for c, r in synthetic.per_category.items()]
        note.update(shown("\n".join(escape_unprintable(line) for line in lines)))
        scatter.border_title = "each model: synthetic score (x) vs downstream mean (y)"
        scatter.plot(points(synthetic.points), "synthetic", "downstream mean")

    @on(Heatmap.CellHighlighted)
    def _cell_highlighted(self, event: Heatmap.CellHighlighted) -> None:
        matrix = self.loaded.matrix if self.loaded else None
        if matrix is None:
            return
        x, y = matrix.labels[event.column], matrix.labels[event.row]
        text = f"{y} / {x}: {describe(matrix.cells[event.row][event.column])}"
        self.query_one("#corr-cell", Static).update(shown_line(text))

    @on(Heatmap.CellSelected)
    def _cell_selected(self, event: Heatmap.CellSelected) -> None:
        matrix = self.loaded.matrix if self.loaded else None
        if matrix is None:
            return
        x, y = matrix.labels[event.column], matrix.labels[event.row]
        self.app.push_screen(
            ScatterScreen(x, y, matrix.scatter(x, y), matrix.cells[event.row][event.column])
        )

    # -- actions ----------------------------------------------------------------------

    def action_show_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab

    def action_toggle_by(self) -> None:
        self.by = BY[(BY.index(self.by) + 1) % len(BY)]
        loaded = self.loaded
        # The synthetic-vs-downstream result depends on the length only: keep it.
        synthetic = loaded.synthetic if loaded and loaded.length == self.length else None
        self._load(self.by, self.length, synthetic=synthetic)

    def action_next_length(self) -> None:
        index = self.lengths.index(self.length) if self.length in self.lengths else 0
        self.length = self.lengths[(index + 1) % len(self.lengths)]
        self._load(self.by, self.length)

    def action_toggle_plots(self) -> None:
        view = self.query_one("#synthetic-scatter", ScatterView)
        view.show_plots(not view.plots)

    def action_back(self) -> None:
        self.app.pop_screen()
