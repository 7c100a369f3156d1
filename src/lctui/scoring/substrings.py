"""Which of many short texts occur in one long text, in time linear in their sizes.

LIFBench's find_dup_text scorer asks, for every value a model wrote, whether it
occurs anywhere in the prompt (`value in prompt`). One such test scans the prompt,
so a reply of many distinct values costs (values x prompt length): a 1 MB reply of
numbers against a 120K-token prompt would take minutes. `occurring` answers the same
question exactly: values of one length are few enough to test one by one, or they
are looked up among the hashes of all the prompt's windows of that length (numpy,
one pass over the prompt per length), each hash hit confirmed by comparing the text.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

# Above this many values of one length, hashing the prompt's windows once (a few tenths
# of a second for a 120K-token prompt, about a thousand scans of it) is cheaper than
# scanning it for each value; an answer of a model has far fewer values.
_SCAN_LIMIT = 4096
_BASE = 0x9E3779B97F4A7C15  # odd, so invertible modulo 2**64


class _Windows:
    """Polynomial hashes modulo 2**64 of a text's windows, by prefix sums."""

    def __init__(self, text: str) -> None:
        import numpy as np

        self.np = np
        codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        n = len(codes)
        self.powers = np.full(n + 1, _BASE, dtype=np.uint64)
        self.powers[0] = 1
        np.cumprod(self.powers, out=self.powers)  # B**k, wrapping modulo 2**64
        inverse = np.full(n + 1, pow(_BASE, -1, 1 << 64), dtype=np.uint64)
        inverse[0] = 1
        np.cumprod(inverse, out=inverse)
        self.inverse = inverse
        self.prefix = np.zeros(n + 1, dtype=np.uint64)
        np.cumsum(codes.astype(np.uint64) * self.powers[:n], out=self.prefix[1:])

    def of_length(self, length: int) -> tuple[Any, Any]:
        """(sorted hashes of every window of `length`, the window start of each)."""
        np = self.np
        count = len(self.prefix) - length
        hashes = (self.prefix[length:] - self.prefix[:count]) * self.inverse[:count]
        order = np.argsort(hashes, kind="stable")
        return hashes[order], order

    def hashes(self, needles: list[str], length: int) -> Any:
        np = self.np
        data = "".join(needles).encode("utf-32-le", "surrogatepass")
        codes = np.frombuffer(data, dtype=np.uint32).astype(np.uint64).reshape(-1, length)
        return (codes * self.powers[:length]).sum(axis=1, dtype=np.uint64)


@lru_cache(maxsize=4)
def _windows(text: str) -> _Windows:
    return _Windows(text)


def occurring(needles: Iterable[str], text: str) -> set[str]:
    """The distinct `needles` that are substrings of `text` (exactly `needle in text`)."""
    by_length: dict[int, list[str]] = defaultdict(list)
    for needle in set(needles):
        by_length[len(needle)].append(needle)
    found: set[str] = set()
    for length, group in by_length.items():
        if length > len(text):
            continue
        if length == 0 or len(group) <= _SCAN_LIMIT:
            found.update(needle for needle in group if needle in text)
            continue
        windows = _windows(text)
        table, starts = windows.of_length(length)
        hashes = windows.hashes(group, length)
        slots = windows.np.searchsorted(table, hashes)
        for needle, slot, value in zip(group, slots.tolist(), hashes.tolist(), strict=True):
            if slot >= len(table) or int(table[slot]) != value:
                continue  # no window has its hash: not a substring
            start = int(starts[slot])
            if text[start : start + length] == needle or needle in text:  # a collision
                found.add(needle)
    return found


__all__ = ["occurring"]
