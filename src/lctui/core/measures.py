"""How long a run has taken and how fast it goes, measured one way for every display.

The TUI's live view and Runs screen (tui/state/run_progress.py, tui/state/run_manager.py),
the summary a run publishes to its viewers (engine/publish.py, `LiveProgress`: `lctui
runs`), `lctui run`'s rows (cli/progress.py) and `lctui attach` (cli/attach.py) each
show a run's events as one reducer folds them (core/run_state.py); what they show of
time and speed comes from here:

- elapsed (`Stopwatch`): from the run's start, models loading included, to its end,
  whichever end a display learns of first; what it shows never goes back.
- time to first token (`FirstTokens`): the mean over the generations that have one,
  per model (or cell); unknown (None) until one has shown text, never 0.
- tokens and examples per second (`Throughput`): over the last `TOKEN_WINDOW_S` and
  `EXAMPLE_WINDOW_S` while the run goes; once it has ended, its means over the time it
  generated (from its plan to its end), never the 0 of an idle window.
- the ETA: the examples left at the recent rate of finished ones.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Mapping
from typing import Generic, TypeVar

from lctui.core.paths import machine_id

TOKEN_WINDOW_S = 5.0  # tok/s is measured over the last few seconds, not the whole run
# Examples finish seconds apart: their rate (and the ETA from it) is taken over a minute.
EXAMPLE_WINDOW_S = 60.0

K = TypeVar("K", bound=Hashable)


class Sliding:
    """Amounts per quarter second over a sliding window: a total at any moment, in
    bounded memory however many events come."""

    BUCKET_S = 0.25

    def __init__(self, window_s: float) -> None:
        self.window_s = window_s
        self._buckets: deque[list[float]] = deque()  # [start, amount]

    def add(self, at: float, amount: float) -> None:
        if self._buckets and at - self._buckets[-1][0] < self.BUCKET_S:
            self._buckets[-1][1] += amount
        else:
            self._buckets.append([at, amount])
            self._trim(at)

    def total(self, now: float) -> float:
        self._trim(now)
        return sum(amount for _, amount in self._buckets)

    def _trim(self, now: float) -> None:
        while self._buckets and self._buckets[0][0] < now - self.window_s:
            self._buckets.popleft()


class Stopwatch:
    """A run's elapsed time on one clock: from `started_at` to the first end it is told
    of. What `elapsed_s` answers never goes back, so a display that learns of the end
    late (a viewer, a redraw between the event and its handling) never steps back."""

    def __init__(self, started_at: float) -> None:
        self.started_at = started_at
        self.ended_at: float | None = None
        self._shown = 0.0

    def stop(self, at: float) -> None:
        if self.ended_at is None:
            self.ended_at = at

    @property
    def stopped(self) -> bool:
        return self.ended_at is not None

    def elapsed_s(self, now: float) -> float:
        end = self.ended_at if self.ended_at is not None else now
        self._shown = max(self._shown, end - self.started_at)
        return self._shown


class FirstTokens(Generic[K]):
    """Time to first token per key (a model, a cell): the engine's measure of each
    generation once it has one, before that the time its first text was seen.

    The measured ones are kept as sums per key, so a mean costs the keys and the
    generations in flight, never the run's length (a display asks on every change)."""

    def __init__(self) -> None:
        self._seen: dict[str, tuple[K, float]] = {}  # in flight: generation -> (key, s)
        self._measured: dict[str, tuple[K, float]] = {}  # so a second measure replaces
        self._counted: dict[K, tuple[float, int]] = {}  # sums of measured and told as counts

    def seen(self, key: K, generation_id: str, seconds: float) -> None:
        """A generation's first text arrived `seconds` after it started."""
        if generation_id not in self._measured:
            self._seen.setdefault(generation_id, (key, seconds))

    def measured(self, key: K, generation_id: str, seconds: float | None) -> None:
        """The engine's own measure of a generation (None: it showed no text)."""
        self._seen.pop(generation_id, None)
        before = self._measured.pop(generation_id, None)
        if before is not None:
            self.add(before[0], -before[1], -1)
        if seconds is not None:
            self._measured[generation_id] = (key, seconds)
            self.add(key, seconds, 1)

    def add(self, key: K, total_s: float, n: int) -> None:
        """Generations told as counts (a viewer's replay): their sum and number."""
        if n:
            total, count = self._counted.get(key, (0.0, 0))
            self._counted[key] = (total + total_s, count + n)

    def get(self, generation_id: str) -> float | None:
        found = self._seen.get(generation_id) or self._measured.get(generation_id)
        return found[1] if found is not None else None

    def mean(self, key: K | None = None) -> float | None:
        """The mean over the generations of `key` (None: all) that have one; None
        while none has."""
        return self.mean_where(lambda k: key is None or k == key)

    def mean_where(self, keep: Callable[[K], bool]) -> float | None:
        """The mean over the generations whose key `keep` takes (a model's cells)."""
        total, n = 0.0, 0
        for k, (s, c) in self._counted.items():
            if keep(k):
                total, n = total + s, n + c
        for k, seconds in self._seen.values():
            if keep(k):
                total, n = total + seconds, n + 1
        return total / n if n else None


class Throughput:
    """Output tokens and finished examples per second of one run (see the module)."""

    def __init__(self) -> None:
        self.planned_at: float | None = None
        self.ended_at: float | None = None
        self.output_tokens = 0
        self.finished = 0
        self._tokens = Sliding(TOKEN_WINDOW_S)
        self._ends = Sliding(EXAMPLE_WINDOW_S)

    def plan(self, at: float) -> None:
        if self.planned_at is None:
            self.planned_at = at

    def add_tokens(self, at: float, tokens: int) -> None:
        self.output_tokens += tokens
        self._tokens.add(at, tokens)

    def add_finished(self, at: float, count: int = 1) -> None:
        self.finished += count
        self._ends.add(at, count)

    def add_earlier(self, tokens: int, finished: int) -> None:
        """What finished before a viewer attached: in the means, not in the windows."""
        self.output_tokens += tokens
        self.finished += finished

    def end(self, at: float) -> None:
        if self.ended_at is None:
            self.ended_at = at

    def _generating_s(self) -> float | None:
        if self.planned_at is None or self.ended_at is None:
            return None
        return self.ended_at - self.planned_at

    def tokens_per_s(self, now: float) -> float | None:
        """Over the last TOKEN_WINDOW_S (the time since the plan, when shorter); the
        run's mean once it has ended; None before the plan."""
        if self.ended_at is not None:
            span = self._generating_s()
            return self.output_tokens / span if span else None
        return self._window_rate(self._tokens, now)

    def examples_per_s(self, now: float) -> float | None:
        if self.ended_at is not None:
            span = self._generating_s()
            return self.finished / span if span else None
        return self._window_rate(self._ends, now)

    def _window_rate(self, window: Sliding, now: float) -> float | None:
        if self.planned_at is None:
            return None
        span = min(window.window_s, now - self.planned_at)
        return window.total(now) / span if span > 0 else None

    def eta_s(self, remaining: int, now: float) -> float | None:
        """Seconds until `remaining` examples finish at the recent rate: 0 when none is
        left, None while nothing has finished lately."""
        if not remaining:
            return 0.0
        rate = self.examples_per_s(now)
        return remaining / rate if rate else None


def run_timing(load_s: Mapping[str, float]) -> dict[str, object]:
    """How a run is timed, as its record keeps it (core.types.RUN_TIMING): the machine
    it runs on (core.paths.machine_id) and how long each model took to load."""
    return {"machine": machine_id(), "load_s": dict(load_s)}
