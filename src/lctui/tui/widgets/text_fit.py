"""Cutting text to a width, the cut marked with an ellipsis."""

from __future__ import annotations

ELLIPSIS = "…"


def fit(text: str, width: int) -> str:
    """Cut `text` to `width` cells, marking the cut with an ellipsis."""
    if len(text) <= width:
        return text
    return text[: max(0, width - 1)] + ELLIPSIS
