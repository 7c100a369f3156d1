"""Per-server accounting of the openai backend: each base URL's attempts, answers,
errors and latency, kept as the requests go (plain counters on the backend's loop).

The backend spreads requests round-robin (backends/resilience.py), and a retry goes to
the next server; counting per attempt shows which server answers, which one fails and
which one is slow. The engine reads the counts as `ServerShare`s (core/types.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from lctui.core.text import shorten
from lctui.core.types import ServerShare

ERROR_CHARS = 200  # the last error is kept this short (it goes into events and the store)


class _Tally:
    """The counters of one server."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.requests = 0
        self.ok = 0
        self.errors = 0
        self.in_flight = 0
        self.latency_sum = 0.0
        self.ttft_sum = 0.0
        self.ttft_count = 0
        self.last_error: str | None = None

    def share(self) -> ServerShare:
        return ServerShare(
            url=self.url,
            requests=self.requests,
            ok=self.ok,
            errors=self.errors,
            in_flight=self.in_flight,
            latency_s=self.latency_sum / self.ok if self.ok else None,
            ttft_s=self.ttft_sum / self.ttft_count if self.ttft_count else None,
            last_error=self.last_error,
        )


class Attempt:
    """One attempt at one server, from the request sent to its end (see `ServerTallies`)."""

    __slots__ = ("_clock", "_first", "_settled", "_started", "_tally")

    def __init__(self, tally: _Tally, clock: Callable[[], float]) -> None:
        self._tally = tally
        self._clock = clock
        self._started = clock()
        self._first: float | None = None
        self._settled = False
        tally.requests += 1
        tally.in_flight += 1

    def text(self) -> None:
        """Text arrived (the first one sets the time to first token)."""
        if self._first is None:
            self._first = self._clock()
            self._tally.ttft_sum += self._first - self._started
            self._tally.ttft_count += 1

    def answered(self) -> None:
        if self._settle():
            self._tally.ok += 1
            self._tally.latency_sum += self._clock() - self._started

    def failed(self, message: str) -> None:
        if self._settle():
            self._tally.errors += 1
            self._tally.last_error = shorten(message, ERROR_CHARS, one_line=True)

    def end(self) -> None:
        """Always called last; an attempt neither answered nor failed was given up on."""
        self._settle()

    def _settle(self) -> bool:
        if self._settled:
            return False
        self._settled = True
        self._tally.in_flight -= 1
        return True


class ServerTallies:
    """The tallies of a model's servers, by the index of their base URL."""

    def __init__(self, urls: Sequence[str], clock: Callable[[], float] = time.monotonic) -> None:
        self._tallies = [_Tally(url) for url in urls]
        self._clock = clock

    def begin(self, index: int) -> Attempt:
        return Attempt(self._tallies[index], self._clock)

    def shares(self) -> tuple[ServerShare, ...]:
        return tuple(t.share() for t in self._tallies)
