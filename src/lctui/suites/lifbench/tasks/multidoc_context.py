"""The MultiDoc scenario's context: a numbered collection of short documents.

Every document has an id (22-character URL-safe base64 of a uuid4), an iD2 (a uuid4),
a date, a text of 300-500 tokens and usually a title and a source (as in LIFBench,
a quarter of the documents have no title and one in nine no source, independently);
its fields are listed in a shuffled order, one "field: value" line each, under a
"### docN" header. Texts are factbook "Background" paragraphs and passages of State
of the Union addresses. A quarter of the documents belong to one of five duplicate
groups, as in LIFBench (see DocsStream). Documents are whole units for fitting to
the token budget; a
shorter document may close the collection to fill the last gap. The collection is a
prefix of the scenario's stream at the seed (`shared`), so both MultiDoc tasks at
one seed and length read the same documents up to the last one or two.
"""

from __future__ import annotations

import base64
import itertools
import random
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace

from lctui.core.protocols import Tokenizer
from lctui.suites.lifbench.tasks.shared import Stream, StreamCache, extend_prefix, stream_rng
from lctui.tasks.budget import Budget, fit_to_budget, longest_fitting, piece_counts
from lctui.tasks.corpora import factbook_backgrounds, sotu_speeches, split_sentences

FIELDS: tuple[str, ...] = ("id", "iD2", "title", "date", "source", "text")
OPTIONAL_FIELDS: tuple[str, ...] = ("title", "source")
MAX_GROUPS = 5
# LIFBench draws its pool from four corpora, one of which (GovReport) has no titles,
# and gives a document no source with probability 1/9; a quarter of its pool (5 groups
# of 71 among 1,415 documents) is in a duplicate group.
MISSING_TITLE = 1 / 4
MISSING_SOURCE = 1 / 9
GROUP_SHARE = 1 / 4
# Texts are cut to this estimated token range (sums of sentence counts), safely inside
# the 300-500 tokens the scenario asks for. The closing document may be cut shorter; it
# starts longer than any other, so that cutting it can fill any gap a whole one leaves.
TEXT_MIN, TEXT_MAX = 330, 470
TAIL_MIN, TAIL_MAX = 485, 500
_HEADER = re.compile(r"^### doc(\d+)$", re.MULTILINE)
_BATCH = 8  # documents made and counted at a time

SCENARIO_DESCRIPTION = (
    "Below is a collection of documents, numbered doc1, doc2 and so on. Each document "
    "is a block of lines of the form 'field: value'; the fields are id, iD2, title, date, "
    "source and text, listed in no fixed order, and some documents have no title or no "
    "source. Read the documents, then follow the instruction after them exactly, in the "
    "format it asks for, with nothing else.\n\nThe documents:\n\n"
)

# Publishers of our own invention; a number makes every source unique in an example.
_OUTLETS: tuple[str, ...] = (
    "Open Atlas Bulletin", "Civic Archive Review", "Public Papers Digest",
    "Heritage Records Office", "World Notes Quarterly", "Regional Briefing Library",
    "Capitol Transcript Service", "Almanac Desk Weekly", "Federal Reading Room",
    "Continental Survey Press",
)  # fmt: skip


@dataclass(frozen=True)
class Doc:
    """One document: its fields (title and source may be missing) and their order."""

    id: str
    iD2: str
    title: str | None
    date: str
    source: str | None
    text: str
    order: tuple[str, ...]

    def value(self, field: str) -> str | None:
        value: str | None = getattr(self, field)
        return value

    def body(self) -> str:
        return "\n".join(f"{f}: {self.value(f)}" for f in self.order)


Tail = tuple[Doc, list[str]]  # a closing document and the words its text may be cut to


def render_doc(number: int, doc: Doc) -> str:
    return f"### doc{number}\n{doc.body()}"


def render_docs(docs: Sequence[Doc]) -> str:
    return "\n\n".join(render_doc(k, doc) for k, doc in enumerate(docs, 1))


