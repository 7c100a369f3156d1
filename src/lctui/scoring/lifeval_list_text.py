"""Reading a List answer as LIFEval's rules read it: list entries found in the output, and
the output unescaped, both in time linear in the output.

The original counts every list entry in the output with `str.count` (thousands of
entries times the output's length) and decodes the output with Python's
unicode_escape codec, which raises on an escape it cannot decode (a trailing
backslash) and warns on one it does not know (`\\q`). `ListIndex.occurrences` gives
the same counts from one pass over the output; `unescape` gives the same text as
the codec, reading an undecodable escape as the literal text it is (where the
original crashes) and never warning.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Sequence

_KEEP_LITERAL = "lctui.lifeval_keep_escape"


def _keep_literal(error: UnicodeError) -> tuple[str, int]:
    """A codec error handler: the undecodable escape stays as written."""
    if not isinstance(error, UnicodeDecodeError):
        raise error
    return error.object[error.start : error.end].decode("latin-1"), error.end


codecs.register_error(_KEEP_LITERAL, _keep_literal)

# A backslash that starts an escape the codec does not know (an odd run of backslashes
# followed by any other character): the codec keeps it as written and warns; doubling
# it gives the same text without the warning. Only runs starting after a non-backslash
# are tried, so the pattern backtracks at most once per backslash.
_UNKNOWN_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*)\\([^\\'\"abfnrtv0-7xNuU\n])")


def unescape(text: str) -> str:
    """`text.encode('utf-8').decode('unicode_escape')`, never raising.

    Non-ASCII text comes out garbled (UTF-8 bytes read as Latin-1), as in the original.
    """
    if "\\" not in text:  # nothing to unescape: the codec only reads the bytes as Latin-1
        return text if text.isascii() else text.encode("utf-8").decode("latin-1")
    quiet = _UNKNOWN_ESCAPE.sub(r"\1\\\\\2", text)
    return quiet.encode("utf-8").decode("unicode_escape", _KEEP_LITERAL)


def undecodable(text: str) -> bool:
    """Whether the original's unicode_escape decoding of `text` raises (it then crashes)."""
    if "\\" not in text:
        return False
    try:
        _UNKNOWN_ESCAPE.sub(r"\1\\\\\2", text).encode("utf-8").decode("unicode_escape")
    except UnicodeDecodeError:
        return True
    return False


class ListIndex:
    """The entries of a list, indexed to find them all in an output in one pass.

    Every (non-empty) entry is at least `key` characters long, so an occurrence starting
    at p begins with output[p : p + key]; the entries are grouped by that prefix, then
    by length, and each position of the output costs one dictionary look-up (and, on a
    hit, one per distinct length of the entries sharing the prefix).
    """

    def __init__(self, items: Sequence[str]) -> None:
        if not items:
            raise ValueError("the example's context holds no numbered list to score against")
        self.items = list(items)
        self.item_set = frozenset(self.items)
        lengths = [len(item) for item in self.items]
        self.shortest, self.longest = min(lengths), max(lengths)
        self._key = min((n for n in lengths if n), default=0)
        self._empty = [i for i, item in enumerate(self.items) if not item]
        self._by_prefix: dict[str, dict[int, dict[str, list[int]]]] = {}
        for i, item in enumerate(self.items):
            if item:
                by_length = self._by_prefix.setdefault(item[: self._key], {})
                by_length.setdefault(len(item), {}).setdefault(item, []).append(i)

    def occurrences(self, text: str) -> dict[int, int]:
        """Entry index -> `text.count(entry)` (non-overlapping), for the entries that occur."""
        starts: dict[int, list[int]] = {}
        by_prefix, key = self._by_prefix, self._key
        # One comprehension over the positions (C-speed slicing and hashing), then the
        # few hits: about 0.15 s for a 1 MB output.
        hits = (
            [p for p in range(len(text) - key + 1) if text[p : p + key] in by_prefix] if key else []
        )
        for p in hits:
            for length, entries in by_prefix[text[p : p + key]].items():
                for i in entries.get(text[p : p + length], ()):
                    starts.setdefault(i, []).append(p)
        counts = {i: _non_overlapping(ps, len(self.items[i])) for i, ps in starts.items()}
        for i in self._empty:  # "".count gives one more than the length
            counts[i] = len(text) + 1
        return counts


def _non_overlapping(starts: list[int], length: int) -> int:
    """How many of the sorted `starts` str.count counts: each match skips the next `length`."""
    count, free = 0, 0
    for p in starts:
        if p >= free:
            count, free = count + 1, p + length
    return count
