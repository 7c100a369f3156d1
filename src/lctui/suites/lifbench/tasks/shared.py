"""What the LIFBench tasks share: one context per scenario, seed and length, as in the original.

Every example of a scenario at one seed reads the same context stream (list items,
documents, document sentences and tagged sentences), drawn from
`random.Random(seed_from("lifbench", scenario, seed))`: it depends on neither the
task, the index, the length nor the tokenizer. An example's context is a cut of that
stream sized to its budget, and whatever sits "in the middle" or "at a depth" is
placed from an estimate that is the same for every example at the length
(`length - allowance`), so the exact fit to each question only changes the end of
the context. Prompts of all the instructions asked over one context then share a
long prefix (a server's prefix cache hits), and `context_key` names that context so
the planner can submit its work items back to back.

Streams keep their token counts per tokenizer in a small LRU, so later examples at a
length only assemble and verify their prompt (one tokenisation).
"""

from __future__ import annotations

import bisect
import random
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from lctui.core.hashing import seed_from
from lctui.core.protocols import Tokenizer
from lctui.tasks.base import Task
from lctui.tasks.budget import Budget
from lctui.tasks.params import choice_param

STREAM_CACHE_SIZE = 4
# Which point rules LIFEval applies: "original" awards exactly what LIFBench's own
# evaluation code awards, its plain bugs included; "corrected" fixes those bugs (the
# docs/suites.md's LIFBench deviations name each one). Declared once for every LIFBench task.
RULES_ORIGINAL, RULES_CORRECTED = "original", "corrected"
RULES_PARAM = replace(
    choice_param(
        "rules",
        "LIFEval point rules: original (as LIFBench's evaluation code, bugs included) "
        "or corrected (those bugs fixed)",
        RULES_ORIGINAL,
        RULES_CORRECTED,
    ),
    default=RULES_ORIGINAL,
)
_CACHES: weakref.WeakSet[StreamCache[Any]] = weakref.WeakSet()


def context_key(scenario: str, seed: int, length: int, tokenizer_name: str) -> str:
    """The name of the context shared by the examples of `scenario` at `seed` and `length`."""
    return f"lifbench-{scenario}:s{seed}:{length}:{tokenizer_name}"


def stream_rng(scenario: str, seed: int) -> random.Random:
    """The rng of a scenario's context stream: the same for every task, index and length."""
    return random.Random(seed_from("lifbench", scenario, seed))


def units_within(prefix: Sequence[int], room: int) -> int:
    """The number of units whose prefix sum stays within `room` (0 when none fits)."""
    return max(0, bisect.bisect_right(prefix, room) - 1)


def extend_prefix(prefix: list[int], counts: Sequence[int]) -> None:
    """Append the prefix sums of `counts` to `prefix` in place."""
    total = prefix[-1]
    for count in counts:
        total += count
        prefix.append(total)


class Stream:
    """A context stream that grows on demand under a lock (examples build in threads)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.prefix: list[int] = [0]  # prefix sums of the unit counts, for the tokenizer

    def cover(self, tokens: int, tokenizer: Tokenizer) -> list[int]:
        """Prefix sums of enough units to exceed `tokens` (a snapshot, safe to keep)."""
        with self.lock:
            while self.prefix[-1] <= tokens:
                self.grow(tokenizer)
            return self.prefix[:]

    def grow(self, tokenizer: Tokenizer) -> None:
        """Add a batch of units and their counts (called under the lock)."""
        raise NotImplementedError


S = TypeVar("S", bound=Stream)


class StreamCache(Generic[S]):
    """The streams of one scenario per (seed, tokenizer name), least recently used dropped."""

    def __init__(self, make: Callable[[int, Tokenizer], S], size: int = STREAM_CACHE_SIZE) -> None:
        self._make = make
        self._size = size
        self._streams: OrderedDict[tuple[int, str], S] = OrderedDict()
        self._lock = threading.Lock()
        _CACHES.add(self)

    def get(self, seed: int, tokenizer: Tokenizer) -> S:
        key = (seed, tokenizer.name)
        with self._lock:
            stream = self._streams.get(key)
            if stream is None:
                stream = self._streams[key] = self._make(seed, tokenizer)
            self._streams.move_to_end(key)
            while len(self._streams) > self._size:
                self._streams.popitem(last=False)
            return stream

    def __len__(self) -> int:
        return len(self._streams)

    def clear(self) -> None:
        with self._lock:
            self._streams.clear()


def clear_streams() -> None:
    """Forget every scenario's streams (their counts are rebuilt on the next example)."""
    for cache in _CACHES:
        cache.clear()


class Spec(Protocol):
    """What every LIFBench task spec has: a name, wordings and variable samples."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def expressions(self) -> tuple[str, ...]: ...

    @property
    def variables(self) -> tuple[Mapping[str, Any], ...]: ...


class LifbenchTask(Task):
    """A LIFBench task: one instruction asked over its scenario's shared context."""

    category: ClassVar[str] = "lifbench"
    suite: ClassVar[str] = "lifbench"
    metric: ClassVar[str] = "lifeval_ars"
    # LIFBench measures its length intervals in gpt-4o tokens.
    paper_tokenizer: ClassVar[str | None] = "o200k_base"
    scenario: ClassVar[str]

    def __init__(
        self, spec: Spec, max_new_tokens: int, params: Mapping[str, Any] | None = None
    ) -> None:
        name = f"lifbench_{spec.name}"
        super().__init__(name, spec.description, max_new_tokens, "Output:", params or {})
        self.spec = spec

    def choice(self, index: int) -> tuple[int, int]:
        """(expression id, variable id) of example `index`."""
        n_expr = len(self.spec.expressions)
        return index % n_expr, (index // n_expr) % len(self.spec.variables)

    def context_key(self, length: int, seed: int, index: int, tokenizer_name: str) -> str | None:
        return context_key(self.scenario, seed, length, tokenizer_name)

    def shared(self, budget: Budget, tokenizer: Tokenizer) -> tuple[int, str]:
        """(seed, context key) of the example being built."""
        return budget.seed, context_key(self.scenario, budget.seed, budget.length, tokenizer.name)


def shared_prefix(a: str, b: str) -> int:
    """The length of the common prefix of `a` and `b` (what a prefix cache can reuse)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:  # bisection on equal prefixes: slices compare in C
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo
