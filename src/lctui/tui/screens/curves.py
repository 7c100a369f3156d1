"""Length and depth views: score vs length per model and task (a table with a sparkline
per curve, and under it the highlighted row's task plotted, a line per model),
RULER's effective length per model over RULER's tasks (how many of them in `tasks`)
with a threshold set on the screen, and depth x length heatmaps of the needle tasks
(the results screen's heatmap widget).

The data come from `analysis.curves` in one thread worker; a new threshold is applied
to the curves already loaded, without a query.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Input, OptionList, Static, TabbedContent, TabPane

from lctui.analysis.curves import (
    RULER_THRESHOLD,
    DepthGrid,
    EffectiveLength,
    LengthCurve,
    depth_grids,
    effective_lengths,
    length_curves,
)
from lctui.core.lengths import format_length
from lctui.core.text import plural
from lctui.tui.screens.base import LctuiScreen
from lctui.tui.shown import shown_line
from lctui.tui.widgets.heatmap import HeatCell, HeatGrid, Heatmap, HeatRow
from lctui.tui.widgets.key_footer import KeyFooter
from lctui.tui.widgets.ordered_keys import OrderedInput
from lctui.tui.widgets.plots import CurveLine, LengthPlot, plots_wanted
from lctui.tui.widgets.safe_table import SafeTable

if TYPE_CHECKING:
    from lctui.store.db import Store

BARS = "▁▂▃▄▅▆▇█"
EMPTY_MESSAGE = "No results yet: run some tasks at several lengths (ctrl+n), then R reloads."


def sparkline(values: list[float | None]) -> str:
    """One bar per value on a fixed 0..1 scale (so curves compare); × where none."""
    out = []
    for v in values:
        if v is None:
            out.append("×")
        else:
            out.append(BARS[min(len(BARS) - 1, max(0, round(v * (len(BARS) - 1))))])
    return "".join(out)


def mean_text(value: float | None, missing: bool = False) -> Text:
    """The mean, or why there is none: `miss` when scores are missing (never a 0), else
    `err` (every generation failed)."""
    if value is None:
        if missing:
            return Text("miss", style="dim", justify="right")
        return Text("err", style="bold red", justify="right")
    return Text(f"{value:.2f}", justify="right")


def depth_heat_grid(grid: DepthGrid) -> HeatGrid:
    """A DepthGrid from the analysis in the heatmap's terms (n shown in each cell)."""
    cells = {
        (i, j): HeatCell(mean, f"{mean:.2f} n{n}") if mean is not None else HeatCell(None, "—")
        for i, row in enumerate(grid.mean)
        for j, (mean, n) in enumerate(zip(row, grid.n[i], strict=True))
        if n or mean is not None
    }
    return HeatGrid(
        corner="depth \\ length",
        columns=tuple(format_length(n) for n in grid.lengths),
        rows=tuple(HeatRow(grid.task, f"{d:.0f} %") for d in grid.depths),
        cells=cells,
    )


