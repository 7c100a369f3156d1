"""LIFEval's rubric programs for the OneDoc scenario of LIFBench (repeat, extract, qa).

The key and decoy sentences come from the example's metadata; every other sentence
is read back from the document, so a quoted sentence is placed exactly or within a
small edit distance (a near miss earns part of `ori`). Output is parsed defensively
(JSON first, then a bracketed list, then lines) and never evaluated.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from lctui.core.types import Example, RubricPoint
from lctui.scoring.lifeval_points import PointSpec
from lctui.scoring.lifeval_text import (
    MAX_NEAR,
    NUMBERING,
    clean_output,
    edit_distance,
    find_tagged,
    in_spec_order,
    json_list,
    near_limit,
    norm,
    point,
    short,
    untag,
    unwrap,
)
from lctui.scoring.rubric import list_values, share
from lctui.tasks.lifbench.onedoc_context import ALL_TYPES, Tagged, document_sentences

_TYPE_BY_FOLD = {t.casefold(): t for t in ALL_TYPES}
# A type label (maybe numbered, maybe in punctuation) and the first separator after
# it; the quote is the rest of the line. Each part is unambiguous, so a long line
# that does not match fails in linear time (the former single pattern's
# `[\W_]*?\s*` and `\s*(.+)$` backtracked quadratically on runs of spaces).
_LABEL_HEAD = re.compile(r"[\W_]*([A-Za-z]+)(?:-\d+)?[\W_]*?(?:\||::|->|=>|:|=|—|–|-|\t)")
_WORD = re.compile(r"[A-Za-z]+")
_POLARITY = {"yes": True, "true": True, "no": False, "false": False}


@dataclass(frozen=True)
class Placed:
    """Where a quoted sentence sits: a tagged sentence, an untagged one, or nowhere."""

    tagged: Tagged | None = None
    found: bool = False  # it reproduces some sentence of the document
    ori: float = 0.0  # 1 exact, partial for a near miss, 0 when not found


@lru_cache(maxsize=8)
def _plain_sentences(context: str) -> dict[str, None]:
    """A document's sentences, normalised, in order: read once per document."""
    return dict.fromkeys(norm(s) for s in document_sentences(context))


@lru_cache(maxsize=8)
def _by_length(context: str) -> dict[int, list[tuple[int, str]]]:
    """The document's sentences by length, each with its position in the document.

    A near miss is at most MAX_NEAR edits away, so it differs in length by at most
    that much: a quote is compared with the sentences of about its length only (a few
    dozen of the thousands at 120K) instead of every one.
    """
    buckets: dict[int, list[tuple[int, str]]] = {}
    for position, sentence in enumerate(_plain_sentences(context)):
        buckets.setdefault(len(sentence), []).append((position, sentence))
    return buckets


class DocIndex:
    """The key, decoy and untagged sentences of an example, for placing quotes."""

    def __init__(self, example: Example) -> None:
        meta = example.metadata
        self.tagged = [
            Tagged(int(t["id"]), str(t["type"]), str(t["text"]), str(t["tail"]))
            for t in [*meta["keys"], *meta["fakes"]]
        ]
        self._exact = {norm(t.text): t for t in self.tagged}
        self._context = example.context

    @property
    def plain(self) -> dict[str, None]:
        """The document's sentences, normalised, in order (read back on demand)."""
        return _plain_sentences(self._context)

    def _similar_length(self, text: str) -> list[tuple[str, None]]:
        """Untagged sentences that could be a near miss of `text`, in document order."""
        buckets = _by_length(self._context)
        near = len(text) - MAX_NEAR, len(text) + MAX_NEAR
        found = sorted(p for n in range(near[0], near[1] + 1) for p in buckets.get(n, ()))
        return [(sentence, None) for _, sentence in found]

    def place(self, quote: str) -> Placed:
        text = norm(untag(quote))
        if not text:
            return Placed()
        if text in self._exact:
            return Placed(self._exact[text], True, 1.0)
        if text in self.plain:
            return Placed(None, True, 1.0)
        for pool in ([(norm(t.text), t) for t in self.tagged], self._similar_length(text)):
            best: tuple[int, int, Tagged | None] | None = None
            for sentence, tagged in pool:
                limit = near_limit(sentence)
                distance = edit_distance(text, sentence, limit)
                if distance <= limit and (best is None or distance < best[0]):
                    best = (distance, limit, tagged)
            if best is not None:
                return Placed(best[2], True, 1.0 - best[0] / (best[1] + 1))
        return Placed()


