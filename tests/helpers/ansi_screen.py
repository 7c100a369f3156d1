"""A terminal's screen rebuilt from what an app writes to it: enough of VT100 for
Textual's output (cursor addressing, erase, colours ignored), to read what a page or a
pseudo-terminal would show without a terminal emulator."""

from __future__ import annotations

import re

_SEQUENCE = re.compile(
    r"\x1b\[([0-9;?]*)([A-Za-z@])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-B]|\x1b[=>78]"
)


class AnsiScreen:
    """`width` x `height` cells, written by `feed`; `lines()` is what they show."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.rows = [[" "] * width for _ in range(height)]
        self.row = self.col = 0
        self._pending = ""

    def feed(self, data: bytes | str) -> None:
        text = self._pending + (
            data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
        )
        self._pending = ""
        at = 0
        while at < len(text):
            char = text[at]
            if char == "\x1b":
                found = _SEQUENCE.match(text, at)
                if found is None:
                    if len(text) - at < 32:  # a sequence cut between two chunks
                        self._pending = text[at:]
                        return
                    at += 1
                    continue
                if found.group(2):
                    self._control(found.group(1), found.group(2))
                at = found.end()
                continue
            if char == "\r":
                self.col = 0
            elif char == "\n":
                self.row = min(self.height - 1, self.row + 1)
            elif char >= " ":
                if 0 <= self.row < self.height and 0 <= self.col < self.width:
                    self.rows[self.row][self.col] = char
                self.col += 1
            at += 1

    def _control(self, params: str, final: str) -> None:
        numbers = (
            [int(p) if p.isdigit() else 0 for p in params.lstrip("?").split(";")] if params else []
        )
        first = numbers[0] if numbers else 0
        if final in "Hf":
            self.row = max(1, first) - 1
            self.col = max(1, numbers[1] if len(numbers) > 1 else 1) - 1
        elif final == "G":
            self.col = max(1, first) - 1
        elif final == "C":
            self.col += max(1, first)
        elif final == "D":
            self.col = max(0, self.col - max(1, first))
        elif final == "A":
            self.row = max(0, self.row - max(1, first))
        elif final == "B":
            self.row = min(self.height - 1, self.row + max(1, first))
        elif final == "K":
            line = self.rows[self.row] if 0 <= self.row < self.height else None
            if line is not None:
                start, end = {0: (self.col, self.width), 1: (0, self.col + 1)}.get(
                    first, (0, self.width)
                )
                line[start:end] = [" "] * (end - start)
        elif final == "J" and first == 2:
            self.rows = [[" "] * self.width for _ in range(self.height)]

    def lines(self) -> list[str]:
        return ["".join(row).rstrip() for row in self.rows]
