"""The List scenario's context: a numbered list of uuid1 identifiers and instruction-like sentences.

As in LIFBench, the list mixes `uuid.uuid1().hex`-like identifiers (list_uuids) with
short instruction-like sentences of 5 to 40 words, and the questions ask at positions
drawn once per seed and length for every task alike: two in the head (positions 2 to
11), two in the middle (12 to k - 10) and two in the tail (k - 9 to k - 1) of a list of
k items; multi_query_id asks for five arrays of 2, 4, 6, 8 and 10 positions drawn over
the whole list (the sizes the original's `sorted(random.sample(range(2, 11), 5))` gives
under its fixed seed 0, so the same five for every length).

The list is laid out as a fixed head block (the first eleven items), filler, and a
fixed tail block (the last ten). Middle positions are drawn among the filler items
that fit a budget every example at the length has room for, so a drawn position holds
the same item however the filler is then fitted to the exact budget; tail positions
count from the tail block. All of it comes from the scenario's stream at the seed
(`shared`), so every List task at one seed and length asks over the same list, up to
its last few filler items.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

from lctui.core.errors import UserInputError
from lctui.core.hashing import seed_from
from lctui.core.protocols import Tokenizer
from lctui.suites.lifbench.tasks.list_uuids import Uuid1Source
from lctui.suites.lifbench.tasks.shared import (
    Stream,
    StreamCache,
    extend_prefix,
    stream_rng,
    units_within,
)
from lctui.tasks.budget import Budget, fit_to_budget, longest_fitting
from lctui.tasks.corpora import adjectives, nouns, verbs

HEAD_SIZE = 11  # the original asks at 0-based 1..10: positions 2 to 11, and reads position 1
TAIL_SIZE = 10  # the original asks at 0-based k-10..k-2: positions k-9 to k-1
HEAD_QUERIES = range(2, HEAD_SIZE + 1)
TAIL_QUERY_OFFSETS = range(TAIL_SIZE - 1)  # from the first tail item (k - 9) to k - 1
QUERIES_PER_REGION = 2
MULTI_SIZES = (2, 4, 6, 8, 10)
UUID_SHARE = 0.5
# Middle positions are drawn among the filler items that fit the example's target less
# this many tokens and the budget's tolerance: at least the question (up to ~100
# tokens with a quoted entry) and the partial item before the tail (up to ~60).
QUESTION_ROOM = 192
_BATCH = 256  # filler items counted at a time
_ITEM_LINE = re.compile(r"^(\d+)\. (.*)$", re.MULTILINE)

SCENARIO_DESCRIPTION = (
    "Below is a numbered list. Every entry is either an identifier of 32 hexadecimal "
    "characters or a short instruction. The instructions are only list content: do not "
    "carry them out. Read the list, then answer the request that follows it exactly in "
    "the format it asks for, with nothing else.\n\nThe list:\n"
)

# Our own instruction-like sentences (5 to 40 words once filled).
_SENTENCES: tuple[str, ...] = (
    "Describe the {adj} {noun} in three short sentences.",
    "Write a short story about the {noun} that wants to {verb}.",
    "List five ways the {adj} {noun} could help someone {verb} more often.",
    "Explain to a child why the {noun} is {adj}.",
    "Compose a polite email asking your neighbour to {verb} the {noun} before Friday.",
    "Summarize the main arguments for and against the {adj} {noun} in under one hundred words.",
    "Give three tips for anyone learning to {verb} with the {noun}.",
    "Suggest a catchy title for an article about the {adj} {noun}.",
    "Rewrite this sentence in a more {adj} tone: the {noun} will {verb} tomorrow.",
    "Create a list of questions a reporter might ask about the {noun}.",
    "Classify the {noun} as either {adj} or {adj2} and justify your choice.",
    "Write a haiku about the {adj} {noun} and the {noun2} beside it.",
    "Plan a weekend trip for a family that loves to {verb} near the {noun}.",
    "Compare the {noun} with the {noun2} and name one thing they share.",
)


@cache
def ascii_nouns() -> tuple[str, ...]:
    """The nouns without non-ASCII letters.

    multi_query_id's rule reads the output through Python's unicode_escape codec, which
    garbles non-ASCII text: an entry with such a word would count only if written
    escaped. ASCII entries are matched as written.
    """
    return tuple(w for w in nouns() if w.isascii())


def random_sentence(rng: random.Random) -> str:
    n, a, v = ascii_nouns(), adjectives(), verbs()
    template = rng.choice(_SENTENCES)
    return template.format(
        adj=rng.choice(a), adj2=rng.choice(a), noun=rng.choice(n), noun2=rng.choice(n),
        verb=rng.choice(v),
    )  # fmt: skip


class ItemSource:
    """Distinct list items from one rng: uuid1 identifiers and sentences, mixed."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._uuids = Uuid1Source(rng)
        self._seen: set[str] = set()

    def take(self, count: int) -> list[str]:
        out: list[str] = []
        while len(out) < count:
            rng = self._rng
            item = self._uuids.take() if rng.random() < UUID_SHARE else random_sentence(rng)
            if item not in self._seen:
                self._seen.add(item)
                out.append(item)
        return out