def describe(placed: Placed) -> str:
    """What a placed quote is, for explanations."""
    t = placed.tagged
    if t is None:
        return "an untagged sentence" if placed.found else "no sentence of the document"
    if not t.key:
        return f"decoy {t.id} (its closing tag </{t.tail}-{t.id}> does not match <{t.type}-{t.id}>)"
    return f"key sentence {t.id} ({t.type})"


def _ori_point(spec: PointSpec, placed: Sequence[Placed], what: str) -> RubricPoint:
    if not placed:
        return point(spec, 0.0, f"no {what}s to check")
    misses = [f"{what} {i}" for i, p in enumerate(placed, 1) if p.ori < 1.0]
    earned = sum(p.ori for p in placed) / len(placed)
    why = f"{len(placed) - len(misses)} of {len(placed)} {what}s reproduce a document sentence"
    if misses:
        why += f" exactly; not exact: {list_values(misses, 3)}"
    return point(spec, earned, why)


@dataclass(frozen=True)
class Entry:
    """One answered item of repeat: the type label given (if any), the quote, its shape."""

    label: str | None
    text: str
    shaped: bool  # exactly "Type<sep>sentence"


def _quote_after(rest: str) -> str | None:
    """The quote after a label's separator: the rest of the line, blanks before it
    dropped; None when there is none or it runs over several lines."""
    line = rest[:-1] if rest.endswith("\n") else rest
    quote = line.lstrip() or line[-1:]
    return quote if quote and "\n" not in quote else None


def _labelled(line: str) -> Entry:
    """A leniently read item: an optional type label (or tags) around a quote."""
    body = unwrap(NUMBERING.sub("", line).strip())
    tag = find_tagged(body)
    if tag:
        before = _WORD.findall(body[: tag.start])
        label = before[0] if before else tag.type
        return Entry(_TYPE_BY_FOLD.get(label.casefold()), tag.inner.strip(), False)
    m = _LABEL_HEAD.match(body)
    quote = _quote_after(body[m.end() :]) if m else None
    if m and quote is not None and m.group(1).casefold() in _TYPE_BY_FOLD:
        return Entry(_TYPE_BY_FOLD[m.group(1).casefold()], unwrap(quote.strip()), False)
    return Entry(None, body, False)


def _json_entry(value: Any) -> Entry:
    if isinstance(value, str):
        return _labelled(value)
    if isinstance(value, list) and len(value) == 2:
        label, text = (str(v) for v in value)
        return Entry(_TYPE_BY_FOLD.get(label.strip().casefold()), text.strip(), False)
    if isinstance(value, dict):
        strings = {str(k).casefold(): str(v) for k, v in value.items()}
        kind = next((v for k, v in strings.items() if "type" in k), "")
        quote = next((v for k, v in strings.items() if "type" not in k), "")
        return Entry(_TYPE_BY_FOLD.get(kind.strip().casefold()), quote.strip(), False)
    return Entry(None, json.dumps(value), False)


def repeat_entries(output: str, sep: str) -> list[Entry]:
    """The items of a repeat answer: JSON first, then a bracketed list, then lines."""
    text = clean_output(output)
    if not text:
        return []
    values, _ = json_list(text)
    if values:
        return [_json_entry(v) for v in values]
    shape = re.compile(rf"^({'|'.join(ALL_TYPES)})\s*{re.escape(sep.strip())}\s*(\S.*)$")
    entries = []
    for line in (raw.strip() for raw in text.splitlines()):
        m = shape.match(line)
        if m and find_tagged(line) is None:
            entries.append(Entry(m.group(1), unwrap(m.group(2).strip()), True))
        elif line:
            entries.append(_separated(line, sep.strip()) or _labelled(line))
    return entries


def _separated(line: str, sep: str) -> Entry | None:
    """A line with the asked separator but other words before it ("- Item 1: Topic | ..."):
    the last type name before the separator labels the text after it (not in shape)."""
    left, found, right = line.partition(sep)
    if not found or not right.strip():
        return None
    types = [
        _TYPE_BY_FOLD[w.casefold()] for w in _WORD.findall(left) if w.casefold() in _TYPE_BY_FOLD
    ]
    return Entry(types[-1], unwrap(right.strip()), False) if types else None