def parse_docs(context: str) -> list[dict[str, str]]:
    """The fields of every rendered document, in order, each in its listed field order."""
    parts = _HEADER.split(context)
    docs: list[dict[str, str]] = []
    for body in parts[2::2]:
        fields: dict[str, str] = {}
        for line in body.strip("\n").splitlines():
            key, sep, value = line.partition(": ")
            if sep and key in FIELDS:
                fields[key] = value
        docs.append(fields)
    return docs


def dup_groups(docs: Sequence[Doc]) -> list[list[int]]:
    """Numbers (from 1) of the documents sharing a text, in document order, by first member."""
    where: dict[str, list[int]] = {}
    for number, doc in enumerate(docs, 1):
        where.setdefault(doc.text, []).append(number)
    return [numbers for numbers in where.values() if len(numbers) > 1]


def _short_title(name: str) -> str:
    """A country name without commas or glosses ("Svalbard (sometimes ...)" -> "Svalbard")."""
    return re.split(r"[,(]", name, maxsplit=1)[0].strip()


def plain_value(value: str) -> bool:
    """A field value the original's find_dup_text scorer reads back unchanged: ASCII
    (it decodes escapes in the output, which garbles other text), no quote or
    backslash (both are removed or replaced before it compares), and no "null" (it
    turns every "null" of the output into "None")."""
    return (
        bool(value)
        and value.isascii()
        and '"' not in value
        and "\\" not in value
        and "null" not in value
    )


_FACTBOOK: dict[str, tuple[tuple[str, str], ...]] = {}


def _factbook_texts(tokenizer: Tokenizer) -> tuple[tuple[str, str], ...]:
    """(title, text) of the factbook paragraphs cut to TEXT_MIN-TEXT_MAX tokens, per tokenizer."""
    if tokenizer.name not in _FACTBOOK:
        out: dict[str, tuple[str, str]] = {}
        titles: set[str] = set()
        for name, background in factbook_backgrounds():
            sentences = split_sentences(background)
            counts = piece_counts(tokenizer).counts(sentences)
            k, total = 0, 0
            while k < len(sentences) and total + counts[k] <= TEXT_MAX:
                total += counts[k]
                k += 1
            title = _short_title(name)
            text = " ".join(sentences[:k])
            fresh = title not in titles and text not in out
            if total >= TEXT_MIN and fresh and plain_value(title):
                titles.add(title)
                out[text] = (title, text)
        _FACTBOOK[tokenizer.name] = tuple(out.values())
    return _FACTBOOK[tokenizer.name]


def _uuid4(rng: random.Random) -> uuid.UUID:
    return uuid.UUID(int=rng.getrandbits(128), version=4)