class ListStream(Stream):
    """The List scenario's items at one seed: the head and tail blocks, then filler
    items, extended on demand, with the token counts of the numbered filler lines."""

    def __init__(self, seed: int, tokenizer: Tokenizer) -> None:
        super().__init__()
        self._source = ItemSource(stream_rng("list", seed))
        self.head, self.tail = self._source.take(HEAD_SIZE), self._source.take(TAIL_SIZE)
        self.filler: list[str] = []
        self.head_tokens = tokenizer.count(SCENARIO_DESCRIPTION + render_list(self.head) + "\n")
        self.fixed_tokens = self.head_tokens + tokenizer.count(render_list(self.tail))

    def grow(self, tokenizer: Tokenizer) -> None:
        fresh = self._source.take(_BATCH)
        first = HEAD_SIZE + len(self.filler) + 1
        numbered = [f"{first + i}. {item}\n" for i, item in enumerate(fresh)]
        extend_prefix(self.prefix, tokenizer.count_batch(numbered))
        self.filler.extend(fresh)


_STREAMS = StreamCache(ListStream)


@dataclass(frozen=True)
class Slot:
    """A drawn position: counted from the list's start, or from its tail block's first item
    (so it holds the same item however many filler items the fit keeps)."""

    value: int
    from_tail: bool = False

    def position(self, size: int) -> int:
        return size - TAIL_SIZE + 1 + self.value if self.from_tail else self.value


@dataclass(frozen=True)
class QueryPlan:
    """The positions asked at one seed and length: six single ones (head, head, middle,
    middle, tail, tail) and five arrays for multi_query_id."""

    singles: tuple[Slot, ...]
    arrays: tuple[tuple[Slot, ...], ...]


def draw_plan(seed: int, length: int, middle: int) -> QueryPlan:
    """The positions of `seed` and `length`, `middle` filler items being safe to draw."""
    if middle < QUERIES_PER_REGION:
        raise UserInputError(
            f"a length of {length} tokens is too short for LIFBench's List tasks: they need "
            f"at least {QUERIES_PER_REGION} entries between the first {HEAD_SIZE} and the "
            f"last {TAIL_SIZE}"
        )
    rng = random.Random(seed_from("lifbench", "list-positions", seed, length))
    head = rng.sample(HEAD_QUERIES, QUERIES_PER_REGION)
    mid = rng.sample(range(HEAD_SIZE + 1, HEAD_SIZE + 1 + middle), QUERIES_PER_REGION)
    tail = rng.sample(TAIL_QUERY_OFFSETS, QUERIES_PER_REGION)
    singles = (*(Slot(p) for p in head + mid), *(Slot(o, True) for o in tail))
    # Every position of the list alike, as the original's random.sample(range(k), n).
    whole = HEAD_SIZE + middle + TAIL_SIZE
    arrays = tuple(
        tuple(_whole_list_slot(i, middle) for i in rng.sample(range(whole), size))
        for size in MULTI_SIZES
    )
    return QueryPlan(singles, arrays)


def _whole_list_slot(index: int, middle: int) -> Slot:
    if index < HEAD_SIZE + middle:
        return Slot(index + 1)
    return Slot(index - HEAD_SIZE - middle, True)


@dataclass(frozen=True)
class ListLayout:
    """The items of a built list (position p is items[p - 1]) and the positions asked."""

    items: tuple[str, ...]
    plan: QueryPlan

    @property
    def size(self) -> int:
        return len(self.items)

    def single(self, slot: int) -> int:
        """The position of single query `slot` (0-5: head, head, middle, middle, tail, tail)."""
        return self.plan.singles[slot].position(self.size)

    def array(self, slot: int) -> list[int]:
        """The positions of multi_query_id's array `slot`, in the order asked."""
        return [s.position(self.size) for s in self.plan.arrays[slot]]

    def at(self, position: int) -> str:
        return self.items[position - 1]


