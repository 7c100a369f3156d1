"""Haystacks cut into sentences, and insertion of needles at chosen depths.

A haystack is a list of sentences (each with its leading space); needles go
between sentences. Prose may end in a partial sentence that fills the budget exactly
(RULER cuts its essay at a word); filler and distractor haystacks hold whole sentences
only, as RULER's do, and land within one sentence of the budget. Sentence counts come
from the per-tokenizer cache in `budget`: prose repeats across examples, so after the
first example fitting is mostly lookups. RULER's own fill (`WholeUnits`, the `fill`
parameter of the needle tasks) holds whole units instead: words of prose, filler lines,
distractor needles, stepped back by RULER's step where an example overflows.
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lctui.core.errors import UserInputError
from lctui.core.protocols import Tokenizer
from lctui.core.types import Span
from lctui.tasks.base import Draft
from lctui.tasks.budget import (
    Budget,
    Fitted,
    fit_to_budget,
    longest_fitting,
    piece_counts,
    prefix_sums,
)
from lctui.tasks.corpora import NOISE_SENTENCES, sotu_sentences

_TOKENS_PER_WORD_LOW = 0.9  # English prose never has fewer tokens than this per word
# RULER's needle depths in prose: 40 evenly spaced percentages, 0 to 100 (rounded).
GRID_DEPTHS = tuple(round(100 * i / 39) for i in range(40))


@dataclass(frozen=True)
class Pieces:
    pieces: list[str]  # sentences, each with its leading space
    recurring: bool = True  # pieces repeat across examples (prose), worth caching
    # Whether the last piece may be cut to fill the budget: prose, which RULER cuts at a
    # word; a cut distractor ("... is 266") or filler sentence is nothing RULER inserts.
    cut_last: bool = True


@dataclass(frozen=True)
class Needle:
    """Text to insert at a depth (percent of the haystack), with the spans to mark in it."""

    text: str
    depth: float
    kind: str = "needle"
    label: str = ""
    marks: tuple[str, ...] = ()  # substrings of `text` to mark as gold


@dataclass(frozen=True)
class WholeUnits:
    """RULER's fill (its niah.py): whole units only, the count searched once per run.

    RULER searches the largest count of haystack units (words of prose, filler lines,
    distractor needles) for which one drawn example fits, gives every example that count,
    and steps an example that overflows back by `step` units until it fits, so an example
    lands up to one step under the length. lctui searches on a reference example drawn
    from the run's seed (`start` None), then fills each example from that count.
    """

    step: int  # units stepped back when an example overflows (RULER's `incremental`)
    per_unit: int = 1  # pieces of the haystack in one unit (prose: a unit is a word)
    start: int | None = None  # the count found on the reference example; None: search


def sentence_pieces(
    sentences: Sequence[str], start: int, min_words: int, cut_last: bool = True
) -> Pieces:
    """Consecutive sentences from `start` (wrapping around) until `min_words` words."""
    pieces: list[str] = []
    words = 0
    i = start
    while words < min_words:
        sentence = sentences[i % len(sentences)]
        pieces.append(" " + sentence)
        words += sentence.count(" ") + 1
        i += 1
    return Pieces(pieces, cut_last=cut_last)


def prose_haystack(rng: random.Random, min_words: int) -> Pieces:
    sentences = sotu_sentences()
    return sentence_pieces(sentences, rng.randrange(len(sentences)), min_words)


def noise_haystack(rng: random.Random, min_words: int) -> Pieces:
    start = rng.randrange(len(NOISE_SENTENCES))
    return sentence_pieces(NOISE_SENTENCES, start, min_words, cut_last=False)


def grid_depths(rng: random.Random, count: int) -> list[float]:
    """`count` depths from GRID_DEPTHS, distinct (drawn without replacement) as RULER
    draws them for prose; past 40 needles the grid is drawn again for the next 40."""
    out: list[float] = []
    while len(out) < count:
        draw = min(len(GRID_DEPTHS), count - len(out))
        out.extend(float(d) for d in rng.sample(GRID_DEPTHS, draw))
    return out


def uniform_depths(rng: random.Random, count: int) -> list[float]:
    """`count` depths in [0, 100): each lands on a uniformly drawn unit boundary of the
    haystack (RULER's random line index for filler and needle haystacks)."""
    return [100.0 * rng.random() for _ in range(count)]


def depth_slot(depth: float, n: int) -> int:
    """The unit boundary (0..n) a needle at `depth` percent of n units goes to.

    RULER's `int(n * depth / 100)`: 100 % is the end. The epsilon keeps a depth given
    as 100 * k / n at boundary k despite floating-point rounding.
    """
    return min(n, max(0, math.floor(depth / 100.0 * n + 1e-9)))


def insert_needles(
    pieces: Pieces, n: int, needles: Sequence[Needle], tail: str = ""
) -> tuple[str, list[Span]]:
    """Join the first n sentences (and `tail`, a partial one) with needles between sentences.

    Returns the context text and the spans (needle sentences, marked gold values).
    """
    placed: dict[int, list[Needle]] = {}
    for needle in needles:
        at = depth_slot(needle.depth, n)
        placed.setdefault(at, []).append(needle)
    chunks: list[str] = []
    spans: list[Span] = []
    offset = 0
    cursor = 0
    for at in sorted(placed):
        chunk = "".join(pieces.pieces[cursor:at])
        chunks.append(chunk)
        offset += len(chunk)
        for needle in placed[at]:
            text = " " + needle.text
            chunks.append(text)
            start = offset + 1
            spans.append(Span(start, start + len(needle.text), needle.kind, needle.label))
            for mark in needle.marks:
                pos = needle.text.find(mark)
                if pos >= 0:
                    spans.append(Span(start + pos, start + pos + len(mark), "gold", needle.label))
            offset += len(text)
        cursor = at
    chunks.append("".join(pieces.pieces[cursor:n]) + tail)
    text = "".join(chunks)
    # The context starts without the leading space of its first piece.
    if text.startswith(" "):
        text = text[1:]
        spans = [Span(s.start - 1, s.end - 1, s.kind, s.label) for s in spans]
    return text, spans


def realized_depth(spans: Sequence[Span], context: str, label: str = "") -> float | None:
    """Depth in percent of the first needle span (with `label`, if given)."""
    for span in spans:
        if span.kind == "needle" and (not label or span.label == label):
            return round(100.0 * span.start / max(1, len(context)), 2)
    return None


def needle_depths(spans: Sequence[Span], context: str, kind: str) -> list[float]:
    """Depths in percent of the context of every needle span of `kind`, in context order."""
    size = max(1, len(context))
    return [round(100.0 * s.start / size, 2) for s in spans if s.kind == kind]


def _fixed_tokens(needles: Sequence[Needle], fixed_text: str, tokenizer: Tokenizer) -> int:
    return tokenizer.count(fixed_text) + sum(tokenizer.count(" " + n.text) for n in needles)


def _words_needed(budget: Budget, fixed: int) -> int:
    """Words of haystack that surely fill the budget (and a few more)."""
    return max(64, int((budget.target - fixed) / _TOKENS_PER_WORD_LOW) + 16)


def fit_haystack(
    make_pieces: Callable[[int], Pieces],
    needles: Sequence[Needle],
    wrap: Callable[[str], str],
    fixed_text: str,
    budget: Budget,
    tokenizer: Tokenizer,
) -> tuple[Fitted, str, list[Span]]:
    """Fit a haystack with needles so that `wrap(context)` fills the budget.

    `wrap` turns the context into the whole user text (preamble + context + question);
    `fixed_text` is that text's non-haystack part, counted once for the estimate.
    Returns the fit, the context text and the spans of needles and gold values in it.
    """
    cache = piece_counts(tokenizer)
    fixed = _fixed_tokens(needles, fixed_text, tokenizer)
    pieces = make_pieces(_words_needed(budget, fixed))
    prefix = prefix_sums(cache.counts(pieces.pieces, remember=pieces.recurring))
    built: dict[tuple[int, str], tuple[str, list[Span]]] = {}

    def build(n: int, tail: str) -> str:
        built[n, tail] = insert_needles(pieces, n, needles, tail)
        return wrap(built[n, tail][0])

    def partial(n: int, room: int) -> tuple[str, int]:
        following = pieces.pieces[n]
        return longest_fitting(lambda k: following[:k], len(following), room, tokenizer)

    tail = partial if pieces.cut_last else None
    fitted = fit_to_budget(build, prefix, fixed, budget, tokenizer, tail=tail)
    context, spans = built[fitted.units, fitted.tail]
    return fitted, context, spans


def needle_draft(
    make_pieces: Callable[[int], Pieces],
    needles: Sequence[Needle],
    preamble: str,
    question: str,
    gold: tuple[str, ...],
    budget: Budget,
    tokenizer: Tokenizer,
    metadata: Mapping[str, Any],
    units: WholeUnits | None = None,
) -> Draft:
    """The draft of a needle task: preamble + fitted haystack + question.

    Its depth is that of the needle labelled "asked". With `units`, the haystack holds
    whole units as RULER fills it (`fit_whole_units`; metadata `fill_units`, the count).
    """

    def wrap(context: str) -> str:
        return preamble + context + question

    if units is None:
        fitted, context, spans = fit_haystack(
            make_pieces, needles, wrap, preamble + question, budget, tokenizer
        )
        tokens = fitted.tokens
    else:
        fixed = _fixed_tokens(needles, preamble + question, tokenizer)
        pieces = make_pieces(_words_needed(budget, fixed))
        count, tokens, context, spans = fit_whole_units(
            pieces, needles, wrap, budget, tokenizer, units
        )
        metadata = {**metadata, "fill_units": count}
    return Draft(
        preamble=preamble,
        context=context,
        question=question,
        gold=gold,
        tokens=tokens,
        depth=realized_depth(spans, context, "asked"),
        spans=tuple(spans),
        metadata=metadata,
    )


def _unit_cut(pieces: Pieces, per_unit: int) -> tuple[int, Callable[[int], tuple[int, str]]]:
    """How many units `pieces` holds, and units -> (whole pieces, tail after them).

    Prose counts words (RULER's essay units, cut at a word: the tail); other haystacks
    count groups of `per_unit` whole pieces.
    """
    if not pieces.cut_last:
        return len(pieces.pieces) // per_unit, lambda units: (units * per_unit, "")
    words = [piece[1:].split(" ") for piece in pieces.pieces]
    ends = prefix_sums([len(w) for w in words])

    def cut(units: int) -> tuple[int, str]:
        whole = bisect.bisect_right(ends, units) - 1
        rest = units - ends[whole]
        return whole, " " + " ".join(words[whole][:rest]) if rest else ""

    return ends[-1], cut


def fit_whole_units(
    pieces: Pieces,
    needles: Sequence[Needle],
    wrap: Callable[[str], str],
    budget: Budget,
    tokenizer: Tokenizer,
    units: WholeUnits,
) -> tuple[int, int, str, list[Span]]:
    """Fill with whole units as RULER does: (units, tokens, context, spans).

    With `units.start` None, the largest count (at least one step) whose text fits,
    by bisection; else `start`, stepped back by `units.step` while the text overflows.
    """
    available, cut = _unit_cut(pieces, units.per_unit)
    built: dict[int, tuple[int, str, list[Span]]] = {}

    def measure(count: int) -> int:
        if count not in built:
            whole, tail = cut(count)
            context, spans = insert_needles(pieces, whole, needles, tail)
            built[count] = (tokenizer.count(wrap(context)), context, spans)
        return built[count][0]

    count = whole_unit_count(measure, budget.target, available, units)
    if measure(count) > budget.target:
        raise UserInputError(
            f"could not build a context under {budget.length} tokens with {tokenizer.name} "
            f"in whole units of {units.step}"
        )
    return count, *built[count]


def whole_unit_count(
    measure: Callable[[int], int], target: int, available: int, units: WholeUnits
) -> int:
    """The unit count RULER's fill gives an example whose text of c units has
    `measure(c)` tokens (at most `available` units; more hold more than the target).

    With `units.start` None (the search): the largest count from one step up whose text
    fits `target`, found by bisection (one step when none fits). Else `start`, stepped
    back by `units.step` while the text overflows, never below one step.
    """
    if units.start is None:
        low, high, count = units.step, available, units.step
        while low <= high:
            middle = (low + high) // 2
            if measure(middle) <= target:
                count, low = middle, middle + 1
            else:
                high = middle - 1
        return min(count, available)
    count = units.start
    while count > units.step and (count > available or measure(count) > target):
        count -= units.step
    return min(count, available)
