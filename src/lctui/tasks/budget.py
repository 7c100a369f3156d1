"""Build a context to an exact token budget with one tokenisation of its units.

Instead of bisecting over re-tokenisations of the whole text (RULER's way), the
units (sentences, list items, key-value pairs) are tokenised once, the cut is found
by bisection on their prefix sums, and the assembled prompt is verified once with
the real tokenizer. Unit counts sum to slightly more than the whole text's count
(BPE merges across unit boundaries are rare), so the first guess is almost always
within tolerance; when it is not, the measured error corrects the target and the
loop runs again (at most a few times, never returning an over-budget text).
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import overload

from lctui.core.errors import UserInputError
from lctui.core.protocols import Tokenizer

TOLERANCE_FRACTION = 0.005
TOLERANCE_MIN_TOKENS = 8
_MAX_VERIFICATIONS = 6
# Tokens every example reserves for the model's prompt framing (chat template around
# one user turn, assistant header, answer prefix), the same for every model, so an
# example (and its id) never depends on which model reads it and all models read the
# same text. Common templates need less: SmolLM2 (ChatML with its default system
# line) 32 with "Answer:", Llama 3.1 (dated system block) about 35, Qwen2.5 (default
# system line) about 30, Gemma, Mistral and Phi-3 under 15, plain prompts 2-3. 64
# covers them with room for longer answer prefixes. A model whose framing needs more
# is refused at lengths where `length - allowance + framing` exceeds its window
# (engine/plan.py); below its window it reads a prompt that many tokens longer.
TEMPLATE_ALLOWANCE = 64


@dataclass(frozen=True)
class Budget:
    """Token budget of one example: user text + template allowance + answer reserve <= length."""

    length: int
    reserve: int
    overhead: int = 0  # tokens reserved for the template (Task.generate: TEMPLATE_ALLOWANCE)
    # The run's seed: tasks whose examples share material per seed (LIFBench's one
    # context per scenario) read it here; the example's own rng is derived from it too.
    seed: int = 0

    @property
    def target(self) -> int:
        """Tokens available to the user text (preamble, context, question)."""
        return self.length - self.reserve - self.overhead

    @property
    def tolerance(self) -> int:
        """How far under the target a built text may land."""
        return max(TOLERANCE_MIN_TOKENS, math.floor(self.length * TOLERANCE_FRACTION))


@dataclass(frozen=True)
class Fitted:
    """The result of fitting: how many units, the assembled text and its true token count."""

    units: int
    text: str
    tokens: int
    verifications: int
    tail: str = ""  # the partial unit after the whole ones, if any


def prefix_sums(counts: Sequence[int]) -> list[int]:
    """prefix[i] = tokens of the first i units."""
    return [0, *itertools.accumulate(counts)]


# The first units a CountedPrefix counts, before it knows their average size.
_FIRST_CHUNK = 64
# How far past the estimated bound a CountedPrefix counts, so that the bound is
# usually passed in one call of the tokenizer: a share of the units still needed,
# and a few more.
_CHUNK_MARGIN = 0.05
_CHUNK_EXTRA = 8


class CountedPrefix(Sequence[int]):
    """The prefix sums of `size` units that are counted only as far as they are read.

    A row may bring far more units than a length can hold (ALCE's 2,000 documents,
    of which 128K holds about 900). `fit_to_budget` reads prefix sums only up to the
    first one past its room (and the one after a whole-units fit), so the units past
    that bound are never made nor tokenised; the sums it reads are those `prefix_sums`
    gives. `units(i, j)` makes units i to j-1; they are counted in chunks sized from
    the average count so far (`count` gets each chunk, e.g. `tokenizer.count_batch`).
    """

    def __init__(
        self,
        size: int,
        units: Callable[[int, int], Sequence[str]],
        count: Callable[[Sequence[str]], list[int]],
    ) -> None:
        self._size = size
        self._units = units
        self._count = count
        self._sums = [0]

    @property
    def counted(self) -> int:
        """How many units have been counted so far."""
        return len(self._sums) - 1

    def __len__(self) -> int:
        return self._size + 1

    @overload
    def __getitem__(self, index: int) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[int]: ...

    def __getitem__(self, index: int | slice) -> int | Sequence[int]:
        if isinstance(index, slice):
            self._count_to(self._size)
            return self._sums[index]
        position = index if index >= 0 else index + len(self)
        if not 0 <= position < len(self):
            raise IndexError(index)
        self._count_to(position)
        return self._sums[position]

    def largest_fitting(self, room: int) -> int:
        """Largest n with prefix[n] <= room, counting units only until one passes room."""
        while self._sums[-1] <= room and self.counted < self._size:
            done = self.counted
            if done == 0:
                wanted = _FIRST_CHUNK
            else:
                average = max(self._sums[-1], 1) / done
                needed = (room - self._sums[-1]) / average
                wanted = math.ceil(needed * (1 + _CHUNK_MARGIN)) + _CHUNK_EXTRA
            self._count_to(done + wanted)
        return max(0, bisect.bisect_right(self._sums, room) - 1)

    def _count_to(self, position: int) -> None:
        """Count the units up to `position` (prefix[position] known afterwards)."""
        end = min(position, self._size)
        if end <= self.counted:
            return
        counts = self._count(self._units(self.counted, end))
        self._sums += list(itertools.accumulate(counts, initial=self._sums[-1]))[1:]


Tail = Callable[[int, int], tuple[str, int]]


def fit_to_budget(
    build: Callable[[int, str], str],
    prefix: Sequence[int],
    fixed_tokens: int,
    budget: Budget,
    tokenizer: Tokenizer,
    *,
    tail: Tail | None = None,
    what: str = "context",
) -> Fitted:
    """Choose the number of units n so that count(build(n, tail)) lands just under the target.

    `prefix` holds prefix sums of the unit token counts (len = available units + 1);
    `fixed_tokens` estimates everything that does not grow with n (instructions,
    needles, the question). `build(n, tail)` assembles the whole user text with n
    units followed by `tail`. Coarse units (sentences, JSON pairs) leave a gap under
    the target; `tail(n, room)` fills it with a partial unit of at most `room` tokens
    and returns it with its token count, so the first verification usually lands.
    Without `tail` the text holds whole units only and lands within the budget's
    tolerance plus one unit (the next one, which did not fit).
    """
    target = budget.target
    if fixed_tokens > target:
        raise UserInputError(
            f"a length of {budget.length} tokens is too short for this task: its fixed parts "
            f"alone need about {fixed_tokens + budget.reserve + budget.overhead} tokens"
        )
    goal = target
    best: Fitted | None = None
    tried: dict[tuple[int, str], int] = {}
    last = len(prefix) - 1
    for _ in range(_MAX_VERIFICATIONS):
        room = goal - fixed_tokens
        n = _largest_fitting(prefix, room)
        while n > 0 and tried.get((n, ""), 0) > target:
            n -= 1  # that many whole units was measured over budget: step below it
        extra, extra_tokens = "", 0
        if tail is not None and n < last and room - prefix[n] > 1:
            extra, extra_tokens = tail(n, room - prefix[n] - 1)  # a token of slack at the join
        if (n, extra) in tried:
            break
        text = build(n, extra)
        tokens = tokenizer.count(text)
        tried[n, extra] = tokens
        if tokens <= target and (best is None or tokens > best.tokens):
            best = Fitted(n, text, tokens, 0, extra)
        if target - budget.tolerance <= tokens <= target or (n == last and tokens < target):
            break
        # The estimate was off by (estimate - tokens); aim the estimate that much higher.
        goal = target + (fixed_tokens + prefix[n] + extra_tokens - tokens)
    if best is None:
        raise UserInputError(
            f"could not build a {what} under {budget.length} tokens with {tokenizer.name}"
        )
    shortfall = budget.tolerance
    if tail is None and best.units < last:
        # Whole units only: the next one did not fit, so the text may be short by up to it.
        shortfall += prefix[best.units + 1] - prefix[best.units]
    if best.tokens < target - shortfall and best.units < last:
        raise UserInputError(
            f"could only build the {what} to {best.tokens} of {target} tokens with "
            f"{tokenizer.name} (tolerance {budget.tolerance})"
        )
    return Fitted(best.units, best.text, best.tokens, len(tried), best.tail)


def longest_fitting(
    make: Callable[[int], str], max_length: int, room: int, tokenizer: Tokenizer
) -> tuple[str, int]:
    """The longest `make(k)` (k <= max_length) with at most `room` tokens, and its count.

    `make(k)` grows with k (a prefix of a sentence, a JSON pair with a longer value);
    the search counts only these small strings, never the whole text.
    """
    lo, hi, best = 0, max_length, ("", 0)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        text = make(mid)
        count = tokenizer.count(text)
        if count <= room:
            lo, best = mid, (text, count)
        else:
            hi = mid - 1
    return best


def _largest_fitting(prefix: Sequence[int], room: int) -> int:
    """Largest n with prefix[n] <= room (0 when even one unit does not fit)."""
    if isinstance(prefix, CountedPrefix):
        return prefix.largest_fitting(room)
    return max(0, bisect.bisect_right(prefix, room) - 1)


class PieceCounts:
    """Token counts of text pieces, cached per distinct piece for one tokenizer.

    Haystacks are cut into pieces that the tokenizers' pre-tokenisers never merge
    across (a word with its leading space), so the sum of piece counts equals the
    whole text's count except at rare joins. Prose repeats its words, so after the
    first example almost every piece is a dictionary hit.
    """

    def __init__(self, tokenizer: Tokenizer) -> None:
        self._tokenizer = tokenizer
        self._counts: dict[str, int] = {}

    def counts(self, pieces: Sequence[str], remember: bool = True) -> list[int]:
        """Counts of `pieces`; with `remember=False` (unique pieces such as UUIDs) the
        new ones are counted without growing the cache."""
        known = self._counts
        missing = list({p for p in pieces if p not in known})
        if not missing:
            return [known[p] for p in pieces]
        fresh = dict(zip(missing, self._tokenizer.count_batch(missing), strict=True))
        if remember:
            known.update(fresh)
        return [known[p] if p in known else fresh[p] for p in pieces]


_PIECE_CACHE: dict[str, PieceCounts] = {}


def piece_counts(tokenizer: Tokenizer) -> PieceCounts:
    """The shared piece-count cache of a tokenizer (keyed by its name)."""
    if tokenizer.name not in _PIECE_CACHE:
        _PIECE_CACHE[tokenizer.name] = PieceCounts(tokenizer)
    return _PIECE_CACHE[tokenizer.name]
