"""Real plots in the terminal through textual-plotext: score vs length of one task (a
line per model, lengths on a log axis) and the scatter of two scores per model (each
model's marker named in a legend beside it, as the character scatter does).

Plotext draws with colours and braille dots; where the terminal shows 256 colours (the
`lctui-256` theme, which the app picks there) the screens keep their character drawings
(the curve table's sparklines, widgets/scatter.py) instead: `plots_wanted`. A screen's
`p` key switches between the two.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from textual.app import ComposeResult, RenderResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Static
from textual_plotext import PlotextPlot

from lctui.analysis.svg_plots import nice_ticks, style_of
from lctui.core.lengths import format_length
from lctui.tui.themes import SAFE_THEME
from lctui.tui.widgets.scatter import Point, Scatter, legend_lines, marker

SCATTER_COLOUR = "blue+"  # plotext's name of a colour that reads on dark and light themes
LEGEND_WIDTH = 34  # the scatter's legend column at most (a share of the width below it)


def plots_wanted(theme: str) -> bool:
    """Whether plots (rather than the character drawings) suit the app's theme."""
    return theme != SAFE_THEME


@dataclass(frozen=True)
class CurveLine:
    """One model's curve: (length, mean) shortest first; mean None where none is scored."""

    label: str
    points: tuple[tuple[int, float | None], ...]


def _stretches(points: Sequence[tuple[int, float | None]]) -> list[list[tuple[int, float]]]:
    """The runs of consecutive points with a mean (a gap where a length has none)."""
    runs: list[list[tuple[int, float]]] = [[]]
    for length, mean in points:
        if mean is None:
            runs.append([])
        else:
            runs[-1].append((length, mean))
    return [r for r in runs if r]


class ScoreCanvas(PlotextPlot):
    """A plotext plot on the 0-1 score scale whose ticks suit its height."""

    def render(self) -> RenderResult:
        # Ticks land on whole rows: quarters only where there are rows enough for them.
        self.plt.yticks([0, 0.25, 0.5, 0.75, 1] if self.size.height >= 14 else [0, 0.5, 1])
        return super().render()


def rgb(hex_colour: str) -> tuple[int, int, int]:
    return (int(hex_colour[1:3], 16), int(hex_colour[3:5], 16), int(hex_colour[5:7], 16))


class LengthPlot(Vertical):
    """Mean score (0-1) against length for one task, one coloured line per model, and
    a legend under it in the same colours (the HTML report's, analysis/svg_plots.py).
    Plotext's own legend would sit over the lines' start, where scores near 1 are."""

    DEFAULT_CSS = """
    LengthPlot { height: 1fr; width: 1fr; }
    LengthPlot > ScoreCanvas { height: 1fr; }
    LengthPlot > .legend { height: auto; max-height: 3; padding: 0 1; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lines: list[CurveLine] = []
        self.shown_task = ""

    def compose(self) -> ComposeResult:
        yield ScoreCanvas()
        yield Static(classes="legend")

    def show(self, task: str, lines: Sequence[CurveLine]) -> None:
        self.shown_task, self.lines = task, list(lines)
        plot = self.query_one(ScoreCanvas)
        plt = plot.plt
        plt.clear_figure()
        lengths = sorted({n for line in lines for n, _ in line.points})
        legend = []
        for index, line in enumerate(lines):
            colour = style_of(index).colour
            for run in _stretches(line.points):
                xs, ys = [math.log2(n) for n, _ in run], [mean for _, mean in run]
                if len(run) > 1:
                    plt.plot(xs, ys, marker="braille", color=rgb(colour))
                else:  # a length alone between gaps: a dot one can see
                    plt.scatter(xs, ys, marker="●", color=rgb(colour))
            legend.append(Content.styled(f"━━ {line.label}", colour))
        if lengths:
            plt.xticks([math.log2(n) for n in lengths], [format_length(n) for n in lengths])
            low, high = math.log2(lengths[0]), math.log2(lengths[-1])
            margin = 0.2 if high > low else 1.0  # one length: room either side of it
            plt.xlim(low - margin, high + margin)
        plt.ylim(-0.04, 1.04)  # a score of 0 or 1 stays off the frame
        plot.refresh()  # the task is named in the screen's border title: rows are few
        self.query_one(".legend", Static).update(Content("  ").join(legend))


class ScatterPlot(Horizontal):
    """Every model's two scores as plotext points, each drawn with its marker, and the
    legend that names the markers (the character scatter's, widgets/scatter.py)."""

    DEFAULT_CSS = f"""
    ScatterPlot {{ height: 1fr; width: 1fr; }}
    ScatterPlot > PlotextPlot {{ width: 1fr; }}
    ScatterPlot > .legend {{
        width: auto; max-width: {LEGEND_WIDTH}; margin: 0 0 0 1;
        text-wrap: nowrap; text-overflow: ellipsis;
    }}
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.points: list[Point] = []

    def compose(self) -> ComposeResult:
        yield PlotextPlot()
        yield Static(classes="legend", markup=False)

    def plot(self, points: Sequence[Point], x_title: str, y_title: str) -> None:
        self.points = list(points)
        plt = self.query_one(PlotextPlot).plt
        plt.clear_figure()
        for index, p in enumerate(self.points):
            plt.scatter([p.x], [p.y], marker=marker(index), color=SCATTER_COLOUR)
        for axis, values in ((plt.xticks, [p.x for p in self.points]),
                             (plt.yticks, [p.y for p in self.points])):  # fmt: skip
            if values:  # round numbers on the axes, as the HTML report's
                ticks = nice_ticks(min(values), max(values), 6)
                axis(ticks, [f"{t:g}" for t in ticks])
        # Plotext writes both axis labels on one line under the plot, where a narrow
        # terminal cuts the second: the title line names both.
        plt.title(f"x: {x_title} · y: {y_title}")
        self.query_one(PlotextPlot).refresh()
        legend = legend_lines(self.points)
        self.query_one(".legend", Static).update(
            "\n".join(legend) if legend else "no model has both scores"
        )


class ScatterView(Horizontal):
    """The scatter drawn either way: plotext (`plots`) or characters; `plot` gives both
    the points, so switching needs no new query."""

    DEFAULT_CSS = """
    ScatterView { height: 1fr; width: 1fr; }
    ScatterView.-plots > Scatter { display: none; }
    ScatterView > ScatterPlot { display: none; }
    ScatterView.-plots > ScatterPlot { display: block; }
    """

    def __init__(self, *, plots: bool, id: str | None = None) -> None:
        super().__init__(id=id)
        self.set_class(plots, "-plots")

    def compose(self) -> ComposeResult:
        yield Scatter()
        yield ScatterPlot()

    @property
    def plots(self) -> bool:
        return self.has_class("-plots")

    def show_plots(self, plots: bool) -> None:
        self.set_class(plots, "-plots")

    def plot(self, points: Sequence[Point], x_title: str, y_title: str) -> None:
        self.query_one(Scatter).plot(points, x_title, y_title)
        self.query_one(ScatterPlot).plot(points, x_title, y_title)
