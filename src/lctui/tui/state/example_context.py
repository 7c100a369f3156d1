"""What the inspector lists beside a real-data example's prompt: its passages (the gold
ones marked), the citations of its output and the documents they cite, the ICL
label map, and a multiple-choice question's options (LongBench v2).

Plain functions over a `GenerationRecord` (no Textual), read from the conventions the
HELMET tasks write: a `Span(..., "passage", label)` per listed passage (RAG: the title,
re-ranking: the id, citations and RULER QA: the document number "1", "2", ...), RAG's gold
passage (RULER QA's answer documents) as a "needle" span, re-ranking's grades in metadata
`qrels`, ICL's metadata `label_names`, LongBench v2's metadata `choices` ({"A": text, ...}).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from lctui.scoring.helmet import parse_ranking
from lctui.scoring.normalize import normalize_answer
from lctui.store.read.generations import GenerationRecord
from lctui.tui.state.example_view import example_facts

CITE_CATEGORY = "cite"
PREVIEW_CHARS = 200
# "[3]", and "[1, 2]" / "[1; 2]" (two citations in one bracket).
_CITATION = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")
_NUMBER = re.compile(r"\d+")
# The heading a passage starts with: "Document (Title: T): ", "[ID: 7] Document: ",
# "Document [2](Title: T): ", and RULER QA's "Document 3:" on a line of its own.
_HEADING = re.compile(r"^(?:\[ID: [^\]]*\] )?Document\b[^:(\n]*(?:\(Title: ([^\n]*?)\))?:[ \n]")
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)|\n")


@dataclass(frozen=True)
class ListedPassage:
    """One passage of the asked question's context, in prompt order."""

    position: int  # 1-based, in the order the prompt lists them
    label: str  # what the prompt calls it: title, id or document number
    start: int  # offsets into the example's context
    end: int
    gold: str  # "" when not gold; "gold" (RAG) or "relevance 2" (re-ranking)
    title: str  # the title its heading names ("" when none)
    preview: str  # the start of its text without its heading
    cited: int = 0  # how often the output cites it (citation tasks)
    ranked: int | None = None  # re-ranking: its place in the output's ranking (1 = first)


@dataclass(frozen=True)
class Citation:
    """One `[n]` of the output, and the passage it names (None: not in the prompt)."""

    number: str
    start: int  # offsets into the output (the whole bracket)
    end: int
    sentence: str  # the output's text the citation closes, on one line
    passage: ListedPassage | None


@dataclass(frozen=True)
class MapWording:
    """How the inspector words a LabelMap: its tab, its columns, a key with its text,
    and an output the scorer read nothing off."""

    tab: str
    columns: tuple[str, str]
    noun: str  # "a label", "an option"
    named: str  # a key with its text: "{label} ({name})"
    none_read: str


LABELS = MapWording(
    "Labels", ("label", "stands for"), "a label", "{label} ({name})", "no label read off the output"
)
# LongBench v2's scorer reads no option off an answer without its sentence: it scores 0
# and counts 0.25 in the compensated accuracy.
OPTIONS = MapWording(
    "Options",
    ("option", "text"),
    "an option",
    "({label}) {name}",
    "no option named (0.25 in the compensated accuracy)",
)


@dataclass(frozen=True)
class LabelMap:
    """ICL: which natural label each integer stands for in this example; a
    multiple-choice question (worded as `OPTIONS`): the text of each option letter."""

    names: tuple[tuple[str, str], ...]  # (label, name), in label order
    gold: str
    answered: str | None  # the label the scorer read off the output; None: none read
    wording: MapWording = LABELS
    about: str = ""  # a line on the question (LongBench v2: domain, difficulty, bucket)

    def name_of(self, label: str | None) -> str | None:
        return dict(self.names).get(label or "")

    def named(self, label: str) -> str:
        name = self.name_of(label)
        if name is None:
            return f"{label} (not {self.wording.noun} of the task)"
        return self.wording.named.format(label=label, name=name)