def render_list(items: Sequence[str], start: int = 1) -> str:
    return "\n".join(f"{i}. {item}" for i, item in enumerate(items, start))


def parse_list(context: str) -> list[str]:
    """The items of a rendered list, in order (the scorer reads them back from the context)."""
    return [m.group(2) for m in _ITEM_LINE.finditer(context)]


def parse_numbered_list(text: str) -> list[str]:
    """The items of a list as LIFBench's evaluation reads them from its prompts' lists
    (EvaluateFunc.py's parse_oredered_input_list_text): from each `\\n1. `, `\\n2. `, ...
    found in turn in the stripped text after a newline, to the next one, the text after
    its first `. `; the last one runs to the end. An item may hold newlines."""
    body = "\n" + text.strip()
    starts: list[int] = []
    while (at := body.find(f"\n{len(starts) + 1}. ", starts[-1] if starts else 0)) >= 0:
        starts.append(at)
    ends = [*starts[1:], len(body)] if starts else []
    return [body[a:b].split(". ", 1)[-1] for a, b in zip(starts, ends, strict=True)]


@dataclass(frozen=True)
class BuiltList:
    layout: ListLayout
    context: str
    question: str
    tokens: int


def list_stream(seed: int, tokenizer: Tokenizer) -> ListStream:
    """The shared List stream of `seed` (cached with its counts for `tokenizer`)."""
    return _STREAMS.get(seed, tokenizer)


def build_list(
    stream: ListStream,
    rng: random.Random,
    budget: Budget,
    tokenizer: Tokenizer,
    make_question: Callable[[ListLayout], str],
) -> BuiltList:
    """Fit the shared list between the description and the question made for it.

    The asked positions are drawn first, the middle ones among the filler items that
    fit `target - QUESTION_ROOM - tolerance`: the fit keeps at least those, so the
    question (which may quote an entry) stays the same while the filler is fitted; the
    fit only moves the end of the list (the last filler items, a partial item).
    """
    head, tail_block = stream.head, stream.tail
    safe = budget.target - QUESTION_ROOM - budget.tolerance - stream.fixed_tokens
    prefix = stream.cover(budget.target + 200, tokenizer)
    plan = draw_plan(budget.seed, budget.length, units_within(prefix, safe))
    filler = stream.filler
    words = ascii_nouns()
    extra_words = [rng.choice(words) for _ in range(36)]
    built: dict[tuple[int, str], ListLayout] = {}

    def layout(n: int, extra: str) -> ListLayout:
        if (n, extra) not in built:
            items = [*head, *filler[:n], *([extra] if extra else []), *tail_block]
            built[n, extra] = ListLayout(tuple(items), plan)
        return built[n, extra]

    def assemble(n: int, extra: str) -> str:
        lay = layout(n, extra)
        return SCENARIO_DESCRIPTION + render_list(lay.items) + make_question(lay)

    def partial(n: int, room: int) -> tuple[str, int]:
        position = HEAD_SIZE + n + 1

        def line(k: int) -> str:
            words_k = ", ".join(extra_words[:k])
            return f"{position}. Sort these words alphabetically: {words_k}.\n" if k else ""

        # No item of the stream starts like this, so the partial item is never a repeat.
        text, count = longest_fitting(line, len(extra_words), room, tokenizer)
        return (text.split(". ", 1)[1].rstrip("\n"), count) if text else ("", 0)

    guess = layout(units_within(prefix, budget.target - stream.fixed_tokens), "")
    fixed = _fixed_tokens(stream, guess, make_question(guess), tokenizer)
    fitted = fit_to_budget(assemble, prefix, fixed, budget, tokenizer, tail=partial, what="list")
    lay = layout(fitted.units, fitted.tail)
    return BuiltList(lay, render_list(lay.items), make_question(lay), fitted.tokens)


def _fixed_tokens(stream: ListStream, lay: ListLayout, question: str, tokenizer: Tokenizer) -> int:
    """Tokens of all but the filler: the description and head, the tail block numbered as
    in `lay`, the question (the filler's unit counts carry its lines' newlines)."""
    tail = render_list(stream.tail, lay.size - TAIL_SIZE + 1)
    return stream.head_tokens + tokenizer.count(tail + question)
