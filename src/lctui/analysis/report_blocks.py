"""What a report is made of: headings, paragraphs, tables (one may carry a heat scale)
and figures, rendered as markdown (analysis/report_md.py) or as a standalone HTML page
(analysis/report_html.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

WARNING = "Warning: "  # starts the paragraphs that say the report mixes scorer versions


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 2


@dataclass(frozen=True)
class Paragraph:
    text: str


@dataclass(frozen=True)
class Table:
    headers: Sequence[str]
    rows: Sequence[Sequence[str]]
    # Per-cell values that colour the HTML cells (None: no colour), and their scale.
    heat: Sequence[Sequence[float | None]] | None = None
    diverging: bool = False
    # Per-cell text shown when the pointer rests on an HTML cell (None: none).
    tips: Sequence[Sequence[str | None]] | None = None


@dataclass(frozen=True)
class Figure:
    """Pictures (SVG from analysis/svg_plots.py) under one caption. Only the HTML page
    draws them; the tables beside them hold the same numbers for markdown."""

    caption: str
    panels: Sequence[str]
    legend: Sequence[tuple[str, str]] = ()  # (label, colour) shared by the panels


Block = Heading | Paragraph | Table | Figure


def warning_blocks(lines: Sequence[str]) -> list[Block]:
    """A paragraph per warning line (analysis/outdated.py)."""
    return [Paragraph(WARNING + line) for line in lines]


def warnings_of(blocks: Sequence[Block]) -> list[str]:
    """The warning lines a report carries, for the CLI to repeat on stderr."""
    return [
        b.text.removeprefix(WARNING)
        for b in blocks
        if isinstance(b, Paragraph) and b.text.startswith(WARNING)
    ]


def numeric_column(table: Table, column: int) -> bool:
    """Whether a column holds numbers (right-aligned), judged by its first character."""
    cells = [row[column] for row in table.rows if row[column] not in ("", "-")]
    return column > 0 and bool(cells) and all(c[0] in "0123456789+-.[" for c in cells)
