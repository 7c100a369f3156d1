"""The List scenario's identifiers: uuid1-like hex strings, as one tight loop makes them.

LIFBench's list holds `uuid.uuid1().hex` values made 90,000 at a time in one loop,
then shuffled in with the instructions. Being time-based, they share their upper
timestamp, clock sequence and node, and differ only in the lowest 32 bits of the
timestamp (their first eight hex digits), mostly in its last five or six digits: any
two are within Levenshtein distance 8 of each other (3 to 6 for almost every pair).
LIFEval's near-miss rule (distance <= 32 / 6 + 3) depends on that, so a wrong
identifier earns the original's half credit here as there.

We make the same structure without a clock: from the stream's rng, a start time in
2024, a clock sequence and a random (multicast) node, then the timestamps of a
90,000-step loop whose steps follow the ones measured for `uuid.uuid1()` in a tight
loop (30 to 120 intervals of 100 ns, mostly 30 or 40). Identifiers are handed out
in random order without repetition, like picks from the shuffled batch; a new batch
(a later loop) starts when one is used up.
"""

from __future__ import annotations

import random
from itertools import accumulate

BATCH_SIZE = 90_000
# Steps between consecutive uuid1 timestamps in a tight loop, in 100-ns intervals, with
# their measured shares (90,000 uuid.uuid1() calls, Python 3.11, Linux: 69 % 30, 24 % 40,
# 5 % 50, the rest longer).
_STEPS = (30, 40, 50, 60, 70, 80, 100, 120)
_STEP_CUM_WEIGHTS = (690, 930, 980, 990, 993, 996, 998, 1000)
# uuid1 counts 100-ns intervals from 1582-10-15; this many lie before 1970-01-01.
_GREGORIAN_OFFSET = 0x01B21DD213814000
_YEAR_2024 = (1_704_067_200, 1_735_689_600)  # Unix seconds of 2024-01-01 and 2025-01-01
_LOW_BITS = 32
_MULTICAST = 1 << 40  # uuid.uuid1 sets it on a random node


def uuid1_hex(timestamp: int, clock_seq: int, node: int) -> str:
    """The `.hex` of the version-1 UUID with these fields (RFC 4122 layout)."""
    time_low = timestamp & 0xFFFFFFFF
    time_mid = (timestamp >> 32) & 0xFFFF
    time_hi_version = ((timestamp >> 48) & 0x0FFF) | 0x1000
    clock_hi_variant = ((clock_seq >> 8) & 0x3F) | 0x80
    clock_low = clock_seq & 0xFF
    return (
        f"{time_low:08x}{time_mid:04x}{time_hi_version:04x}"
        f"{clock_hi_variant:02x}{clock_low:02x}{node:012x}"
    )


class Uuid1Source:
    """uuid1-like identifiers of one simulated tight loop after another, in random order."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._times: list[int] = []
        self._left: list[int] = []  # indices of the batch not handed out yet
        self._clock_seq = 0
        self._node = 0

    def _new_batch(self) -> None:
        rng = self._rng
        steps = rng.choices(_STEPS, cum_weights=_STEP_CUM_WEIGHTS, k=BATCH_SIZE - 1)
        span = sum(steps)
        seconds = rng.randrange(*_YEAR_2024)
        upper = (seconds * 10_000_000 + _GREGORIAN_OFFSET) >> _LOW_BITS << _LOW_BITS
        # The loop starts where its low 32 bits do not wrap: every identifier of the
        # batch then shares all but its first eight hex digits, as one real loop does
        # (a wrap happens to one loop in about 1,400).
        start = upper + rng.randrange((1 << _LOW_BITS) - span)
        self._times = list(accumulate(steps, initial=start))
        self._left = list(range(BATCH_SIZE))
        self._clock_seq = rng.getrandbits(14)
        self._node = rng.getrandbits(48) | _MULTICAST

    def take(self) -> str:
        """The next identifier: a random one of the batch not handed out yet."""
        if not self._left:
            self._new_batch()
        left = self._left
        pick = self._rng.randrange(len(left))
        left[pick], left[-1] = left[-1], left[pick]
        return uuid1_hex(self._times[left.pop()], self._clock_seq, self._node)