class DocSource:
    """Fresh documents from one rng: distinct texts, titles and sources."""

    def __init__(self, rng: random.Random, tokenizer: Tokenizer) -> None:
        self._rng = rng
        self._tokenizer = tokenizer
        self._speeches = sotu_speeches()
        self._factbook = list(_factbook_texts(tokenizer))
        rng.shuffle(self._factbook)
        self._used: set[tuple[int, int]] = set()  # (speech, sentence) already in a text
        self._titles: set[str] = set()
        self._sources: set[str] = set()

    def _passage(self, least: int, most: int) -> tuple[str, list[str], str] | None:
        """(title, sentences, year) of an unused passage of `least` to `most` tokens."""
        rng = self._rng
        s = rng.randrange(len(self._speeches))
        stem, sentences = self._speeches[s]
        start = rng.randrange(len(sentences))
        window = list(sentences[start : start + 40])
        counts = piece_counts(self._tokenizer).counts(window)
        goal = rng.randint(least, most)
        k, total = 0, 0
        while k < len(window) and total < goal and total + counts[k] <= most:
            if (s, start + k) in self._used:
                return None
            total += counts[k]
            k += 1
        year, president, number = stem.split("-")
        suffix = "" if number == "1" else f" ({number})"
        title = f"{president} address {year}{suffix} passage {start + 1}"
        if total < least or title in self._titles:
            return None
        self._used.update((s, start + i) for i in range(k))
        return title, window[:k], year

    def _text(self) -> tuple[str, str, str]:
        """(title, text, year) of a fresh text: a factbook paragraph or an address passage."""
        rng = self._rng
        if self._factbook and rng.random() < 0.5:
            title, text = self._factbook.pop()
            return title, text, str(rng.randint(2005, 2025))
        found = None
        while found is None:
            found = self._passage(TEXT_MIN, TEXT_MAX)
        title, sentences, year = found
        return title, " ".join(sentences), year

    def _fields(self, title: str | None, text: str, year: str, complete: bool = False) -> Doc:
        rng = self._rng
        source = None
        if complete or rng.random() >= MISSING_SOURCE:
            while source is None or source in self._sources:
                source = f"{rng.choice(_OUTLETS)} #{rng.randint(100, 9999)}"
            self._sources.add(source)
        if title is not None:
            self._titles.add(title)
            if not complete and rng.random() < MISSING_TITLE:
                title = None
        order = [f for f in FIELDS if f != "title" or title is not None]
        order = [f for f in order if f != "source" or source is not None]
        rng.shuffle(order)
        date = f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        ident = ""
        while not plain_value(ident):  # about one id in a million has "null" in it
            ident = base64.urlsafe_b64encode(_uuid4(rng).bytes).decode("ascii").rstrip("=")
        return Doc(ident, str(_uuid4(rng)), title, date, source, text, tuple(order))

    def unique(self) -> Doc:
        title, text, year = self._text()
        return self._fields(title, text, year)

    def copy_of(self, original: Doc) -> Doc:
        """A document with the text of `original` and fields (and a title) of its own."""
        found = None
        while found is None:
            found = self._passage(TEXT_MIN, TEXT_MAX)  # only its title and year are used
        return self._fields(found[0], original.text, found[2])

    def tail(self) -> Tail:
        """A document whose text may be cut to any number of its words, and its words."""
        found = None
        while found is None:
            found = self._passage(TAIL_MIN, TAIL_MAX)
        title, sentences, year = found
        text = " ".join(sentences)
        return self._fields(title, text, year, complete=True), text.split(" ")


class DocsStream(Stream):
    """The MultiDoc collection at one seed and tokenizer, extended on demand.

    Duplicates follow LIFBench's pool: five groups, the first holding documents 1 and
    2 (LIFBench: 1 and 3; 2 here so that a 2K prompt, which fits two whole documents,
    still has a group); from document 3 on, each document joins a random one of the
    five groups with probability GROUP_SHARE. A group's first member has a text of
    its own, later members copy it (with other fields of their own). So any
    collection of two or more documents has a group, and a prefix holds the groups
    with two or more members in it. The two closing documents are drawn first, so no whole document
    repeats their text, title or source. Texts are cut by token counts, so the stream
    depends on the tokenizer as well as the seed.
    """

    def __init__(self, seed: int, tokenizer: Tokenizer) -> None:
        super().__init__()
        self._rng = stream_rng("multidoc", seed)
        self._source = DocSource(self._rng, tokenizer)
        self.closing = (self._source.tail(), self._source.tail())
        self.docs: list[Doc] = []
        self._originals: dict[int, Doc] = {}  # group -> its first member

    def _group(self, number: int) -> int | None:
        """The duplicate group of document `number` (from 1), None when it is in none."""
        if number in (1, 2):
            return 0
        if self._rng.random() < GROUP_SHARE:
            return self._rng.randrange(MAX_GROUPS)
        return None

    def _next(self) -> Doc:
        group = self._group(len(self.docs) + 1)
        if group is not None and group in self._originals:
            return self._source.copy_of(self._originals[group])
        doc = self._source.unique()
        if group is not None:
            self._originals[group] = doc
        return doc

    def grow(self, tokenizer: Tokenizer) -> None:
        first = len(self.docs) + 1
        for _ in range(_BATCH):
            self.docs.append(self._next())  # _next reads how many documents came before
        fresh = self.docs[first - 1 :]
        counter = piece_counts(tokenizer)
        bodies = counter.counts([doc.body() + "\n\n" for doc in fresh], remember=False)
        headers = counter.counts([f"### doc{first + k}\n" for k in range(_BATCH)])
        extend_prefix(self.prefix, [b + h for b, h in zip(bodies, headers, strict=True)])


