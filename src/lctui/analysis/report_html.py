"""A report's blocks as one standalone HTML page: doctype, charset, title, the style
sheet inline, pictures as inline SVG; nothing that a browser would fetch, so the file
reads the same attached to a mail or opened offline."""

from __future__ import annotations

import html
import itertools
from collections.abc import Sequence

from lctui.analysis.report_blocks import (
    WARNING,
    Block,
    Figure,
    Heading,
    Paragraph,
    Table,
    numeric_column,
)

# Colour stops (RGB) of the heat scales: scores 0..1, and signed values -1..1.
Stops = Sequence[tuple[float, tuple[int, int, int]]]
SEQUENTIAL: Stops = ((0.0, (230, 124, 115)), (0.5, (255, 214, 102)), (1.0, (87, 187, 138)))
DIVERGING: Stops = ((-1.0, (230, 124, 115)), (0.0, (255, 255, 255)), (1.0, (109, 158, 235)))

STYLE = """
body { font-family: system-ui, sans-serif; color: #1d1d1f; margin: 2em auto;
       max-width: 72em; padding: 0 1.5em; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.3em; margin-top: 2em; border-bottom: 1px solid #ddd; }
h3 { font-size: 1.1em; margin-top: 1.5em; }
p.meta { color: #666; margin-top: 0; }
p.warning { background: #fff4d6; border-left: 4px solid #e0a800; padding: 0.4em 0.8em; }
.table-wrap { overflow-x: auto; margin: 0.8em 0; }
table { border-collapse: collapse; font-family: ui-monospace, monospace; font-size: 0.9em; }
th { background: #f3f3f3; text-align: left; padding: 3px 8px; border-bottom: 2px solid #ccc;
     position: sticky; top: 0; }
th.num, td.num { text-align: right; }
td { padding: 2px 8px; border-bottom: 1px solid #eee; white-space: nowrap; }
tbody tr:hover td { outline: 1px solid #bbb; }
.scale { display: flex; align-items: center; gap: 0.5em; font-size: 0.85em; color: #555; }
.scale .bar { width: 12em; height: 0.8em; border: 1px solid #ccc; }
figure { margin: 1em 0; }
figure .panels { display: flex; flex-wrap: wrap; gap: 0.5em 1em; }
figure .legend { display: flex; flex-wrap: wrap; gap: 0.3em 1.2em; font-size: 0.9em;
                 margin-bottom: 0.4em; }
figure .swatch { display: inline-block; width: 1.6em; height: 0.25em; vertical-align: middle;
                 margin-right: 0.35em; }
figcaption { color: #555; font-size: 0.9em; }
"""


def page(blocks: Sequence[Block], title: str, meta: str = "") -> str:
    """The whole document: `title` names the tab and heads the page, `meta` (who wrote it,
    from where, when) goes under it."""
    body = [f"<h1>{html.escape(title)}</h1>"]
    if meta:
        body.append(f'<p class="meta">{html.escape(meta)}</p>')
    body += [_html(b) for b in blocks]
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def _html(block: Block) -> str:
    if isinstance(block, Heading):
        return f"<h{block.level}>{html.escape(block.text)}</h{block.level}>"
    if isinstance(block, Paragraph):
        warning = ' class="warning"' if block.text.startswith(WARNING) else ""
        return f"<p{warning}>{html.escape(block.text)}</p>"
    if isinstance(block, Figure):
        return _figure(block)
    return _table(block)


def _table(block: Table) -> str:
    stops = DIVERGING if block.diverging else SEQUENTIAL
    numeric = [numeric_column(block, j) for j in range(len(block.headers))]
    head = "".join(
        f"<th{' class=num' if numeric[j] else ''}>{html.escape(h)}</th>"
        for j, h in enumerate(block.headers)
    )
    body = []
    for i, row in enumerate(block.rows):
        cells = []
        for j, text in enumerate(row):
            value = block.heat[i][j] if block.heat is not None else None
            tip = block.tips[i][j] if block.tips is not None else None
            attrs = ' class="num"' if numeric[j] else ""
            if value is not None:
                attrs += f' style="background:{colour(value, stops)}"'
            if tip:
                attrs += f' title="{html.escape(tip)}"'
            cells.append(f"<td{attrs}>{html.escape(text)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    table = (
        f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )
    return table + (_scale(stops) if block.heat is not None else "")


def _scale(stops: Stops) -> str:
    """The legend of a heat table: its colours from the lowest to the highest value."""
    gradient = ", ".join(colour(x, stops) for x, _ in stops)
    low, high = stops[0][0], stops[-1][0]
    signed = low < 0  # a signed scale says its sign: -1 ... +1
    return (
        f'<div class="scale"><span>{low:g}</span><span class="bar" '
        f'style="background:linear-gradient(to right, {gradient})"></span>'
        f"<span>{f'{high:+g}' if signed else f'{high:g}'}</span></div>"
    )


def _figure(block: Figure) -> str:
    legend = "".join(
        f'<span><span class="swatch" style="background:{c}"></span>{html.escape(label)}</span>'
        for label, c in block.legend
    )
    return (
        "<figure>"
        + (f'<div class="legend">{legend}</div>' if legend else "")
        + f'<div class="panels">{"".join(block.panels)}</div>'
        + f"<figcaption>{html.escape(block.caption)}</figcaption></figure>"
    )


def colour(value: float, stops: Stops) -> str:
    """The value's colour on the scale, interpolated between its stops (clamped)."""
    value = min(max(value, stops[0][0]), stops[-1][0])
    for (x0, c0), (x1, c1) in itertools.pairwise(stops):
        if value <= x1:
            t = (value - x0) / (x1 - x0)
            r, g, b = (round(a + (z - a) * t) for a, z in zip(c0, c1, strict=True))
            return f"#{r:02x}{g:02x}{b:02x}"
    raise AssertionError("unreachable: value is clamped to the last stop")
