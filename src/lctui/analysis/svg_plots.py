"""Pictures for the HTML report, drawn as inline SVG text (no plotting library, nothing
fetched): score-vs-length lines, a scatter of two scores per model, and intervals
around differences (the A/B comparison).

Each function returns one `<svg>` element sized in pixels, with a `<title>` on every
mark so that a browser names the model, length and value under the pointer.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass

# Okabe and Ito's colour-blind-safe palette (yellow left out: too pale on white); past
# its end the colours repeat with dashed lines.
PALETTE = ("#0072b2", "#e69f00", "#009e73", "#d55e00", "#cc79a7", "#56b4e9", "#000000")
DASHES = ("", "6 3", "2 3")
FONT = 'font-family="system-ui,sans-serif" font-size="11"'
MUTED = "#666666"
CHAR_PX = 6.4  # a character's width at the font size above, near enough to lay out labels
GRID = "#e4e4e4"


@dataclass(frozen=True)
class Style:
    colour: str
    dash: str = ""


def style_of(index: int) -> Style:
    """The colour (and dash, once the palette is used up) of the index-th series."""
    return Style(PALETTE[index % len(PALETTE)], DASHES[index // len(PALETTE) % len(DASHES)])


@dataclass(frozen=True)
class Series:
    """One line: `points` are (x, y) with y None where there is no value (a gap)."""

    label: str
    points: Sequence[tuple[float, float | None]]
    style: Style


@dataclass(frozen=True)
class Frame:
    """The plot area inside an SVG of `width` x `height` pixels, and its data ranges."""

    width: int
    height: int
    x_range: tuple[float, float]
    y_range: tuple[float, float]
    left: int = 44
    right: int = 12
    top: int = 24
    bottom: int = 34

    def x(self, value: float) -> float:
        low, high = self.x_range
        share = 0.5 if high == low else (value - low) / (high - low)
        return self.left + share * (self.width - self.left - self.right)

    def y(self, value: float) -> float:
        low, high = self.y_range
        share = 0.5 if high == low else (value - low) / (high - low)
        return self.height - self.bottom - share * (self.height - self.top - self.bottom)


def _text(x: float, y: float, text: str, anchor: str = "middle", extra: str = "") -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" {FONT}{extra}>'
        f"{html.escape(text)}</text>"
    )


def _open(frame: Frame, title: str) -> list[str]:
    """The svg element, its accessible name and the title line at the top."""
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{frame.width}" '
        f'height="{frame.height}" viewBox="0 0 {frame.width} {frame.height}" role="img" '
        f'aria-label="{html.escape(title)}">',
        f"<title>{html.escape(title)}</title>",
        _text(frame.width / 2, 14, title, extra=' font-weight="600"'),
    ]


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """About `count` round values from `low` to `high` (steps of 1, 2, 2.5 or 5 x 10^k)."""
    if high <= low:
        return [low]
    raw = (high - low) / max(1, count - 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    first = math.ceil(low / step - 1e-9) * step
    ticks = []
    value = first
    while value <= high + step * 1e-9:
        ticks.append(round(value, 12))
        value += step
    return ticks


def _tick_text(value: float) -> str:
    return f"{value:g}"


def _axes(
    frame: Frame,
    x_ticks: Sequence[tuple[float, str]],
    y_ticks: Sequence[float],
    x_label: str,
    y_label: str,
) -> list[str]:
    """Grid lines at the ticks, their labels and the axis titles."""
    left, right = frame.left, frame.width - frame.right
    top, bottom = frame.top, frame.height - frame.bottom
    out = [f'<g stroke="{GRID}" stroke-width="1">']
    out += [f'<line x1="{left}" x2="{right}" y1="{frame.y(v):.1f}" y2="{frame.y(v):.1f}"/>'
            for v in y_ticks]  # fmt: skip
    out += [f'<line x1="{frame.x(v):.1f}" x2="{frame.x(v):.1f}" y1="{top}" y2="{bottom}"/>'
            for v, _ in x_ticks]  # fmt: skip
    out.append("</g>")
    out.append(
        f'<rect x="{left}" y="{top}" width="{right - left}" height="{bottom - top}" '
        f'fill="none" stroke="{MUTED}" stroke-width="1"/>'
    )
    fill = f' fill="{MUTED}"'
    out += [_text(left - 4, frame.y(v) + 4, _tick_text(v), "end", fill) for v in y_ticks]
    out += [_text(frame.x(v), bottom + 13, text, extra=fill) for v, text in x_ticks]
    out.append(_text((left + right) / 2, frame.height - 4, x_label, extra=fill))
    mid = (top + bottom) / 2
    out.append(_text(11, mid, y_label, extra=f'{fill} transform="rotate(-90 11 {mid:.1f})"'))
    return out


def line_chart(
    series: Sequence[Series],
    *,
    title: str,
    x_ticks: Sequence[tuple[float, str]],
    x_label: str,
    y_label: str = "mean score",
    y_range: tuple[float, float] = (0.0, 1.0),
    width: int = 300,
    height: int = 210,
) -> str:
    """Lines through each series' points (broken where y is None), a dot at each point.

    The x positions are the caller's (score-vs-length passes log2 of the length, so
    that 4K, 8K, 16K are evenly spaced); `x_ticks` label them.
    """
    xs = [x for x, _ in x_ticks] + [x for s in series for x, _ in s.points]
    x_range = (min(xs), max(xs)) if xs else (0.0, 1.0)
    pad = (x_range[1] - x_range[0]) * 0.04 or 0.5
    # A little room above and below, so that a line at 0 or 1 is not drawn on the frame.
    y_pad = (y_range[1] - y_range[0]) * 0.04
    frame = Frame(
        width,
        height,
        (x_range[0] - pad, x_range[1] + pad),
        (y_range[0] - y_pad, y_range[1] + y_pad),
    )
    out = _open(frame, title)
    out += _axes(frame, x_ticks, nice_ticks(*y_range), x_label, y_label)
    at = dict(x_ticks)
    for s in series:
        dash = f' stroke-dasharray="{s.style.dash}"' if s.style.dash else ""
        for run in _runs(s.points):
            if len(run) > 1:
                path = " ".join(f"{frame.x(x):.1f},{frame.y(y):.1f}" for x, y in run)
                out.append(
                    f'<polyline points="{path}" fill="none" stroke="{s.style.colour}" '
                    f'stroke-width="1.8"{dash}/>'
                )
        for x, y in s.points:
            if y is None:
                continue
            where = f" @ {at[x]}" if x in at else ""
            tip = html.escape(f"{s.label}{where}: {y:.3f}")
            out.append(
                f'<circle cx="{frame.x(x):.1f}" cy="{frame.y(y):.1f}" r="2.8" '
                f'fill="{s.style.colour}"><title>{tip}</title></circle>'
            )
    out.append("</svg>")
    return "".join(out)


def _runs(points: Sequence[tuple[float, float | None]]) -> list[list[tuple[float, float]]]:
    """The stretches of consecutive points that have a value."""
    runs: list[list[tuple[float, float]]] = [[]]
    for x, y in points:
        if y is None:
            if runs[-1]:
                runs.append([])
        else:
            runs[-1].append((x, y))
    return [r for r in runs if r]


def _padded(values: Sequence[float]) -> tuple[float, float]:
    low, high = min(values), max(values)
    pad = (high - low) * 0.08 or 0.05
    return low - pad, high + pad


def scatter_chart(
    points: Sequence[tuple[str, float, float]],
    *,
    title: str,
    x_label: str,
    y_label: str,
    width: int = 360,
    height: int = 300,
) -> str:
    """One labelled dot per (label, x, y): every model's two scores."""
    frame = Frame(
        width,
        height,
        _padded([x for _, x, _ in points] or [0.0, 1.0]),
        _padded([y for _, _, y in points] or [0.0, 1.0]),
        left=48,
    )
    x_ticks = [(v, _tick_text(v)) for v in nice_ticks(*frame.x_range)]
    out = _open(frame, title)
    out += _axes(frame, x_ticks, nice_ticks(*frame.y_range), x_label, y_label)
    for index, (label, x, y) in enumerate(points):
        colour = style_of(index).colour
        cx, cy = frame.x(x), frame.y(y)
        tip = html.escape(f"{label}: {x:.3f}, {y:.3f}")
        out.append(
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="3.5" fill="{colour}"><title>{tip}'
            "</title></circle>"
        )
        # Labels go left of points in the right third, so that they stay inside.
        right_side = cx > frame.left + (frame.width - frame.left - frame.right) * 2 / 3
        anchor, dx = ("end", -6) if right_side else ("start", 6)
        out.append(_text(cx + dx, cy - 4, label, anchor, f' fill="{colour}"'))
    out.append("</svg>")
    return "".join(out)


