"""Find answer values in model output: regex matches of a value kind, or words of a list.

Values are split into gold, spurious (not asked for) and echoed (repeated from the question);
values given more than once are counted. Everything runs in time linear in the output (up
to a log factor): a model that repeats an answer for a whole context's worth of tokens
must not stall the engine.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

from lctui.scoring.listing import listed_words

_WORD = re.compile(r"\w+")

Hit = tuple[int, int, str]  # start, end, value as reported


@dataclass(frozen=True)
class Extraction:
    """Answer values found in an output, split by whether they were asked for."""

    values: tuple[str, ...]  # distinct, in output order, gold and spurious
    found: tuple[str, ...]  # gold answers present, in gold order
    missing: tuple[str, ...]  # gold answers absent, in gold order
    spurious: tuple[str, ...]  # values that are not gold, in output order
    echoed: tuple[str, ...]  # non-gold values the instruction itself contains; not answers
    repeated: tuple[tuple[str, int], ...] = ()  # values given more than once, with counts

    @property
    def entries(self) -> int:
        """How many times the output gives a value, repeats included (echoes left out)."""
        repeats = sum(count - 1 for _, count in self.repeated)
        return len(self.values) + repeats


class _Spans:
    """Sorted spans, asked whether they overlap a range in logarithmic time.

    Spans of different golds may overlap each other, so they are merged first; the
    former check compared every match with every gold hit, quadratic on an output
    that repeats the answer.
    """

    def __init__(self, spans: Sequence[tuple[int, int]]) -> None:
        merged: list[list[int]] = []
        for start, end in sorted(spans):
            if merged and start < merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        self._starts = [start for start, _ in merged]
        self._ends = [end for _, end in merged]

    def overlaps(self, start: int, end: int) -> bool:
        """Whether some span shares a character with [start, end)."""
        # The last span starting before `end` is the only candidate: merged spans are
        # disjoint, so every earlier one also ends before it starts.
        i = bisect.bisect_left(self._starts, end) - 1
        return i >= 0 and self._ends[i] > start

    def covers(self, position: int) -> bool:
        """Whether some span holds `position`."""
        return self.overlaps(position, position + 1)


def _pattern_hits(output: str, pattern: re.Pattern[str], golds: Sequence[str]) -> list[Hit]:
    # Golds are searched as case-insensitive substrings, like string_match_all, so the
    # extraction agrees with the metric even where the pattern would miss (case, digits
    # glued to a longer number); a pattern match overlapping a gold counts as that gold.
    gold_hits = [
        (m.start(), m.end(), m.group())
        for gold in golds
        for m in re.finditer(re.escape(gold), output, re.IGNORECASE)
    ]
    taken = _Spans([(s, e) for s, e, _ in gold_hits])
    hits = list(gold_hits)
    for m in pattern.finditer(output):
        start, end = m.span()
        if start == end or taken.overlaps(start, end):
            continue
        hits.append((start, end, m.group()))
    return sorted(hits)


def _candidate_hits(output: str, candidates: Sequence[str], golds: Sequence[str]) -> list[Hit]:
    # Golds join the candidates so a candidate list that misses one cannot hide a right
    # answer; gold spelling wins so reported words compare cleanly with the gold.
    canonical: dict[str, str] = {}
    for word in (*golds, *candidates):
        if word.strip():
            canonical.setdefault(word.strip().lower(), word.strip())
    single = {key: word for key, word in canonical.items() if _WORD.fullmatch(key)}
    multi = [word for key, word in canonical.items() if key not in single]
    hits: list[Hit] = []
    if multi:
        # Longest first, so "ice cream" wins over "ice" at the same position.
        alternation = "|".join(re.escape(w) for w in sorted(multi, key=len, reverse=True))
        for m in re.finditer(rf"(?<!\w)(?:{alternation})(?!\w)", output, re.IGNORECASE):
            text = m.group()
            hits.append((m.start(), m.end(), canonical.get(text.lower(), text)))
    multi_spans = _Spans([(s, e) for s, e, _ in hits])
    # Single words are looked up token by token: the vocabulary can run to thousands.
    for m in _WORD.finditer(output):
        known = single.get(m.group().lower())
        if known is not None and not multi_spans.covers(m.start()):
            hits.append((m.start(), m.end(), known))
    return sorted(hits)


class _Instruction:
    """The question's text, asked whether it mentions a value.

    Built once per extraction: an output can hold a hundred thousand distinct values,
    and compiling a pattern for each (the former check) took seconds.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.lowered = text.lower()
        self.words = {word.lower() for word in _WORD.findall(text)}

    def mentions(self, value: str, whole_word: bool) -> bool:
        if not whole_word:
            return value.lower() in self.lowered
        if _WORD.fullmatch(value):
            # A word as a whole word: exactly one of the instruction's \w+ runs.
            return value.lower() in self.words
        found = re.search(rf"(?<!\w){re.escape(value)}(?!\w)", self.text, re.IGNORECASE)
        return found is not None


def extract_values(
    output: str,
    golds: Sequence[str],
    *,
    pattern: re.Pattern[str] | None = None,
    candidates: Sequence[str] | None = None,
    instruction: str = "",
) -> Extraction:
    """The answer values in `output`, compared case-insensitively with `golds`.

    Values are regex matches of `pattern`, or, when `candidates` is given, the candidate
    words occurring as whole words and the one-word entries of the output's lists (known
    or not); gold answers always count as values. Non-gold values that `instruction`
    contains (the question's key, say) are reported as echoed.
    """
    golds = [gold for gold in golds if gold.strip()]
    if candidates is not None:
        hits = _candidate_hits(output, candidates, golds)
        # A listed word outside the vocabulary (invented, or from the prompt's solved
        # example) is still a value the output gives; known words are hits already.
        known = {word.strip().lower() for word in (*golds, *candidates)}
        hits = sorted(hits + [h for h in listed_words(output) if h[2].lower() not in known])
    elif pattern is not None:
        hits = _pattern_hits(output, pattern, golds)
    else:
        raise ValueError("extract_values needs a value pattern or a list of candidate words")
    gold_keys = {gold.lower() for gold in golds}
    question = _Instruction(instruction)
    # Repeating the key or a word of the question is not an answer; not counting it
    # keeps "The value of <key> is <value>" from looking like a spurious value.
    seen: set[str] = set()
    values: list[str] = []
    echoed: list[str] = []
    counts: dict[str, int] = {}
    places: set[tuple[int, str]] = set()
    for start, _, value in hits:
        key = value.lower()
        if (start, key) not in places:  # a gold listed twice in `golds` is one hit
            places.add((start, key))
            counts[key] = counts.get(key, 0) + 1
        if key in seen:
            continue
        seen.add(key)
        if key not in gold_keys and question.mentions(value, candidates is not None):
            echoed.append(value)
        else:
            values.append(value)
    unique_golds: dict[str, str] = {}
    for gold in golds:
        unique_golds.setdefault(gold.lower(), gold)
    return Extraction(
        values=tuple(values),
        found=tuple(gold for key, gold in unique_golds.items() if key in seen),
        missing=tuple(gold for key, gold in unique_golds.items() if key not in seen),
        spurious=tuple(v for v in values if v.lower() not in gold_keys),
        echoed=tuple(echoed),
        repeated=tuple((v, counts[v.lower()]) for v in values if counts[v.lower()] > 1),
    )
