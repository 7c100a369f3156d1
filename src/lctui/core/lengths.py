"""Context lengths as users write them: `2k`, `32K`, `131072`; `k` is 1024 tokens.

Every length lies within core.bounds' MIN_LENGTH..MAX_LENGTH (256 to 2048k tokens).
"""

from __future__ import annotations

import re
from decimal import Decimal

from lctui.core.bounds import check_length
from lctui.core.errors import UserInputError

_LENGTH = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*$")

# Named sets of lengths, in thousands (x 1024) of tokens, usable in any length list.
PRESETS: dict[str, tuple[int, ...]] = {
    "lifbench": (3, 6, 13, 28, 60, 120),  # LIFBench's six intervals (o200k_base)
    "ruler": (4, 8, 16, 32, 64, 128),
    "helmet": (8, 16, 32, 64, 128),
}


def parse_length(text: str) -> int:
    """Parse one length; `128k` is 131072 tokens as in RULER and LIFBench."""
    match = _LENGTH.match(text)
    if not match:
        raise UserInputError(
            f"unknown length {text!r}: write a token count such as 4096, 4k or 128k (k = 1024), "
            f"or a preset: {', '.join(PRESETS)}"
        )
    # Decimal, not float: a number of 400 digits is too long, not an overflow.
    number, unit = Decimal(match.group(1)), match.group(2).lower()
    scale = {"": 1, "k": 1024, "m": 1024 * 1024}[unit]
    return check_length(round(number * scale), text)


def parse_lengths(text: str) -> list[int]:
    """Parse a comma-separated list, keeping the user's order and dropping repeats.

    A preset name (`lifbench`, `ruler`, `helmet`) stands for its lengths.
    """
    out: list[int] = []
    for part in text.split(","):
        name = part.strip().lower()
        values = [k * 1024 for k in PRESETS[name]] if name in PRESETS else []
        if name and not values:
            values = [parse_length(part)]
        out.extend(v for v in values if v not in out)
    if not out:
        raise UserInputError("no length given: use e.g. --lengths 4k,8k")
    return out


def format_length(tokens: int) -> str:
    """Inverse of parse_length for display: 131072 -> '128k', 3000 -> '3000'."""
    if tokens % 1024 == 0:
        return f"{tokens // 1024}k"
    return str(tokens)
