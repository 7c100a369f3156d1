"""How numbers read in every table of lctui: the CLI, the TUI and exported reports.

A missing value (no p-value, no interval) is "-" everywhere, never "nan" or "None".
"""

from __future__ import annotations


def fixed(value: float | None, digits: int = 3, *, signed: bool = False) -> str:
    """0.750, or +0.250 when `signed`; "-" for None."""
    if value is None:
        return "-"
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def p_value(p: float | None) -> str:
    """0.042, or 2.1e-05 below 0.001 so small p-values keep their magnitude."""
    if p is None:
        return "-"
    return f"{p:.2g}" if p < 0.001 else f"{p:.3f}"


def interval(low: float | None, high: float | None, digits: int = 3) -> str:
    """[-0.120, +0.340], signed as differences are; "-" without both ends."""
    if low is None or high is None:
        return "-"
    return f"[{fixed(low, digits, signed=True)}, {fixed(high, digits, signed=True)}]"


def per_second(rate: float | None) -> str:
    """12 or 0.4: a rate per second, to a tenth below 10 (a slow model's 0.4 tok/s is
    no 0); "-" for None."""
    if rate is None:
        return "-"
    return f"{rate:.1f}" if rate < 9.95 else f"{rate:,.0f}"


def file_size(size: int) -> str:
    """Bytes in decimal units, as the hub and most tools show them: 512 B, 4.2 MB, 11.3 GB."""
    if size < 1000:
        return f"{size} B"
    value = size / 1000
    for unit in ("kB", "MB"):
        if value < 1000:
            return f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} GB"


def duration(seconds: float | None) -> str:
    """45 s, 12 min, 2.5 h: a time span read at a glance; "-" for None."""
    if seconds is None:
        return "-"
    if seconds < 90:
        return f"{max(0, round(seconds))} s"
    if seconds < 5400:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"
