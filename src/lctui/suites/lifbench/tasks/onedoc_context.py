"""The OneDoc scenario's context: one long prose document with tagged key sentences.

The document is consecutive `sotu` sentences fitted to the token budget. Between
them sit 23 tagged sentences from a distant part of the corpus, at fixed relative
depths from head to tail, so they stay spread as the document grows, and three
untagged probe sentences (head, middle, tail) that qa questions may ask about. The
document, tags and probes come from the scenario's stream at the seed (`shared`):
every OneDoc task at one seed and length reads the same document up to its end.

Tags are LIFBench's: six types named `#Topic#`, `@argument@`, `!Transition!`,
`|Summary|`, `*Evidence*` and `-Concession-` (the original's scorer matches these
names in the output, so they are kept as they are). A tagged sentence reads
`<Type-n>sentence<Type>`: n numbers the tagged sentences in document order, and a
key sentence closes with the tag of its own type. A fake one closes with another
type's tag (`<!Transition!-6>...<*Evidence*>`) and is no key sentence. Counts
follow LIFBench: Topic 4, argument 3 + 1 fake, Transition 5 + 1 fake, Evidence 4,
Concession 4 + 1 fake, and no Summary at all.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from lctui.core.protocols import Tokenizer
from lctui.core.types import Span
from lctui.suites.lifbench.tasks.shared import (
    Stream,
    StreamCache,
    extend_prefix,
    stream_rng,
    units_within,
)
from lctui.tasks.budget import Budget, fit_to_budget, longest_fitting, piece_counts
from lctui.tasks.corpora import sotu_sentences
from lctui.tasks.haystack import Needle, Pieces, insert_needles

# The key types in the order of the original's label (its scorer lists key sentences
# type by type in this order), and the absent sixth type.
KEY_TYPES: tuple[str, ...] = ("#Topic#", "@argument@", "!Transition!", "*Evidence*", "-Concession-")
ABSENT_TYPE = "|Summary|"  # named in the description, never in the document
# All six, in the order the original's scorer lists them.
ALL_TYPES: tuple[str, ...] = (*KEY_TYPES[:3], ABSENT_TYPE, *KEY_TYPES[3:])
KEY_COUNTS: dict[str, int] = {
    "#Topic#": 4, "@argument@": 3, "!Transition!": 5, "*Evidence*": 4, "-Concession-": 4
}  # fmt: skip
FAKE_TYPES: tuple[str, ...] = ("@argument@", "!Transition!", "-Concession-")
TAGGED_COUNT = sum(KEY_COUNTS.values()) + len(FAKE_TYPES)
FIRST_DEPTH, LAST_DEPTH = 3.0, 97.0  # percent of the document
MIN_WORDS, MAX_WORDS, MAX_CHARS = 8, 30, 200  # tagged sentences stay short to repeat
# Characters of tags, type names and repeat's separators, and the backslash (the
# original's extract scorer decodes escapes in the output): a tagged sentence has none,
# so quoting one never adds a type name or a separator. Non-ASCII text is left out too:
# that decoding turns it into other characters.
_FORBIDDEN = ("<", ">", "|", "#", "@", "*", "[", "]", "\\", "-12367-", "\n")
_TYPE_WORDS = {t.strip("#@!|*-").casefold() for t in ALL_TYPES}
# Untagged sentences that a qa question may ask about, at these depths (percent).
PROBE_DEPTHS: dict[str, float] = {"head": 8.0, "middle": 50.0, "tail": 92.0}
# Tags are placed from the sentences fitting `length - ALLOWANCE`: the answer reserve
# (512) and about the longest question, so every example's document reaches them all.
ALLOWANCE = 640
_BATCH = 512  # sentences counted at a time
_NAMES = "|".join(re.escape(t) for t in ALL_TYPES)
TAGGED = re.compile(rf"<({_NAMES})-(\d+)>([^<]*)<({_NAMES})>")

SCENARIO_DESCRIPTION = (
    "Below is one long document. Some of its sentences are marked with tags as key "
    f"sentences of a type; there are six types: {', '.join(ALL_TYPES[:-1])} and "
    f"{ALL_TYPES[-1]}. A marked sentence opens with a tag <Type-n> and closes with a tag "
    "<Type>, where Type is the type's name and n is the sentence's id (ids count the "
    "marked sentences from the start of the document): <#Topic#-3>...<#Topic#> marks a "
    "key sentence of the type #Topic# with id 3. When the closing tag names another type "
    "than the opening tag, the sentence is a fake: it is not a key sentence of any type. "
    "When you quote a sentence, give its text without the tags. Read the document, then "
    "follow the instruction after it exactly, in the format it asks for, with nothing "
    "else.\n\nThe document:\n"
)


@dataclass(frozen=True)
class Tagged:
    """A tagged sentence: its id, opening-tag type, text and closing-tag type."""

    id: int
    type: str
    text: str
    tail: str

    @property
    def key(self) -> bool:
        """A key sentence: the closing tag repeats the opening tag."""
        return self.tail == self.type

    def render(self) -> str:
        return f"<{self.type}-{self.id}>{self.text}<{self.tail}>"


@dataclass(frozen=True)
class DocLayout:
    """The tagged sentences in document order and the untagged probe sentences."""

    tagged: tuple[Tagged, ...]
    probes: Mapping[str, str] = field(default_factory=dict)  # where -> untagged sentence

    @property
    def keys(self) -> tuple[Tagged, ...]:
        return tuple(t for t in self.tagged if t.key)

    @property
    def fakes(self) -> tuple[Tagged, ...]:
        return tuple(t for t in self.tagged if not t.key)

    def of_type(self, kind: str) -> tuple[Tagged, ...]:
        """The key sentences of type `kind`, ordered by id."""
        return tuple(t for t in self.keys if t.type == kind)


@dataclass(frozen=True)
class BuiltDoc:
    layout: DocLayout
    context: str
    question: str
    tokens: int
    spans: tuple[Span, ...]


def _eligible(sentence: str, taken: set[str]) -> bool:
    """Short, plain ASCII sentences: a capital first, a stop last (no quotes, bullets,
    labels, tag or separator characters)."""
    words = sentence.split()
    return (
        MIN_WORDS <= len(words) <= MAX_WORDS
        and sentence.isascii()
        and sentence[0].isupper()
        and sentence[-1] in ".!?"
        and words[0].strip(",:;-").casefold() not in _TYPE_WORDS
        and len(sentence) <= MAX_CHARS
        and sentence not in taken
        and not any(mark in sentence for mark in _FORBIDDEN)
    )


def _distinct_sentences(start: int, count: int, taken: set[str]) -> list[str]:
    """`count` short sentences from `start` on that occur nowhere in `taken`, none a
    part of another (the original's scorers find quoted sentences as substrings)."""
    sentences = sotu_sentences()
    out: list[str] = []
    i = start
    while len(out) < count:
        sentence = sentences[i % len(sentences)]
        if _eligible(sentence, taken) and not any(
            sentence in other or other in sentence for other in out
        ):
            out.append(sentence)
            taken.add(sentence)
        i += 1
    return out


def _tag_types(rng: random.Random) -> list[tuple[str, str]]:
    """(opening type, closing type) of the tagged sentences in document order."""
    slots = [(t, t) for t in KEY_TYPES for _ in range(KEY_COUNTS[t])]
    for head in FAKE_TYPES:
        slots.append((head, rng.choice([t for t in KEY_TYPES if t != head])))
    rng.shuffle(slots)
    return slots


def tag_depth(rank: int) -> float:
    """Depth (percent) of the `rank`-th tagged sentence (from 0)."""
    return FIRST_DEPTH + (LAST_DEPTH - FIRST_DEPTH) * rank / (TAGGED_COUNT - 1)


class DocStream(Stream):
    """The OneDoc document at one seed: consecutive `sotu` sentences from a random start,
    extended on demand, and the tagged and probe sentences from a distant part."""

    def __init__(self, seed: int, tokenizer: Tokenizer) -> None:
        super().__init__()
        rng = stream_rng("onedoc", seed)
        sentences = sotu_sentences()
        self._start = rng.randrange(len(sentences))
        far = len(sentences) // 2  # the document never reaches the tagged sentences' part
        taken = {sentences[(self._start + i) % len(sentences)] for i in range(far)}
        texts = _distinct_sentences(self._start + far, TAGGED_COUNT + len(PROBE_DEPTHS), taken)
        tagged = tuple(
            Tagged(i, head, text, tail)
            for i, ((head, tail), text) in enumerate(zip(_tag_types(rng), texts, strict=False), 1)
        )
        self.layout = DocLayout(tagged, dict(zip(PROBE_DEPTHS, texts[TAGGED_COUNT:], strict=True)))
        self.needles = [
            Needle(t.render(), tag_depth(rank), "needle", f"tag-{t.id}")
            for rank, t in enumerate(tagged)
        ] + [
            Needle(text, PROBE_DEPTHS[at], "needle", f"probe-{at}")
            for at, text in self.layout.probes.items()
        ]
        needle_tokens = tokenizer.count_batch([" " + n.text for n in self.needles])
        self.fixed_tokens = tokenizer.count(SCENARIO_DESCRIPTION) + sum(needle_tokens)
        self.pieces: list[str] = []

    def grow(self, tokenizer: Tokenizer) -> None:
        sentences = sotu_sentences()
        first = self._start + len(self.pieces)
        fresh = [" " + sentences[(first + i) % len(sentences)] for i in range(_BATCH)]
        extend_prefix(self.prefix, piece_counts(tokenizer).counts(fresh))
        self.pieces.extend(fresh)


_STREAMS = StreamCache(DocStream)


def doc_stream(seed: int, tokenizer: Tokenizer) -> DocStream:
    """The shared OneDoc stream of `seed` (cached with its counts for `tokenizer`)."""
    return _STREAMS.get(seed, tokenizer)


def build_onedoc(
    stream: DocStream,
    budget: Budget,
    tokenizer: Tokenizer,
    make_question: Callable[[DocLayout], str],
) -> BuiltDoc:
    """Fit the shared document between the description and the question made for it.

    Tagged and probe sentences go at their depths of the sentences fitting
    `length - ALLOWANCE`, the same for every example at the length, so the exact fit
    only moves the end of the document (its last sentences and a partial one).
    """
    layout = stream.layout
    question = make_question(layout)
    estimate = budget.length - ALLOWANCE - stream.fixed_tokens
    prefix = stream.cover(max(budget.target, estimate) + 64, tokenizer)
    sentences = units_within(prefix, estimate)
    at = [min(sentences, round(n.depth / 100.0 * sentences)) for n in stream.needles]
    pieces = Pieces(stream.pieces[: len(prefix) - 1])
    built: dict[tuple[int, str], tuple[str, list[Span]]] = {}

    def build(n: int, tail: str) -> str:
        # insert_needles places a needle at round(depth% of n): give the depth of its slot.
        needles = [
            replace(nd, depth=100.0 * k / n if n else 0.0)
            for nd, k in zip(stream.needles, at, strict=True)
        ]
        built[n, tail] = insert_needles(pieces, n, needles, tail)
        return SCENARIO_DESCRIPTION + built[n, tail][0] + question

    def partial(n: int, room: int) -> tuple[str, int]:
        following = pieces.pieces[n]
        return longest_fitting(lambda k: following[:k], len(following), room, tokenizer)

    fixed = stream.fixed_tokens + tokenizer.count(question)
    fitted = fit_to_budget(build, prefix, fixed, budget, tokenizer, tail=partial, what="document")
    context, spans = built[fitted.units, fitted.tail]
    return BuiltDoc(layout, context, question, fitted.tokens, tuple(spans))


def parse_tagged(context: str) -> list[Tagged]:
    """The tagged sentences of a document, in order."""
    return [
        Tagged(int(m.group(2)), m.group(1), m.group(3).strip(), m.group(4))
        for m in TAGGED.finditer(context)
    ]
