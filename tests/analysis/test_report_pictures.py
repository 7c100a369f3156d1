"""The HTML report's pictures (analysis/svg_plots.py) and the correlation report that
draws them: round ticks, gaps where a length has no score, one scatter per pair with
a coefficient (at most SCATTERS_SHOWN) with a dot per model, the pictures left out of
markdown. The correlation is LIFBench's published scores (20 models, 11 tasks)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from lctui.analysis.correlation import correlate
from lctui.analysis.report_md import SCATTERS_SHOWN, correlation_blocks, render
from lctui.analysis.svg_plots import Series, line_chart, nice_ticks, style_of
from lctui.store.db import Store

SVG = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize(
    ("low", "high", "want"),
    [
        (0.0, 1.0, [0.0, 0.25, 0.5, 0.75, 1.0]),
        (0.12, 0.83, [0.2, 0.4, 0.6, 0.8]),
        (-1.0, 1.0, [-1.0, -0.5, 0.0, 0.5, 1.0]),
        (3.0, 3.0, [3.0]),
    ],
)
def test_ticks_are_round_numbers_inside_the_range(
    low: float, high: float, want: list[float]
) -> None:
    assert nice_ticks(low, high) == want


def test_a_line_breaks_where_a_length_has_no_score() -> None:
    series = Series("m (reference)", [(10.0, 1.0), (11.0, None), (12.0, 0.5), (13.0, 0.25)],
                    style_of(0))  # fmt: skip
    svg = ET.fromstring(
        line_chart([series], title="vt", x_ticks=[(10.0, "1k"), (12.0, "4k")], x_label="L")
    )
    lines = svg.findall(f"{SVG}polyline")
    assert len(lines) == 1  # 1k alone, then 4k-8k: one stretch long enough for a line
    assert len(lines[0].get("points", "").split()) == 2
    tips = [t.text for t in svg.iter(f"{SVG}title")]
    assert tips[0] == "vt" and "m (reference) @ 1k: 1.000" in tips and len(tips) == 4
    assert style_of(7).dash and not style_of(6).dash  # past the palette: dashed


def test_the_correlation_report_draws_a_scatter_per_coefficient(published_store: Store) -> None:
    matrix = correlate(published_store)
    blocks = correlation_blocks(matrix)
    page = render(blocks, "html", title="correlation")
    figures = re.findall(r"<figure>.*?</figure>", page, flags=re.S)
    (figure,) = figures
    scatters = [ET.fromstring(s) for s in re.findall(r"<svg .*?</svg>", figure, flags=re.S)]
    k = len(matrix.labels)
    with_rho = [
        (x, y)
        for i, x in enumerate(matrix.labels)
        for j, y in enumerate(matrix.labels)
        if j > i and matrix.cells[i][j].rho is not None
    ]
    assert k == 11 and len(scatters) == min(SCATTERS_SHOWN, len(with_rho))
    x, y = with_rho[0]
    dots = [t.text or "" for t in scatters[0].iter(f"{SVG}title")][1:]
    points = matrix.scatter(x, y)
    assert dots == [f"{p.model}: {p.x:.3f}, {p.y:.3f}" for p in points] and len(points) == 20
    assert f"(the first {SCATTERS_SHOWN};" in figure  # the rest are in the table
    markdown = render(blocks, "md")
    assert "<svg" not in markdown and "| pair | rho | p | n | note |" in markdown
