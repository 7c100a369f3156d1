"""The inspector's header line: what one generation is (task, length, example, seed,
model, prompt format, attempt), fitted to the screen's width without cutting a fact.

Wide separators while they fit, then a LongBench v2 domain's short name, then narrow
separators; a header still too long breaks between facts onto a second line, never
inside one (`· chat` / `prompt` was the cut at 80 columns).
"""

from __future__ import annotations

from lctui.core.lengths import format_length
from lctui.core.text import cell_width, escape_unprintable
from lctui.core.types import FORMAT_USED
from lctui.store.read.generations import GenerationRecord
from lctui.tui.state.example_view import example_facts

WIDE, NARROW = "  ·  ", " · "


def header_parts(record: GenerationRecord, generation_id: str, short: bool = False) -> list[str]:
    """The facts the header names, in order (`short`: a LongBench domain's short name)."""
    model = record.model + (" (reference)" if record.reference else "")
    parts = [
        str(record.task),
        format_length(record.length) if record.length else "?",
        f"example {record.idx}",
        example_facts(record, short),
        f"seed {record.seed}",
        model,
    ]
    # No facts: not a LongBench v2 example. Names from data on one line, controls shown.
    parts = [escape_unprintable(part) for part in parts if part]
    used = (record.config or {}).get(FORMAT_USED)
    if used:  # older generations did not record it
        parts.append(f"{used} prompt")
    attempts = [a.generation_id for a in record.attempts]
    if len(attempts) > 1:
        parts.append(f"attempt {attempts.index(generation_id) + 1} of {len(attempts)}")
    return parts


def fit_header(record: GenerationRecord, generation_id: str, width: int) -> str:
    """The header within `width` cells: one line if any form fits, else its facts
    packed into lines at the narrow separator."""
    forms = [(sep, short) for sep in (WIDE, NARROW) for short in (False, True)]
    for sep, short in forms:
        line = sep.join(header_parts(record, generation_id, short))
        if cell_width(line) <= width:
            return line
    return pack(header_parts(record, generation_id, short=True), NARROW, width)


def pack(parts: list[str], sep: str, width: int) -> str:
    """`parts` joined by `sep` into lines of at most `width` cells, each line broken
    between two parts (a part wider than a line gets a line of its own)."""
    lines: list[str] = []
    line = ""
    for part in parts:
        joined = f"{line}{sep}{part}" if line else part
        if line and cell_width(joined) > width:
            lines.append(line)
            joined = part
        line = joined
    lines.append(line)
    return "\n".join(lines)
