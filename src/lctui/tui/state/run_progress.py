"""What the live run screen shows, kept apart from Textual: the run's cells and streams.

The engine calls its sink synchronously on the event loop, so the sink (`EventBuffer`)
only appends `(time, event)` pairs; the screen drains the buffer on a timer and
applies the events here. Drawing never runs inside the engine's call, however slow
the terminal is. How the events are counted is core/run_state.py's (`RunState` is its
`RunProgress` with the shape of the grid); a viewer's replay of a run of another
process (`replay`) counts in the means but in no window, and says nothing of when
first tokens came.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence

from lctui.core import run_state
from lctui.core.events import Event, RunPlanned, StoreRecovered, StoreStalled
from lctui.core.run_state import CellProgress, RunProgress, Stream

__all__ = ["CellProgress", "EventBuffer", "RunState", "StreamView", "cycle"]

StreamView = Stream  # one generation, as the stream panel shows it


class EventBuffer:
    """The engine's sink: appends and returns; `drain` hands the batch to the screen."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._events: list[tuple[float, Event]] = []

    def __call__(self, event: Event) -> None:
        self._events.append((self._clock(), event))

    def __len__(self) -> int:
        return len(self._events)

    def drain(self) -> list[tuple[float, Event]]:
        events, self._events = self._events, []
        return events


class RunState(RunProgress):
    """A run's progress with its grid's models, tasks and lengths; read by the grid, the
    stream panel and the stats line."""

    def __init__(self, models: Sequence[str], tasks: Sequence[str], lengths: Sequence[int]):
        super().__init__()
        self.models = list(models)
        self.tasks = list(tasks)
        self.lengths = list(lengths)

    def apply(self, at: float, event: Event) -> None:
        run_state.apply(self, at, event)
        if not self.models and self.plan is not None:
            self._shape(self.plan)

    def replay(self, at: float, events: Iterable[Event]) -> None:
        """A viewer's replay of a run so far, all stamped `at` (the run's plan): its
        tokens and examples count in the means but in no recent window, its streams'
        first tokens are unknown until the engine's measure comes, and its end stops
        no clock (the viewer learns of it now, not then)."""
        run_state.replay(self, at, events)
        if not self.models and self.plan is not None:
            self._shape(self.plan)

    def end(self, at: float) -> None:
        """The run is over (however it ended, RunFinished or not): its means from now."""
        self.rates.end(at)

    def _shape(self, plan: RunPlanned) -> None:
        """A run of another process: its plan names what it runs."""
        keys = [*plan.cells, *plan.skipped]
        self.models = list(dict.fromkeys(key.model for key in keys))
        self.tasks = list(dict.fromkeys(key.task for key in keys))
        self.lengths = sorted({key.length for key in keys})

    # -- reads --------------------------------------------------------------------------

    @property
    def order(self) -> list[str]:
        """Generation ids in start order."""
        return list(self.streams)

    @property
    def store_stalled(self) -> StoreStalled | None:
        return self.stalled

    @property
    def store_recovered(self) -> StoreRecovered | None:
        return self.recovered

    def tokens_per_s(self, now: float) -> float | None:
        """Output tokens per second over the last few seconds; the run's mean once it
        has ended (core/measures.py)."""
        return self.rates.tokens_per_s(now)

    def examples_per_s(self, now: float) -> float | None:
        """Examples finished per second over the last minute; the run's mean once over."""
        return self.rates.examples_per_s(now)

    @property
    def mean_ttft(self) -> float | None:
        """Mean time to first token of the generations that have had one, those still
        streaming included (and those an attached viewer got as counts); None before."""
        return self.ttft()

    def model_ttft(self, model: str) -> float | None:
        """The same, of one model's generations only."""
        return self.ttft(model)


def cycle(order: Sequence[str], current: str | None, step: int = 1) -> str | None:
    """The id `step` places after `current` in `order`, wrapping around."""
    if not order:
        return None
    if current not in order:
        return order[-1] if step < 0 else order[0]
    return order[(order.index(current) + step) % len(order)]