_STREAMS = StreamCache(DocsStream)


def docs_stream(seed: int, tokenizer: Tokenizer) -> DocsStream:
    """The shared MultiDoc stream of `seed` (cached with its counts for `tokenizer`)."""
    return _STREAMS.get(seed, tokenizer)


@dataclass(frozen=True)
class BuiltDocs:
    docs: tuple[Doc, ...]
    context: str
    tokens: int


class _Closing:
    """Shortened documents that close the collection and fill the gap whole ones leave.

    A gap too small for even a one-word document (its fields take some 60 tokens) is
    filled by dropping the last whole document and closing with two shorter ones.
    """

    def __init__(self, docs: tuple[Tail, Tail], tokenizer: Tokenizer) -> None:
        self._docs = docs
        self._tokenizer = tokenizer
        self.found: dict[str, tuple[int, tuple[Doc, ...]]] = {}  # text -> (whole docs, closing)

    def _fill(self, which: int, number: int, space: int) -> tuple[Doc | None, int]:
        """Document `which` as doc`number`, cut to its longest prefix within `space` tokens."""
        doc, words = self._docs[which]
        made: dict[str, Doc] = {}

        def block(k: int) -> str:
            if not k:
                return ""
            cut = replace(doc, text=" ".join(words[:k]))
            text = "\n\n" + render_doc(number, cut)
            made[text] = cut
            return text

        text, count = longest_fitting(block, len(words), space, self._tokenizer)
        return (made[text], count) if text else (None, 0)

    def __call__(self, n: int, space: int, last_unit: int) -> tuple[str, int]:
        """(closing text, its tokens net of the n whole documents' estimate)."""
        first, count = self._fill(0, n + 1, space)
        if first is not None:
            return self._remember(n, (first,)), count
        if n == 0:
            return "", 0
        space += last_unit  # drop whole document n, close with two short ones
        first, count_a = self._fill(0, n, space // 2)
        second, count_b = self._fill(1, n + 1, space - count_a)
        if first is None or second is None:
            return "", 0
        return self._remember(n - 1, (first, second)), count_a + count_b - last_unit

    def _remember(self, whole: int, closing: tuple[Doc, ...]) -> str:
        text = "\n\n".join(render_doc(whole + k, doc) for k, doc in enumerate(closing, 1))
        self.found[text] = (whole, closing)
        return text


def build_docs(
    stream: DocsStream, budget: Budget, tokenizer: Tokenizer, question: str
) -> BuiltDocs:
    """Fit a prefix of the shared collection between the description and `question`.

    Whole documents are a prefix of the stream, the same for every example at the
    length; the exact fit only changes how many and the closing document(s).
    """
    fixed = tokenizer.count(SCENARIO_DESCRIPTION + question) + 2
    prefix = stream.cover(budget.target, tokenizer)
    increments = [b - a for a, b in itertools.pairwise(prefix)]
    closing = _Closing(stream.closing, tokenizer)
    whole = stream.docs[: len(increments)]

    def chosen(n: int, extra: str) -> tuple[Doc, ...]:
        count, closing_docs = closing.found[extra] if extra else (n, ())
        return (*whole[:count], *closing_docs)

    def assemble(n: int, extra: str) -> str:
        return SCENARIO_DESCRIPTION + render_docs(chosen(n, extra)) + question

    def partial(n: int, space: int) -> tuple[str, int]:
        return closing(n, space, increments[n - 1] if n else 0)

    fitted = fit_to_budget(
        assemble, prefix, fixed, budget, tokenizer, tail=partial, what="documents"
    )
    docs = chosen(fitted.units, fitted.tail)
    return BuiltDocs(docs, render_docs(docs), fitted.tokens)
