"""Word-level differences of two outputs as two styled texts, one per side.

`analysis.compare.output_diff` gives the spans; here side A shows what only it has
(deleted or replaced words) in the error colour and side B what only it has (inserted
or replaced words) in the success colour, with the equal words plain on both.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content

from lctui.analysis.compare import DiffSpan
from lctui.core.text import control_pictures

ONLY_A = "bold $error on $error 15%"
ONLY_B = "bold $success on $success 15%"


def side_text(spans: Sequence[DiffSpan], side: str) -> Content:
    """The output of side `a` or `b` with its own words highlighted."""
    if side not in ("a", "b"):
        raise ValueError(f"side must be 'a' or 'b', not {side!r}")
    parts: list[Content] = []
    for span in spans:
        # An output's own lines stay; other control characters show as one cell each.
        text = control_pictures(span.a if side == "a" else span.b)
        if not text:
            continue
        style = "" if span.kind == "equal" else ONLY_A if side == "a" else ONLY_B
        parts.append(Content.styled(text, style) if style else Content(text))
    if not parts:
        return Content.styled("(empty output)", "italic $text-muted")
    return Content("").join(parts)


def changed_words(spans: Sequence[DiffSpan]) -> tuple[int, int]:
    """How many words only A and only B have (whitespace runs not counted)."""
    only_a = sum(len(s.a.split()) for s in spans if s.kind in ("delete", "replace"))
    only_b = sum(len(s.b.split()) for s in spans if s.kind in ("insert", "replace"))
    return only_a, only_b
