"""The bounds of a run's numbers (n, seed, lengths, temperature), declared once.

`RunRequest` checks itself with these functions, so the CLI, the TUI launch screen
and the inspector's re-runs refuse the same values; the CLI and the TUI call them
first with their own names for the input (`--n`, "n per cell") so the message
names what the user typed. Each failure is one line saying what is accepted.
"""

from __future__ import annotations

import math

from lctui.core.errors import UserInputError

# Examples per task x length cell. Work items are planned lazily (engine/plan.py), so a
# run of any n starts at once in constant memory; an example's index is stored as a
# 32-bit integer.
MAX_N = 2**31 - 1
# Lengths in tokens. Below 256 no task fits its instructions. 2M (2**21) is twice the
# longest windows of open models (1M); an example is built whole in memory at its
# length, even with --truncate (a 2M needle haystack: about 2 s and 400 MB).
MIN_LENGTH = 256
MAX_LENGTH = 2**21
# Seeds are hashed (as JSON text) into every example's random state, which takes any
# integer, but they are stored in a signed 64-bit column.
MAX_SEED = 2**63 - 1
# The range OpenAI-compatible servers accept; above 2 outputs are noise.
MAX_TEMPERATURE = 2.0


def check_n(n: int, name: str = "n") -> int:
    if n < 1:
        raise UserInputError(f"{name} must be at least 1")
    if n > MAX_N:
        raise UserInputError(
            f"{name} must be at most {MAX_N:,} examples per task x length cell (indices are "
            f"stored as 32-bit integers), got {n:,}"
        )
    return n


def check_seed(seed: int, name: str = "seed") -> int:
    if not 0 <= seed <= MAX_SEED:
        raise UserInputError(
            f"{name} must be an integer from 0 to 2**63 - 1 (it is stored as a 64-bit "
            f"integer), got {seed}"
        )
    return seed


def check_temperature(temperature: float, name: str = "temperature") -> float:
    if not (math.isfinite(temperature) and 0.0 <= temperature <= MAX_TEMPERATURE):
        raise UserInputError(
            f"{name} must be a number from 0 to {MAX_TEMPERATURE:g}, got {temperature}"
        )
    return temperature


def check_length(length: int, shown: str | None = None) -> int:
    """`length` tokens within MIN_LENGTH..MAX_LENGTH; `shown` is how the user wrote it."""
    text = repr(shown) if shown is not None else str(length)
    if length < MIN_LENGTH:
        raise UserInputError(
            f"length {text} is too short: the smallest supported is {MIN_LENGTH} tokens"
        )
    if length > MAX_LENGTH:
        raise UserInputError(
            f"length {text} is too long: the largest supported is 2048k ({MAX_LENGTH} "
            "tokens), twice the longest model windows, since each example is built whole "
            "in memory"
        )
    return length