class DepthHeatmap(Heatmap):
    """The heatmap without its enter key: a depth cell opens nothing here."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cell", "Examples", id="curves.depth-select", show=False),
    ]


@dataclass(frozen=True)
class CurveData:
    curves: list[LengthCurve]
    depths: list[DepthGrid]


def read_curves(store: Store) -> CurveData:
    return CurveData(length_curves(store), depth_grids(store))


class CurvesScreen(LctuiScreen):
    """Tabs: 1 score vs length, 2 effective length, 3 depth x length."""

    DEFAULT_CSS = """
    CurvesScreen #curves-header { height: 1; padding: 0 1; background: $panel; }
    CurvesScreen #curves-empty { display: none; padding: 1 2; color: $text-muted; }
    CurvesScreen.-empty #curves-empty { display: block; }
    CurvesScreen.-empty #curves-tabs { display: none; }
    CurvesScreen #curves-tabs { height: 1fr; }
    CurvesScreen TabPane { padding: 0; }
    CurvesScreen #curves-table, CurvesScreen #effective-table, CurvesScreen #depth-pairs,
    CurvesScreen #depth-heatmap, CurvesScreen #curves-plot {
        border: round $primary 40%;
        border-title-color: $text;
        &:focus { border: round $primary; }
    }
    /* the plot gets the larger share: below 7 rows plotext draws no line */
    CurvesScreen #curves-table { height: 1fr; min-height: 5; }
    CurvesScreen #curves-plot { height: 2fr; }
    CurvesScreen.-chars #curves-plot { display: none; }
    CurvesScreen #threshold-bar { height: 1; }
    CurvesScreen #threshold-label { width: auto; padding: 0 1; }
    CurvesScreen #threshold { width: 12; }
    CurvesScreen #depth-pairs { width: 40; max-width: 40%; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "show_tab('curves')", "Curves", id="curves.curves", show=False),
        Binding("2", "show_tab('effective')", "Effective", id="curves.effective", show=False),
        Binding("3", "show_tab('depth')", "Depth", id="curves.depth", show=False),
        Binding("p", "toggle_plots", "Plot/text", id="curves.plots"),
        Binding("R", "reload", "Reload", id="curves.reload", show=False),
        Binding("escape", "back", "Back", id="curves.back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.data: CurveData | None = None
        self.threshold = RULER_THRESHOLD
        self.effective: list[EffectiveLength] = []

    def compose(self) -> ComposeResult:
        yield Static("Loading...", id="curves-header")
        yield Static(EMPTY_MESSAGE, id="curves-empty", markup=False)
        with TabbedContent(id="curves-tabs", initial="curves"):
            with TabPane("1 Score vs length", id="curves"), Vertical():
                yield SafeTable[Text](id="curves-table", cursor_type="row", zebra_stripes=True)
                yield LengthPlot(id="curves-plot")
            with TabPane("2 Effective length", id="effective"), Vertical():
                with Horizontal(id="threshold-bar"):
                    # On the table's own scale: means from 0 to 1.
                    label = f"threshold (0-1, RULER: {RULER_THRESHOLD:g})"
                    yield Static(label, id="threshold-label")
                    yield OrderedInput(f"{RULER_THRESHOLD:g}", id="threshold", compact=True)
                yield SafeTable[Text](id="effective-table", cursor_type="row", zebra_stripes=True)
            with TabPane("3 Depth x length", id="depth"), Horizontal():
                yield OptionList(id="depth-pairs")
                yield DepthHeatmap(id="depth-heatmap")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#depth-pairs").border_title = "needle tasks"
        # The character drawing (the sparklines) alone where only 256 colours show.
        self.set_class(not plots_wanted(self.app.theme), "-chars")
        self._load()

    def _load(self) -> None:
        self.run_query(
            read_curves,
            group="curves",
            done=self._show,
            failed=lambda exc: self._failed(f"could not read the results: {exc}"),
        )

    def _failed(self, message: str) -> None:
        self.query_one("#curves-header", Static).update(shown_line(message))
        self.notify(message, title="Length views", severity="error")

    # -- showing ----------------------------------------------------------------------

    def _show(self, data: CurveData) -> None:
        self.data = data
        self.set_class(not data.curves, "-empty")
        models = {c.model for c in data.curves}
        self.query_one("#curves-header", Static).update(
            f"{plural(len(data.curves), 'curve')} of {plural(len(models), 'model')} · "
            f"{plural(len(data.depths), 'needle grid')} · 1 2 3: tabs"
        )
        lengths = sorted({p.length for c in data.curves for p in c.points})
        table = self.query_one("#curves-table", DataTable)
        table.clear(columns=True)
        table.border_title = "Mean score by length (errors, missing scores excluded; × none)"
        for name in ("model", "task", "curve", *(format_length(n) for n in lengths)):
            table.add_column(name, key=name)
        for curve in data.curves:
            by_length = {p.length: p for p in curve.points}
            cells = [
                mean_text(by_length[n].mean, bool(by_length[n].n_unscored))
                if n in by_length
                else Text("")
                for n in lengths
            ]
            spark = sparkline([p.mean for p in curve.points])  # points come sorted by length
            model = f"{curve.model} (ref)" if curve.reference else curve.model
            table.add_row(Text(model), Text(curve.task), Text(spark), *cells)
        if data.curves:
            self._plot(data.curves[min(table.cursor_row, len(data.curves) - 1)].task)
        self._show_effective()
        pairs = self.query_one("#depth-pairs", OptionList)
        pairs.clear_options()
        pairs.add_options(shown_line(f"{g.model} · {g.task}") for g in data.depths)
        if data.depths:
            pairs.highlighted = 0

    def _show_effective(self) -> None:
        if self.data is None:
            return
        self.effective = effective_lengths(self.data.curves, self.threshold)
        lengths = sorted({n for e in self.effective for n in e.means})
        table = self.query_one("#effective-table", DataTable)
        table.clear(columns=True)
        table.border_title = (
            f"RULER effective length: longest L with the mean over RULER's tasks > "
            f"{self.threshold:g} at every length up to L"
        )
        table.border_subtitle = (
            "other suites' tasks are not in it: their curves are on tab 1"
            if self.effective
            else "no RULER task of a model under evaluation (references such as gold are "
            "left out; other suites have no effective length)"
        )
        for name in ("model", "effective", "tasks", *(format_length(n) for n in lengths)):
            table.add_column(name, key=name)
        for e in self.effective:
            found = Text(format_length(e.length), style="bold") if e.length else Text("none")
            cells = []
            for n in lengths:
                mean = e.means.get(n)
                style = "" if mean is None else "green" if mean > self.threshold else "red"
                cells.append(
                    Text("" if mean is None else f"{mean:.3f}", style=style, justify="right")
                )
            table.add_row(Text(e.model), found, Text(e.tasks_shown, justify="right"), *cells)

    def _plot(self, task: str) -> None:
        """Every model's curve on `task`, references after the models under evaluation."""
        if self.data is None:
            return
        curves = sorted((c for c in self.data.curves if c.task == task),
                        key=lambda c: (c.reference, c.model))  # fmt: skip
        lines = [
            CurveLine(
                f"{c.model} (reference)" if c.reference else c.model,
                tuple((p.length, p.mean) for p in c.points),
            )
            for c in curves
        ]
        plot = self.query_one(LengthPlot)
        plot.border_title = shown_line(f"{task}: mean score by length (log scale) · p: plot/text")
        plot.show(task, lines)

    @on(DataTable.RowHighlighted, "#curves-table")
    def _curve_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if self.data is not None and 0 <= event.cursor_row < len(self.data.curves):
            task = self.data.curves[event.cursor_row].task
            if task != self.query_one(LengthPlot).shown_task:
                self._plot(task)

    @on(Input.Changed, "#threshold")
    def _threshold_changed(self, event: Input.Changed) -> None:
        try:
            value = float(event.value)
        except ValueError:
            value = -1.0
        if not 0.0 <= value <= 1.0:
            event.input.add_class("-invalid")
            return
        event.input.remove_class("-invalid")
        self.threshold = value
        self._show_effective()

    @on(OptionList.OptionHighlighted, "#depth-pairs")
    def _pair_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if self.data is None:
            return
        grid = self.data.depths[event.option_index]
        heatmap = self.query_one("#depth-heatmap", Heatmap)
        heatmap.border_title = shown_line(
            f"{grid.model} · {grid.task}: mean score by needle depth x length"
        )
        heatmap.set_grid(depth_heat_grid(grid))

    def action_show_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab

    def action_toggle_plots(self) -> None:
        self.toggle_class("-chars")

    def action_reload(self) -> None:
        self._load()

    def action_back(self) -> None:
        self.app.pop_screen()
