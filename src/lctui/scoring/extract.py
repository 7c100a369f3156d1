"""Find answer values in model output: regex matches of a value kind, or words of a list.

Values are split into gold, spurious (not asked for) and echoed (repeated from the question);
values given more than once are counted.
"""

from __future__ import annotations

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


def _pattern_hits(output: str, pattern: re.Pattern[str], golds: Sequence[str]) -> list[Hit]:
    # Golds are searched as case-insensitive substrings, like string_match_all, so the
    # extraction agrees with the metric even where the pattern would miss (case, digits
    # glued to a longer number); a pattern match overlapping a gold counts as that gold.
    gold_hits = [
        (m.start(), m.end(), m.group())
        for gold in golds
        for m in re.finditer(re.escape(gold), output, re.IGNORECASE)
    ]
    hits = list(gold_hits)
    for m in pattern.finditer(output):
        start, end = m.span()
        if start == end or any(start < e and s < end for s, e, _ in gold_hits):
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
    multi_spans = [(s, e) for s, e, _ in hits]
    # Single words are looked up token by token: the vocabulary can run to thousands.
    for m in _WORD.finditer(output):
        known = single.get(m.group().lower())
        if known is not None and not any(s <= m.start() < e for s, e in multi_spans):
            hits.append((m.start(), m.end(), known))
    return sorted(hits)


def _mentions(instruction: str, value: str, whole_word: bool) -> bool:
    if value.lower() not in instruction.lower():  # most values: no regex to compile
        return False
    if whole_word:
        found = re.search(rf"(?<!\w){re.escape(value)}(?!\w)", instruction, re.IGNORECASE)
        return found is not None
    return value.lower() in instruction.lower()


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
        if key not in gold_keys and _mentions(instruction, value, candidates is not None):
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
