"""Context lengths as users write them: `2k`, `32K`, `131072`; `k` is 1024 tokens."""

from __future__ import annotations

import re

from lctui.core.errors import UserInputError

_LENGTH = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*$")


def parse_length(text: str) -> int:
    """Parse one length; `128k` is 131072 tokens as in RULER and LIFBench."""
    match = _LENGTH.match(text)
    if not match:
        raise UserInputError(
            f"unknown length {text!r}: write a token count such as 4096, 4k or 128k (k = 1024)"
        )
    number, unit = float(match.group(1)), match.group(2).lower()
    scale = {"": 1, "k": 1024, "m": 1024 * 1024}[unit]
    value = round(number * scale)
    if value < 256:
        raise UserInputError(f"length {text!r} is too short: the smallest supported is 256 tokens")
    return value


def parse_lengths(text: str) -> list[int]:
    """Parse a comma-separated list, keeping the user's order and dropping repeats."""
    out: list[int] = []
    for part in text.split(","):
        if part.strip():
            value = parse_length(part)
            if value not in out:
                out.append(value)
    if not out:
        raise UserInputError("no length given: use e.g. --lengths 4k,8k")
    return out


def format_length(tokens: int) -> str:
    """Inverse of parse_length for display: 131072 -> '128k', 3000 -> '3000'."""
    if tokens % 1024 == 0:
        return f"{tokens // 1024}k"
    return str(tokens)
