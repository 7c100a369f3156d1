"""A text scatter plot: one marker per point on a character canvas, and a legend that
names each marker (HELMET's figure 4 in a terminal, no plotting library needed)."""

from __future__ import annotations

import string
from collections.abc import Sequence
from dataclasses import dataclass

from textual.content import Content
from textual.widget import Widget

from lctui.core.text import shorten

MARKERS = string.digits[1:] + string.ascii_lowercase + string.ascii_uppercase
CROWDED = "*"  # several points on one character cell
LEGEND_SHARE = 0.45  # at most this part of the width goes to the legend


@dataclass(frozen=True)
class Point:
    label: str
    x: float
    y: float


def marker(index: int) -> str:
    return MARKERS[index] if index < len(MARKERS) else "+"


def legend_lines(points: Sequence[Point]) -> list[str]:
    """A line per point: its marker, label and both scores."""
    return [f"{marker(i)} {p.label}  ({p.x:.3f}, {p.y:.3f})" for i, p in enumerate(points)]


def _span(values: Sequence[float]) -> tuple[float, float]:
    low, high = min(values), max(values)
    if high - low < 1e-12:
        low, high = low - 0.5, high + 0.5
    return low, high


def canvas(points: Sequence[Point], width: int, height: int) -> list[str]:
    """The plot area as `height` lines of `width` characters, y growing upwards."""
    grid = [[" "] * width for _ in range(height)]
    if not points:
        return ["".join(row) for row in grid]
    x0, x1 = _span([p.x for p in points])
    y0, y1 = _span([p.y for p in points])
    for index, p in enumerate(points):
        col = round((p.x - x0) / (x1 - x0) * (width - 1))
        row = height - 1 - round((p.y - y0) / (y1 - y0) * (height - 1))
        grid[row][col] = marker(index) if grid[row][col] == " " else CROWDED
    return ["".join(row) for row in grid]


class Scatter(Widget):
    """Points with axis ranges and titles; the legend lists marker, label, x and y."""

    DEFAULT_CSS = """
    Scatter { height: 1fr; width: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.points: list[Point] = []
        self.x_title = "x"
        self.y_title = "y"

    def plot(self, points: Sequence[Point], x_title: str, y_title: str) -> None:
        self.points = list(points)
        self.x_title, self.y_title = x_title, y_title
        self.refresh()

    def legend(self) -> list[str]:
        return legend_lines(self.points)

    def render(self) -> Content:
        if not self.points:
            return Content.styled("no model has both scores", "$text-muted")
        legend = self.legend()
        longest = max(len(line) for line in legend)
        legend_width = min(longest, int(self.size.width * LEGEND_SHARE)) + 2
        axis = 8  # y tick labels and the axis line
        width = max(10, self.size.width - axis - legend_width)
        height = max(4, self.size.height - 3)
        plot = canvas(self.points, width, height)
        y0, y1 = _span([p.y for p in self.points])
        x0, x1 = _span([p.x for p in self.points])
        lines: list[Content] = [Content.styled(f"↑ {self.y_title}", "bold")]
        for row, text in enumerate(plot):
            tick = f"{y1:.2f}" if row == 0 else f"{y0:.2f}" if row == height - 1 else ""
            side = legend[row] if row < len(legend) else ""
            lines.append(
                Content.assemble(
                    (f"{tick:>6} │", "$text-muted"),
                    (text, "bold $accent"),
                    "  ",
                    (shorten(side, legend_width - 2, cells=True), "$text"),
                )
            )
        lines.append(Content.styled("       └" + "─" * width, "$text-muted"))
        ticks = f"{x0:.2f}".ljust(width - 4) + f"{x1:.2f}"
        lines.append(Content.styled(f"        {ticks}  → {self.x_title}", "$text-muted"))
        return Content("\n").join(lines)
