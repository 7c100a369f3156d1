"""The places the inspector's prompt panel marks: what they are called, and the gold it
can find where an example marks none.

A needle task marks its needles (the asked one and the distractors: `n`/`N` walk them
all, "needle 2 of 4 · distractor ..."); LIFBench's OneDoc marks tagged sentences, not
needles; a LongBench v2 prompt marks its middle cut. Some examples mark nothing but
hold their gold in the text: cwe's and fwe's words, the entry a LIFBench list asks for,
the ids of a MultiDoc answer. `found_gold` finds those (whole words of the context),
which `g` marks; `unmarked_note` says what such an example is, so an empty frame never
reads as "no needle" on a task that has none. No Textual here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from lctui.core.text import plural
from lctui.store.read.generations import GenerationRecord

CUT = "cut"  # the kind of the marker at a middle cut

# Marks found in a long context are capped: past this, `g` marks only the first ones.
MAX_FOUND = 5000
# What a span of kind "needle" is, by the start of its label (LIFBench OneDoc's tagged
# and asked sentences, RULER QA's answer document); anything else is a needle.
_NEEDLE_NOUNS = (("tag-", "tagged sentence"), ("probe-", "asked sentence"))
_DOCUMENT_LABELS = {"answer document": "with the answer", "the question's distractor": ""}


@dataclass(frozen=True)
class MarkedSpan:
    """A span in prompt offsets (the context's spans shifted by the text before it);
    one with start == end is a marker between two characters, `label` its line's text."""

    start: int
    end: int
    kind: str
    label: str = ""


def in_prompt(record: GenerationRecord, start: int, end: int, kind: str, label: str) -> MarkedSpan:
    """A span of the example's context as offsets into the prompt."""
    shift = len(record.prompt_head or "") + len(record.preamble or "")
    return MarkedSpan(start + shift, end + shift, kind, label)


def mark_noun(span: MarkedSpan) -> str:
    """What a marked place is called in the panel: needle, tagged sentence, gold, cut ..."""
    if span.kind == CUT:
        return "cut"
    if span.label in _DOCUMENT_LABELS:
        return "document"
    if span.kind in ("needle", "distractor"):
        for prefix, noun in _NEEDLE_NOUNS:
            if span.label.startswith(prefix):
                return noun
        return "needle"
    return span.kind


def _detail(span: MarkedSpan) -> str:
    """The words after the count: which needle, which tag, the gold value."""
    if span.kind == CUT:
        return ""  # a marker's label is its whole line, shown on the line itself
    if span.label in _DOCUMENT_LABELS:
        return _DOCUMENT_LABELS[span.label] or "the question's distractor"
    if span.kind == "distractor":
        return f"distractor {span.label}".rstrip()
    if span.label.startswith("tag-"):
        return "#" + span.label.removeprefix("tag-")  # the tag's number in the document
    return span.label.removeprefix("probe-")


def target_title(targets: Sequence[MarkedSpan], index: int) -> str:
    """`needle 2 of 4 · distractor key-name`: the selected target among those of its
    kind (a OneDoc prompt counts its tagged and its asked sentences apart)."""
    chosen = targets[index]
    noun = mark_noun(chosen)
    same = [i for i, t in enumerate(targets) if mark_noun(t) == noun]
    count = f"{noun} {same.index(index) + 1} of {len(same)}"
    detail = _detail(chosen)
    return f"{count} · {detail}" if detail else count


def depth_title(record: GenerationRecord) -> str:
    """The title's `, needle at 41 %`, naming what the depth is of (LIFBench: the
    expected list entry or the asked sentence); empty without a depth."""
    if record.depth is None:
        return ""
    scenario = record.metadata.get("scenario")
    what = {"list": "expected entry", "onedoc": "asked sentence"}.get(str(scenario), "needle")
    return f", {what} at {record.depth:.0f} %"


def found_gold(record: GenerationRecord) -> tuple[MarkedSpan, ...]:
    """The gold values' whole-word occurrences in the context, as prompt spans, for an
    example that marks neither needles nor gold (cwe, fwe, a LIFBench list); () else."""
    if record.context is None or any(s.kind in ("needle", "gold") for s in record.spans):
        return ()
    values = sorted({g.strip() for g in record.gold if len(g.strip()) > 1}, key=len, reverse=True)
    if not values:
        return ()
    # Whole words only: "ball" must not light up inside "balloon".
    pattern = re.compile(
        "|".join(rf"(?<!\w){re.escape(v)}(?!\w)" for v in values), flags=re.IGNORECASE
    )
    found: list[MarkedSpan] = []
    for match in pattern.finditer(record.context):
        found.append(in_prompt(record, match.start(), match.end(), "gold", match.group()))
        if len(found) >= MAX_FOUND:
            break
    return tuple(found)


def unmarked_note(record: GenerationRecord, found: int) -> str:
    """What a prompt without needles holds, for the panel's frame and the `n` message."""
    meta = record.metadata
    scenario = meta.get("scenario")
    if scenario == "list":
        size = meta.get("list_size")
        entries = (
            f"a numbered list of {plural(size, 'entry', 'entries')}" if size else "a numbered list"
        )
        return f"{entries}; g marks the expected one" if found else entries
    if scenario == "multidoc":
        docs = meta.get("n_docs")
        what = plural(docs, "document") if docs else "documents"
        return f"{what}, no needle; g marks the answer's ids" if found else f"{what}, no needle"
    if found:
        return f"no needle; g marks where the gold values occur ({plural(found, 'place')})"
    return "no needle or gold value in the text"