@dataclass(frozen=True)
class Estimate:
    """One row of an interval chart: a difference and its interval (None: none)."""

    label: str
    value: float
    low: float | None
    high: float | None
    marked: bool = False  # drawn in the strong colour (e.g. p < 0.05)


def interval_chart(
    rows: Sequence[Estimate],
    *,
    title: str,
    x_label: str,
    x_range: tuple[float, float] = (-1.0, 1.0),
    width: int = 360,
) -> str:
    """A row per estimate: its interval as a bar, the value as a dot, zero as a line;
    the labels' column as wide as the longest needs, right of it `width` pixels."""
    label_width = 12 + round(CHAR_PX * max((len(r.label) for r in rows), default=0))
    width += label_width
    height = 24 + 34 + 18 * max(1, len(rows))
    frame = Frame(width, height, x_range, (0.0, float(max(1, len(rows)))), left=label_width)
    out = _open(frame, title)
    ticks = nice_ticks(*x_range)
    out += _axes(frame, [(v, f"{v:+g}" if v else "0") for v in ticks], [], x_label, "")
    zero = frame.x(0.0)
    out.append(
        f'<line x1="{zero:.1f}" x2="{zero:.1f}" y1="{frame.top}" '
        f'y2="{height - frame.bottom}" stroke="{MUTED}" stroke-width="1.5"/>'
    )
    for index, row in enumerate(rows):
        cy = frame.top + 9 + 18 * index
        colour = PALETTE[0] if row.marked else MUTED
        out.append(_text(frame.left - 6, cy + 4, row.label, "end"))
        interval = ""
        if row.low is not None and row.high is not None:
            low, high = (min(max(v, x_range[0]), x_range[1]) for v in (row.low, row.high))
            out.append(
                f'<line x1="{frame.x(low):.1f}" x2="{frame.x(high):.1f}" y1="{cy}" '
                f'y2="{cy}" stroke="{colour}" stroke-width="3"/>'
            )
            interval = f" [{row.low:+.3f}, {row.high:+.3f}]"
        tip = html.escape(f"{row.label}: {row.value:+.3f}{interval}")
        out.append(
            f'<circle cx="{frame.x(row.value):.1f}" cy="{cy}" r="4" fill="{colour}">'
            f"<title>{tip}</title></circle>"
        )
    out.append("</svg>")
    return "".join(out)
