"""The key to a heatmap's colours: sample cells drawn exactly as the heatmap draws them
(the theme's red, amber and green at their values), then what its marks mean.

One line, within 80 columns. It asks the heatmap it explains for each sample's style,
so a theme change recolours both alike.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widget import Widget

from lctui.tui.widgets.heatmap import HeatCell, Heatmap

# The results' scale: a mean score from 0 (red) through 0.5 (amber) to 1 (green).
SCORE_SAMPLES = ((0.0, "0.00"), (0.25, "0.25"), (0.5, "0.50"), (0.75, "0.75"), (1.0, "1.00"))


class HeatLegend(Widget):
    """`title`, the samples as coloured cells, then `notes` (each mark and its meaning)."""

    DEFAULT_CSS = """
    HeatLegend { height: 1; padding: 0 1; color: $text-muted; }
    """

    def __init__(
        self,
        heatmap: str,
        title: str,
        samples: Sequence[tuple[float, str]],
        notes: str = "",
        *,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.heatmap = heatmap  # the selector of the heatmap it explains
        self.title = title
        self.samples = tuple(samples)
        self.notes = notes

    def render(self) -> Text:
        heatmap = self.screen.query_one(self.heatmap, Heatmap)
        line = Text(self.title + " ")
        for value, label in self.samples:
            line.append(f" {label} ", heatmap.cell_style(HeatCell(value, label)))
        if self.notes:
            line.append("  " + self.notes)
        return line
