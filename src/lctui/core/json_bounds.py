"""JSON decoded with its nesting bounded first: text from outside (a model's reply, a
line of a file) never reaches the decoder's recursion deeper than MAX_DEPTH.

Python's decoder recurses once per nesting level, so 1,024 `[` raise RecursionError
(and a value nested 900 deep breaks whatever walks it later). `loads` refuses nesting
deeper than MAX_DEPTH before decoding, in linear time at C speed; no answer of any
task and no row of any dataset or harness file nests more than a few levels.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from itertools import accumulate
from typing import Any

MAX_DEPTH = 64
# A JSON string, closed or running to the end of the text. It always matches, so a
# search never fails at a quote and retries at the next one (quadratic on `"\"\"...`).
JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.DOTALL)
BRACKET_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


class TooDeep(ValueError):
    """JSON nested deeper than MAX_DEPTH: no answer, and a risk to the decoder's stack."""


def nesting_within(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether the decoder, reading `text` from its start, stays within `limit` levels.

    The running count of brackets outside strings bounds the depth the decoder
    reaches: in the valid prefix it reads, that count is the depth; past it, the
    decoder has stopped. Linear, and at C speed (no Python loop per character).
    """
    if text.count("[") + text.count("{") <= limit:
        return True
    brackets = _NOT_BRACKET.sub("", JSON_STRING.sub("", text))
    return max(accumulate(map(BRACKET_STEP.__getitem__, brackets)), default=0) <= limit


def loads(
    text: str, *, object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None
) -> Any:
    """json.loads, refusing nesting deeper than MAX_DEPTH with TooDeep (a ValueError)."""
    if not nesting_within(text):
        raise TooDeep(f"JSON nested deeper than {MAX_DEPTH} levels")
    return json.loads(text, object_pairs_hook=object_pairs_hook)


def loads_or_none(
    text: str, *, object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None
) -> Any:
    """`loads`, or None when `text` is not JSON (or nests too deep)."""
    try:
        return loads(text, object_pairs_hook=object_pairs_hook)
    except ValueError:
        return None
