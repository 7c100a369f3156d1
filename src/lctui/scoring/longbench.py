"""LongBench v2's answer reading: which of the four options a response names.

The original asks for one closing sentence naming the option and reads only that
sentence, with or without parentheses around the letter, after dropping Markdown
asterisks; anything else names no option (never a guess).
"""

from __future__ import annotations

import re

_WITH_PARENS = re.compile(r"The correct answer is \(([A-D])\)")
_BARE = re.compile(r"The correct answer is ([A-D])")


def extract_choice(response: str) -> str | None:
    """The option letter `response` names (A-D), or None when it names none."""
    text = response.replace("*", "")
    found = _WITH_PARENS.search(text) or _BARE.search(text)
    return found.group(1) if found else None