def _repeat_points(
    meta: Mapping[str, Any], specs: Mapping[str, PointSpec], entries: Sequence[Entry],
    placed: Sequence[Placed],
) -> list[RubricPoint]:  # fmt: skip
    count, sep, end = int(meta["count"]), str(meta["separator"]), str(meta["end"])
    wanted = {int(i) for i in meta["expected_ids"]}
    given = len(entries)
    shaped = [i for i, e in enumerate(entries, 1) if not e.shaped]
    format_why = f"{given - len(shaped)} of {given} lines read 'Type{sep}sentence'"
    if shaped:
        format_why += f"; not: line {list_values([str(i) for i in shaped], 3)}"
    hits, misses = 0, []
    for i, p in enumerate(placed, 1):
        if p.tagged is not None and p.tagged.key and p.tagged.id in wanted:
            hits += 1
        elif p.tagged is not None and p.tagged.key:
            misses.append(f"line {i} is key sentence {p.tagged.id}, not among the {end} {count}")
        else:
            misses.append(f"line {i} is {describe(p)}")
    on_keys = [
        (e, p.tagged) for e, p in zip(entries, placed, strict=True) if p.tagged and p.tagged.key
    ]
    right = [e for e, t in on_keys if e.label == t.type]
    wrong = [f"{e.label or 'no type'} for {t.type} {t.id}" for e, t in on_keys if e.label != t.type]
    if on_keys:
        correct_why = f"{len(right)} of {len(on_keys)} key sentences carry their type"
        correct_why += f"; wrong: {list_values(wrong, 3)}" if wrong else ""
    else:
        correct_why = "no line gives a key sentence whose type could be checked"
    points = {
        "format": point(specs["format"], share(given - len(shaped), given), format_why),
        "ori": _ori_point(specs["ori"], placed, "line"),
        "hit": point(
            specs["hit"],
            share(hits, given),
            f"{hits} of {given} lines are among the {end} {count} key sentences"
            + (f"; {'; '.join(misses[:3])}" if misses else ""),
        ),
        "num": point(
            specs["num"],
            max(0.0, 1.0 - abs(given - count) / count),
            f"expected {count} lines, got {given}",
        ),
        "correct": point(specs["correct"], share(len(right), len(on_keys)), correct_why),
    }
    return in_spec_order(specs, points)


@dataclass(frozen=True)
class Extracted:
    """An extract answer: quoted sentences, whether it says there are none, its format."""

    items: list[str]
    none: bool
    format: float
    format_why: str


def _is_none_word(text: str, word: str) -> bool:
    return unwrap(text.strip()).strip().rstrip(".").casefold() == word.casefold()


def extract_answer(output: str, fmt: str, none_word: str) -> Extracted:
    """Parse an extract answer: the none word, then JSON, then a bracketed list, then lines."""
    text = clean_output(output)
    if text == none_word:
        return Extracted([], True, 1.0, f"the word {none_word}, as asked")
    if _is_none_word(text, none_word):
        return Extracted([], True, 0.5, f"{short(text)!r} instead of the word {none_word}")
    values, whole = json_list(text)
    if values is not None:
        items = [v if isinstance(v, str) else json.dumps(v) for v in values]
        if not items or (len(items) == 1 and _is_none_word(items[0], none_word)):
            return Extracted([], True, 0.5, f"a JSON list instead of the word {none_word}")
        if fmt != "json":
            return Extracted(items, False, 0.0, "a JSON list, not one sentence per line")
        earned = 1.0 if whole else 0.5
        strings = all(isinstance(v, str) for v in values)
        why = "a JSON list of strings" if whole else "a JSON list with other text around it"
        return Extracted(items, False, earned if strings else earned / 2, why)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    items = [_labelled(line).text for line in lines]
    if fmt == "json":
        return Extracted(items, False, 0.0, "not a JSON list")
    bare = [i for i, (line, item) in enumerate(zip(lines, items, strict=True), 1) if line != item]
    why = f"{len(lines) - len(bare)} of {len(lines)} lines hold a bare sentence"
    why += f"; not: line {list_values([str(i) for i in bare], 3)}" if bare else ""
    return Extracted(items, False, share(len(lines) - len(bare), len(lines)), why)


def _longest_increasing(values: Sequence[int]) -> int:
    best: list[int] = []
    for v in values:
        at = next((i for i, b in enumerate(best) if b >= v), len(best))
        best[at : at + 1] = [v]
    return len(best)


