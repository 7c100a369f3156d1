"""JSON read from model output: bounded in depth, found in prose in linear time, never evaluated.

Model output is adversarial text. Python's decoder recurses once per nesting level,
so 1,024 `[` raise RecursionError; and trying the decoder at every `{` of a long
reply costs time quadratic in its length (each failed decode even counts the lines
before its position for its error message). `loads` refuses nesting deeper than
MAX_DEPTH before decoding (no answer of any task nests more than a few levels), and
`find_object` bounds the text it hands to the decoder to a few times the reply's
length.
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
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.DOTALL)
_TOKEN = re.compile(_STRING.pattern + r"|[\[\]{}]", re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
# How many times the text's length `find_object` may scan before it only tries
# objects that start past everything scanned so far.
_SCAN_FACTOR = 2
# What can follow the `{` of an object: a key or the closing brace.
_OBJECT_START = re.compile(r"\{\s*[\"}]")


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
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0) <= limit


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


def _closing(text: str, start: int) -> tuple[int | None, int]:
    """(end of the bracketed value opening at `start`, or None; where the scan stopped).

    Strings are skipped whole, so brackets inside them do not count. None when the
    value never closes or nests deeper than MAX_DEPTH.
    """
    depth = 0
    for token in _TOKEN.finditer(text, start):
        char = token.group()[0]
        if char == '"':
            continue
        depth += _STEP[char]
        if depth > MAX_DEPTH:
            return None, token.end()
        if depth <= 0:
            return token.end(), token.end()
    return None, len(text)


def find_object(text: str) -> dict[str, Any] | None:
    """The first `{...}` span of `text` that parses as a JSON object, in linear time.

    Spans are tried in the order of their `{`, each up to its closing brace. Once the
    scans add up to _SCAN_FACTOR times the text, only spans starting past everything
    scanned so far are tried: those scans never overlap, so the total stays linear
    even for text such as '{"k":1,' repeated, where every `{` opens a span that runs
    to the end. An object such junk hides is still found when it ends the text (a
    judge that rambles, then answers): spans ending at the last `}` are tried last.
    """
    first = _first_object(text)
    return first if first is not None else _object_ending_last(text)


def _first_object(text: str) -> dict[str, Any] | None:
    budget = _SCAN_FACTOR * len(text) + 4096
    frontier = 0  # every attempt so far stopped before it
    start = text.find("{")
    while start >= 0:
        if _OBJECT_START.match(text, start):  # not "{{" or "{x": no object starts there
            end, stopped = _closing(text, start)
            budget -= stopped - start
            frontier = max(frontier, stopped)
            if end is not None:
                found = loads_or_none(text[start:end])
                if isinstance(found, dict):
                    return found
        start = text.find("{", start + 1 if budget > 0 else max(start + 1, frontier))
    return None


def _object_ending_last(text: str) -> dict[str, Any] | None:
    """The object that ends at the text's last `}` and starts latest, within a budget."""
    end = text.rfind("}") + 1
    budget = _SCAN_FACTOR * len(text) + 4096
    start = text.rfind("{", 0, end)
    while start >= 0 and budget > 0:
        if _OBJECT_START.match(text, start):
            budget -= end - start
            found = loads_or_none(text[start:end])
            if isinstance(found, dict):
                return found
        start = text.rfind("{", 0, start)
    return None
