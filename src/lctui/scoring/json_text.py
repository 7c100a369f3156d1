"""JSON read from model output: found in prose in linear time, never evaluated.

Model output is adversarial text. Decoding is bounded in depth (core/json_bounds.py:
`loads`, `loads_or_none`, re-exported here for the scorers); trying the decoder at every
`{` of a long reply costs time quadratic in its length (each failed decode even counts
the lines before its position for its error message), so `find_object` bounds the text
it hands to the decoder to a few times the reply's length.
"""

from __future__ import annotations

import re
from typing import Any

from lctui.core.json_bounds import (
    BRACKET_STEP,
    JSON_STRING,
    MAX_DEPTH,
    TooDeep,
    loads,
    loads_or_none,
    nesting_within,
)

__all__ = ["MAX_DEPTH", "TooDeep", "find_object", "loads", "loads_or_none", "nesting_within"]

_TOKEN = re.compile(JSON_STRING.pattern + r"|[\[\]{}]", re.DOTALL)
# How many times the text's length `find_object` may scan before it only tries
# objects that start past everything scanned so far.
_SCAN_FACTOR = 2
# What can follow the `{` of an object: a key or the closing brace.
_OBJECT_START = re.compile(r"\{\s*[\"}]")


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
        depth += BRACKET_STEP[char]
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
