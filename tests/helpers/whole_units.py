"""RULER's whole units in lctui's examples: the filler, distractor and assignment
sentences of the noise, needle and vt haystacks, and cwe's other words with all their
occurrences. RULER inserts none of them in part, so an example built of them lands up
to one unit further under its length than the budget's tolerance.
"""

from __future__ import annotations

import re
from collections import Counter

from lctui.core.protocols import Tokenizer
from lctui.core.types import Example
from lctui.tasks.corpora import NOISE_SENTENCES

_UNITS = (
    # A needle, asked or distracting: a number or a UUID tied to a word pair or a UUID.
    re.compile(r'The secret (?:number|ID) tied to "[^"\n]+" is [0-9a-f-]+\.'),
    # vt's assignments.
    re.compile(r"Set [A-Z]+ to (?:the value of [A-Z]+|\d+)\."),
    *(re.compile(re.escape(sentence)) for sentence in NOISE_SENTENCES),
)


def in_sentences(example: Example) -> bool:
    """Whether the example's context is made of whole sentences only (filler or
    distractor haystacks and vt, as RULER's; prose may end in part of one)."""
    return example.params.get("haystack") in ("noise", "needles") or "num_hops" in example.params


def sentences(context: str) -> list[str]:
    """The whole filler, needle and assignment sentences of `context`, in order."""
    found = [(m.start(), m.group()) for unit in _UNITS for m in unit.finditer(context)]
    return [text for _, text in sorted(found)]


def partial_text(context: str) -> str:
    """What is left of `context` without its whole sentences: "" when every sentence is
    whole, else the cut one (e.g. `The secret number tied to "rapid-cutover" is 266`)."""
    for unit in _UNITS:
        context = unit.sub("", context)
    return context.strip()


def cwe_entries(listing: str) -> list[str]:
    """The words of a numbered list `1. word 2. word ...`, in order."""
    return re.split(r"(?:^| )\d+\. ", listing)[1:]


def other_counts(example: Example) -> Counter[str]:
    """How often each of cwe's other (not asked) words occurs in the list."""
    counts = Counter(cwe_entries(example.context))
    return Counter({word: n for word, n in counts.items() if word not in example.gold})


def unit_allowance(example: Example, tokenizer: Tokenizer) -> int:
    """Tokens of the example's largest whole unit: how much further under its length
    than the tolerance it may land (0 where the fit cuts the last unit to fill it)."""
    if in_sentences(example):
        units = set(sentences(example.context))
        return max(tokenizer.count_batch([" " + s for s in units]), default=0)
    rare = int(example.params.get("rare_freq", 1))
    if example.task == "cwe" and rare > 1:
        last = len(cwe_entries(example.context))
        items = [f" {last}. {word}" for word in other_counts(example)]
        return rare * max(tokenizer.count_batch(items), default=0)
    return 0