def listed_passages(record: GenerationRecord) -> list[ListedPassage]:
    """The passages of the example's context, in prompt order, gold ones marked."""
    context = record.context or ""
    spans = sorted((s for s in record.spans if s.kind == "passage"), key=lambda s: s.start)
    needles = [s for s in record.spans if s.kind == "needle"]
    qrels = record.metadata.get("qrels")
    grades = qrels if isinstance(qrels, Mapping) else None
    counts = _cited_counts(record) if record.category == CITE_CATEGORY else Counter()
    places = _ranking_places(record.output or "") if grades is not None else {}
    out = []
    for position, span in enumerate(spans, 1):
        if grades is not None:
            grade = grades.get(span.label)
            gold = f"relevance {grade}" if isinstance(grade, int) and grade > 0 else ""
        else:
            inside = any(n.start < span.end and span.start < n.end for n in needles)
            gold = "gold" if inside else ""
        text = context[span.start : span.end]
        heading = _HEADING.match(text)
        title = (heading.group(1) or "") if heading else ""
        body = text[heading.end() :] if heading else text
        preview = " ".join(body[:PREVIEW_CHARS].split())  # the table cuts it to its column
        cited = counts[span.label]
        out.append(
            ListedPassage(
                position,
                span.label,
                span.start,
                span.end,
                gold,
                title,
                preview,
                cited,
                places.get(span.label),
            )
        )
    return out


def _ranking_places(output: str) -> dict[str, int]:
    """Each id's place in the ranking the output gives, read as the scorer reads it."""
    ranking = parse_ranking(output)
    return {doc: place for place, doc in enumerate(ranking.ids, 1)} if ranking.found else {}


def _cited_counts(record: GenerationRecord) -> Counter[str]:
    return Counter(number for number, _, _ in _citation_marks(record.output or ""))


def _citation_marks(output: str) -> list[tuple[str, int, int]]:
    """(number, start, end) of each citation; a bracket naming two gives two."""
    return [
        (str(int(number)), m.start(), m.end())
        for m in _CITATION.finditer(output)
        for number in _NUMBER.findall(m.group(1))
    ]


def output_citations(record: GenerationRecord) -> list[Citation]:
    """The citations of a citation task's output, in order, each with its passage."""
    if record.category != CITE_CATEGORY:
        return []
    output = record.output or ""
    by_label = {p.label: p for p in listed_passages(record)}
    out = []
    for number, start, end in _citation_marks(output):
        ends = [m.end() for m in _SENTENCE_END.finditer(output, 0, start)]
        since = ends[-1] if ends else 0
        sentence = _CITATION.sub("", output[since:start]).strip()
        # On one line, whole: the citation table cuts it to the width it has.
        sentence = " ".join(sentence.split()) or "(no text before it)"
        out.append(Citation(number, start, end, sentence, by_label.get(number)))
    return out


def label_map(record: GenerationRecord) -> LabelMap | None:
    """The example's ICL label map, or None when it has none."""
    names = record.metadata.get("label_names")
    if not isinstance(names, Mapping) or not names:
        return None
    ordered = sorted(
        ((str(label), str(name)) for label, name in names.items()),
        key=lambda item: (not item[0].isdigit(), int(item[0]) if item[0].isdigit() else 0, item[0]),
    )
    parsed = next((s.extracted[0] for s in record.scores if s.extracted), None)
    answered = parsed
    if parsed is not None:
        # The scorer compares normalised text ("12." is label 12), so the map does too.
        wanted = normalize_answer(parsed)
        answered = next(
            (label for label, _ in ordered if normalize_answer(label) == wanted), parsed
        )
    return LabelMap(tuple(ordered), record.gold[0] if record.gold else "", answered)


def option_map(record: GenerationRecord) -> LabelMap | None:
    """A multiple-choice example's options (LongBench v2), the gold one and the one the
    scorer read off the output; None when the example has no options."""
    choices = record.metadata.get("choices")
    if not isinstance(choices, Mapping) or not choices:
        return None
    names = tuple(sorted((str(letter), str(text)) for letter, text in choices.items()))
    answered = next((s.extracted[0] for s in record.scores if s.extracted), None)
    gold = record.gold[0] if record.gold else ""
    return LabelMap(names, gold, answered, OPTIONS, example_facts(record))


def choice_map(record: GenerationRecord) -> LabelMap | None:
    """The example's ICL label map or its options, whichever it has (None: neither)."""
    return label_map(record) or option_map(record)
