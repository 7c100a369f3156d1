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
from dataclasses import dataclass, field

KEEP_LITERAL = "lctui.lifeval_keep_escape"  # the codec error handler below


def _keep_literal(error: UnicodeError) -> tuple[str, int]:
    """A codec error handler: the undecodable escape stays as written."""
    if not isinstance(error, UnicodeDecodeError):
        raise error
    return error.object[error.start : error.end].decode("latin-1"), error.end


codecs.register_error(KEEP_LITERAL, _keep_literal)

# A backslash that starts an escape the codec keeps as written: one it does not know
# (it warns: `\\q`), or one it cannot decode (it raises: a trailing backslash, `\\x4g`,
# `\\u12`, `\\N` without a name). Doubling it gives the same text without the warning
# or the error. Escaped backslashes are set aside first, so every backslash left starts
# an escape and the patterns need no look-behind (one C-speed pass, a constant
# replacement).
_UNDECODABLE = r"x(?![0-9a-fA-F]{2})|u(?![0-9a-fA-F]{4})|U(?![0-9a-fA-F]{8})|N(?!\{)|\Z"
_KEPT = r"(?=[^\\'\"abfnrtv0-7xNuU\n]|" + _UNDECODABLE + ")"
_KEPT_AS_WRITTEN = re.compile(r"\\" + _KEPT)
_CRASHES = re.compile(r"\\(?=" + _UNDECODABLE + ")")
# The same, pairing the backslashes themselves (slower: a group in the replacement), for
# a text holding every private-use character, where no mark is left to set pairs aside.
_PAIRS = r"(?<!\\)((?:\\\\)*)\\"
_KEPT_AFTER_PAIRS = re.compile(_PAIRS + _KEPT)
_CRASHES_AFTER_PAIRS = re.compile(_PAIRS + "(?=" + _UNDECODABLE + ")")
_SURROGATE = re.compile("[\ud800-\udfff]")
_PRIVATE_USE = (range(0xE000, 0xF900), range(0xF0000, 0xFFFFE), range(0x100000, 0x10FFFE))


def _absent_character(text: str) -> str | None:
    """A private-use character that `text` does not hold (None if it holds all 137,468)."""
    used = set(text)
    return next((chr(c) for block in _PRIVATE_USE for c in block if chr(c) not in used), None)


def unescape(text: str) -> tuple[str, bool]:
    """(`text.encode('utf-8').decode('unicode_escape')`, whether that raises), never raising.

    An escape the codec cannot decode, where the original crashes, is read as written.
    Non-ASCII text comes out garbled (UTF-8 bytes read as Latin-1), as in the original.
    A lone surrogate (JSON's "\\ud800" reads as one), which the original cannot encode,
    is read as U+FFFD.
    """
    if _SURROGATE.search(text) is not None:  # where the original crashes
        return unescape(_SURROGATE.sub("\ufffd", text))[0], True
    if "\\" not in text:  # nothing to unescape: the codec only reads the bytes as Latin-1
        return (text if text.isascii() else text.encode("utf-8").decode("latin-1")), False
    mark = _absent_character(text)
    if mark is not None:
        lone = text.replace("\\\\", mark)  # pairs from the left, as the codec reads them
        crashes = _CRASHES.search(lone) is not None
        quiet = _KEPT_AS_WRITTEN.sub(r"\\\\", lone).replace(mark, "\\\\")
    else:
        crashes = _CRASHES_AFTER_PAIRS.search(text) is not None
        quiet = _KEPT_AFTER_PAIRS.sub(r"\1\\\\", text)
    data = quiet.encode("utf-8")
    try:
        return data.decode("unicode_escape"), crashes
    except UnicodeDecodeError:  # what the patterns cannot see: \\N{no such name}, \\U00110000
        pass
    # The codec reads such an escape as far as it can (a \\N{ runs to its brace), so the
    # text it keeps is the text as written, not the one with backslashes doubled.
    try:
        return text.encode("utf-8").decode("unicode_escape", KEEP_LITERAL), True
    except DeprecationWarning:  # warnings raised as errors, and an unknown escape: as near
        return data.decode("unicode_escape", KEEP_LITERAL), True


_FEW = 4  # entries a node of the index compares one by one


@dataclass
class _Node:
    """Entries sharing their first `depth` characters: those exactly that long, and the
    rest either split by their next `step` characters or, when few, listed."""

    depth: int
    complete: list[int] = field(default_factory=list)
    listed: list[tuple[str, int]] = field(default_factory=list)
    step: int = 0
    children: dict[str, _Node] = field(default_factory=dict)


def _grow(entries: list[tuple[str, int]], depth: int) -> _Node:
    """The index node of `entries` (all sharing `depth` characters), built without recursion."""
    root = _Node(depth)
    pending = [(root, entries)]
    while pending:
        node, group = pending.pop()
        node.complete = [i for entry, i in group if len(entry) == node.depth]
        rest = [(entry, i) for entry, i in group if len(entry) > node.depth]
        if len(rest) <= _FEW:
            node.listed = rest
            continue
        node.step = min(len(entry) for entry, _ in rest) - node.depth
        split: dict[str, list[tuple[str, int]]] = {}
        for entry, i in rest:
            split.setdefault(entry[node.depth : node.depth + node.step], []).append((entry, i))
        for chunk, members in split.items():
            child = node.children[chunk] = _Node(node.depth + node.step)
            pending.append((child, members))
    return root


class ListIndex:
    """The entries of a list, indexed to find them all in an output in one pass.

    Every (non-empty) entry is at least `key` characters long, so an occurrence starting
    at p begins with output[p : p + key]: each position of the output costs one
    dictionary look-up of that prefix. On a hit, the entries sharing it are told apart
    by their next characters, a chunk at a time (a compressed trie), so text repeating
    a prefix many entries share ("Summarize the main arguments for ...") costs a few
    look-ups per repetition, not one per entry.
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
        by_prefix: dict[str, list[tuple[str, int]]] = {}
        for i, item in enumerate(self.items):
            if item:
                by_prefix.setdefault(item[: self._key], []).append((item, i))
        self._roots = {prefix: _grow(group, self._key) for prefix, group in by_prefix.items()}

    def occurrences(self, text: str) -> dict[int, int]:
        """Entry index -> `text.count(entry)` (non-overlapping), for the entries that occur."""
        starts: dict[int, list[int]] = {}
        roots, key = self._roots, self._key
        # One comprehension over the positions (C-speed slicing and hashing), then the
        # few hits: about 0.15 s for a 1 MB output.
        hits = [p for p in range(len(text) - key + 1) if text[p : p + key] in roots] if key else []
        for p in hits:
            node: _Node | None = roots[text[p : p + key]]
            while node is not None:
                for i in node.complete:
                    starts.setdefault(i, []).append(p)
                for entry, i in node.listed:
                    if text.startswith(entry, p):
                        starts.setdefault(i, []).append(p)
                at = p + node.depth
                node = node.children.get(text[at : at + node.step]) if node.step else None
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
