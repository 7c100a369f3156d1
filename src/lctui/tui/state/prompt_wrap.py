"""Soft-wrapping of a very long text into screen lines, incrementally and without Textual.

A 128K-token prompt is ~550-700K characters, often one paragraph without a newline.
`WrapIndex` keeps the start offset of every wrapped line and extends itself on demand
(`ensure_line`, `ensure_offset`) or in bounded slices (`wrap_some`), so the first
screen can be painted before the rest of the text is wrapped and the remainder can
be finished in small steps that never block the event loop for long.

A break (`breaks`: offsets) ends the line there and puts one marker line before the
text that follows it: the inspector shows where LongBench v2 cut a context's middle
out, between two characters of the prompt, without adding text to it.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

from rich.cells import get_character_cell_size

# Slice size for background wrapping: about 1 ms of work per slice on a laptop core.
WRAP_SLICE_CHARS = 131_072


class WrapIndex:
    """Line starts of `text` soft-wrapped at `width` cells, extended lazily.

    Lines are contiguous ranges of the text (a line ends after the last space that
    fits, or hard at `width` cells when a word is longer than the line); the newline
    that ends a paragraph belongs to no line. So an offset maps to its line by
    bisection over the starts, and every character is shown exactly once.
    """

    def __init__(self, text: str, width: int, breaks: Sequence[int] = ()) -> None:
        self.text = text
        self.width = max(1, width)
        self.starts: list[int] = [0]
        self.ends: list[int] = []  # end offset (exclusive) of each finished line
        self._pos = 0  # offset where wrapping continues
        # Marker lines: empty lines (start == end == the break) that stand for no text.
        self.markers: dict[int, int] = {}  # line -> its break's offset
        self._breaks = sorted({b for b in breaks if 0 <= b < len(text)})
        self._next_break = 0  # index of the first break not yet reached
        self.complete = not text
        if not text:
            self.ends.append(0)

    # -- queries ---------------------------------------------------------------------

    @property
    def wrapped_lines(self) -> int:
        """Lines whose extent is known so far."""
        return len(self.ends)

    def estimated_lines(self) -> int:
        """Exact line count once complete; before that a close estimate (for scrollbars)."""
        if self.complete:
            return len(self.ends)
        remaining = len(self.text) - self._pos
        newlines = self.text.count("\n", self._pos)
        # Word wrapping fills lines to ~90 % on prose; the estimate only sizes the
        # scrollbar until the background pass finishes.
        breaks = len(self._breaks) - self._next_break
        return len(self.ends) + newlines + breaks + 1 + int(remaining / (self.width * 0.9))

    def line_range(self, line: int) -> tuple[int, int] | None:
        """(start, end) offsets of `line`, wrapping further if needed; None past the end."""
        self.ensure_line(line)
        if line >= len(self.ends):
            return None
        return self.starts[line], self.ends[line]

    def marker_of(self, line: int) -> int | None:
        """The break offset `line` marks, or None for a line of text."""
        return self.markers.get(line)

    def line_of(self, offset: int) -> int:
        """The line that shows the character at `offset` (after a marker at it)."""
        self.ensure_offset(offset)
        return max(0, bisect_right(self.starts, offset, 0, len(self.ends)) - 1)

    # -- wrapping --------------------------------------------------------------------

    def ensure_line(self, line: int) -> None:
        while not self.complete and len(self.ends) <= line:
            self.wrap_some(max(self.width * 64, 4096))

    def ensure_offset(self, offset: int) -> None:
        while not self.complete and self._pos <= offset:
            self.wrap_some(max(offset - self._pos + 1, self.width * 64))

    def wrap_some(self, budget_chars: int = WRAP_SLICE_CHARS) -> bool:
        """Wrap at least `budget_chars` more characters (or to the end); True when complete."""
        text, width = self.text, self.width
        size = len(text)
        pos = self._pos
        stop = min(size, pos + budget_chars)
        starts, ends, breaks = self.starts, self.ends, self._breaks
        while pos < stop:
            at = breaks[self._next_break] if self._next_break < len(breaks) else size
            if at == pos:  # the marker line, then the text from the break on
                self.markers[len(ends)] = pos
                ends.append(pos)
                starts.append(pos)
                self._next_break += 1
                continue
            newline = text.find("\n", pos, pos + width + 1)
            if newline != -1 and self._fits(pos, newline):
                end, nxt = newline, newline + 1  # the paragraph ends within this line
            else:
                end = self._break(pos, min(size, pos + width))
                nxt = end
            if at < end:  # a break inside the line ends it there
                end = nxt = at
            ends.append(end)
            if at == end < nxt:  # a break just before a newline: its marker follows
                self.markers[len(ends)] = at
                starts.append(nxt)
                ends.append(nxt)
                self._next_break += 1
            if nxt >= size and not (nxt == size and text.endswith("\n")):
                pos = size
                self.complete = True
                break
            starts.append(nxt)
            pos = nxt
            if pos == size:  # text ends with a newline: one empty last line
                ends.append(size)
                self.complete = True
                break
        self._pos = pos
        return self.complete

    def _fits(self, start: int, end: int) -> bool:
        chunk = self.text[start:end]
        return chunk.isascii() or _cells(chunk) <= self.width

    def _break(self, start: int, limit: int) -> int:
        """Where the line starting at `start` ends, given at most `limit` on ASCII text."""
        text = self.text
        if limit >= len(text) and self._fits(start, len(text)):
            return len(text)
        if not text[start:limit].isascii():
            limit = self._cell_limit(start, limit)
        if limit < len(text) and text[limit] == " ":
            return limit + 1  # the space after a full line stays at its end, unseen
        space = text.rfind(" ", start, limit)
        if space > start:
            return space + 1
        return max(limit, start + 1)

    def _cell_limit(self, start: int, limit: int) -> int:
        """The furthest offset whose text from `start` fits `width` cells (wide characters)."""
        cells = 0
        pos = start
        text = self.text
        while pos < len(text) and text[pos] != "\n":
            cells += get_character_cell_size(text[pos])
            if cells > self.width:
                break
            pos += 1
        return max(pos, start + 1)


def _cells(text: str) -> int:
    return sum(get_character_cell_size(ch) for ch in text)