def _extract_points(
    meta: Mapping[str, Any], specs: Mapping[str, PointSpec], answer: Extracted,
    placed: Sequence[Placed],
) -> list[RubricPoint]:  # fmt: skip
    expected = [int(i) for i in meta["expected_ids"]]
    types = " and ".join(meta["types"])
    fmt_point = point(specs["format"], answer.format, answer.format_why)
    if answer.none or not expected:
        right = answer.none and not expected
        if right:
            why = f"there is no {types} key sentence, and the answer says so"
        elif answer.none:
            why = f"answered {meta['none_word']} but {len(expected)} key sentences are of {types}"
        else:
            why = f"there is no {types} key sentence; expected {meta['none_word']}, got "
            why += f"{len(answer.items)} sentence(s)"
        points = {
            "format": fmt_point,
            "correct": point(specs["correct"], float(right), why),
            "order": point(specs["order"], float(right), why),
            "ori": point(specs["ori"], float(right), "the none answer, rightly")
            if answer.none
            else _ori_point(specs["ori"], placed, "item"),
        }
        return in_spec_order(specs, points)
    ids = [p.tagged.id for p in placed if p.tagged is not None and p.tagged.id in expected]
    first = list(dict.fromkeys(ids))
    missing = [str(i) for i in expected if i not in first]
    extra = [
        f"item {i} is {describe(p)}"
        for i, p in enumerate(placed, 1)
        if p.tagged is None or p.tagged.id not in expected
    ]
    correct_why = f"{len(first)} of {len(expected)} {types} key sentences given"
    correct_why += f"; missing ids {list_values(missing, 5)}" if missing else ""
    correct_why += f"; extra: {'; '.join(extra[:3])}" if extra else ""
    in_order = _longest_increasing(first)
    points = {
        "format": fmt_point,
        "correct": point(
            specs["correct"], share(len(first), max(len(expected), len(placed))), correct_why
        ),
        "order": point(
            specs["order"],
            share(in_order, len(first)),
            f"{in_order} of {len(first)} found sentences in id order (given: "
            f"{', '.join(map(str, first)) or 'none'})",
        ),
        "ori": _ori_point(specs["ori"], placed, "item"),
    }
    return in_spec_order(specs, points)


def qa_answer(output: str, options: Sequence[str]) -> tuple[str, bool | None, float, str]:
    """(answer word, its polarity, format earned, why); polarity None: no answer found."""
    yes, no = options
    text = clean_output(output)
    bare = unwrap(text.rstrip(".!")).strip().rstrip(".!")
    if bare in (yes, no):
        return bare, bare == yes, 1.0, f"the single word {bare}, as asked"
    folds = {yes.casefold(): True, no.casefold(): False}
    words = _WORD.findall(text)
    for word in words:
        if word.casefold() in folds:
            why = f"{word!r} with other text or another spelling, not the single word"
            return word, folds[word.casefold()], 0.5, why
    for word in words:
        if word.casefold() in _POLARITY:
            why = f"{word!r} is not one of the options {yes}/{no}"
            return word, _POLARITY[word.casefold()], 0.0, why
    return "", None, 0.0, f"no option word ({yes}/{no}) found"


def _qa_points(
    meta: Mapping[str, Any], specs: Mapping[str, PointSpec], word: str, polarity: bool | None,
    format_earned: float, format_why: str,
) -> list[RubricPoint]:  # fmt: skip
    yes, no = (str(w) for w in meta["options"])
    is_key = meta["ask"] == "key"
    kind = {"key": "a key sentence", "fake": "a decoy (its closing tag does not match)"}.get(
        str(meta["ask"]), "an untagged sentence"
    )
    expected = yes if is_key else no
    right = polarity is not None and polarity == is_key
    why = f"the sentence is {kind}, so the answer is {expected}; got {word or 'nothing'}"
    points = {
        "correct": point(specs["correct"], float(right), why),
        "format": point(specs["format"], format_earned, format_why),
    }
    return in_spec_order(specs, points)


def onedoc_points(
    example: Example, output: str, specs: Mapping[str, PointSpec]
) -> tuple[tuple[str, ...], list[RubricPoint]]:
    """(extracted answers, rubric points) of one output of a OneDoc task."""
    meta = example.metadata
    task = meta["lifeval_task"]
    if task == "qa":
        word, polarity, earned, why = qa_answer(output, [str(w) for w in meta["options"]])
        extracted = (word,) if polarity is not None else ()
        return extracted, _qa_points(meta, specs, word, polarity, earned, why)
    index = DocIndex(example)
    if task == "repeat":
        entries = repeat_entries(output, str(meta["separator"]))
        placed = [index.place(e.text) for e in entries]
        points = _repeat_points(meta, specs, entries, placed)
        known = [e for e, p in zip(entries, placed, strict=True) if e.label or p.found]
        return tuple(f"{e.label or '?'}: {e.text}" for e in known), points
    answer = extract_answer(output, str(meta["format"]), str(meta["none_word"]))
    placed = [index.place(item) for item in answer.items]
    points = _extract_points(meta, specs, answer, placed)
    if answer.none:
        return (str(meta["none_word"]),), points
    found = [item for item, p in zip(answer.items, placed, strict=True) if p.found]
    return tuple(found), points
