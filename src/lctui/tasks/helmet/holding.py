"""Which of a prompt's documents first holds an answer, in SubEM's normalisation
(kilt.normalize_answer), without normalising every document.

A 128K ALCE prompt lists about 900 documents; normalising each (lower case, no
punctuation, no articles, single spaces) costs as much as tokenising the prompt. A
normalised answer `w1 w2 ... wk` can only be in a normalised document whose lower-cased,
unpunctuated text holds `w1`, then whitespace or articles, then `w2`, and so on (the
normalisation only removes articles and merges whitespace between the words it keeps).
One regular expression over all documents at once finds the documents where that holds;
only those are normalised and checked exactly, in order, so the answer is the one a
check of every document would give.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from lctui.tasks.helmet.kilt import PUNCTUATION, normalize_answer

# Between two words that normalisation keeps: whitespace and the articles it removes.
_GAP = r"(?:\s|\b(?:a|an|the)\b)+"
# Joins the documents' texts: neither whitespace nor a word character (so it bounds a
# word as a text's end does), and never part of a pattern's match.
_JOIN = "\x00"


def first_holders(groups: Sequence[Sequence[str]], texts: Sequence[str]) -> list[int | None]:
    """Per group of aliases, the index of the first text whose normalised form holds
    one of the group's normalised (non-empty) aliases, or None."""
    normalised: dict[int, str] = {}

    def holds(index: int, alias: str) -> bool:
        if index not in normalised:
            normalised[index] = normalize_answer(texts[index])
        return alias in normalised[index]

    wanted = [[n for n in (normalize_answer(a) for a in group) if n] for group in groups]
    if any(_JOIN in t for t in texts) or any(_JOIN in a for g in wanted for a in g):
        # Hostile text could join two documents: check every one (the plain way).
        return [
            next((i for i in range(len(texts)) if any(holds(i, a) for a in g)), None)
            for g in wanted
        ]
    # Lower-cased one by one (a final sigma's case depends on what follows it). Both
    # steps change lengths ("İ" lowers to two characters; punctuation goes): where each
    # text starts is read from the joins.
    joined = _JOIN.join(t.lower() for t in texts).translate(PUNCTUATION)
    starts = [0]
    for _ in texts[1:]:
        starts.append(joined.index(_JOIN, starts[-1]) + len(_JOIN))
    found: list[int | None] = []
    for group in wanted:
        best: int | None = None
        for alias in group:
            pattern = re.compile(_GAP.join(re.escape(word) for word in alias.split(" ")))
            limit = len(joined) if best is None else starts[best]
            checked = -1
            for match in pattern.finditer(joined, 0, limit):
                index = bisect.bisect_right(starts, match.start()) - 1
                if index == checked:
                    continue
                checked = index
                if holds(index, alias):
                    best = index
                    break
        found.append(best)
    return found
