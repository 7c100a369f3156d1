"""Where a heatmap's rows go on screen: a heading line per group (a model, never cut),
then its rows, whose labels (task names) use the width there is.

A label that does not fit is never cut at its end, where two names of a family differ:
first the rows of a family (`lifbench_*`) get the family as a heading of their own
and show only the rest of their name; what still does not fit is abbreviated by
`core.text.abbreviate`, which keeps each name's start and end and keeps them apart.
Plain data, no Textual: `tui/widgets/heatmap.py` draws it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from lctui.core.text import abbreviate, cell_width, family_runs

GROUP_INDENT = 1  # the rows under a group heading
FAMILY_INDENT = 2  # the rows under a family heading, further in


@dataclass(frozen=True)
class HeatLine:
    """One line under the header: a group heading, a family heading or a grid row."""

    kind: Literal["group", "family", "row"]
    text: str  # the label column's text, indent included
    row: int | None = None  # the grid row of a "row" line


@dataclass(frozen=True)
class HeatLayout:
    lines: tuple[HeatLine, ...]
    label_width: int  # the label column, wide enough for every row's text
    line_of_row: tuple[int, ...]  # the line index of each grid row

    def row_at(self, line: int) -> int | None:
        """The grid row drawn on `line`, None for a heading or past the end."""
        return self.lines[line].row if 0 <= line < len(self.lines) else None


def heat_layout(rows: Sequence[tuple[str, str]], corner: str, room: int) -> HeatLayout:
    """Lines for `rows` ((group, label) pairs, rows of a group consecutive) with a
    label column of at most `room` cells; groups named "" get no heading."""
    grouped = any(group for group, _ in rows)
    lines: list[HeatLine] = []
    line_of_row: list[int] = []
    start = 0
    while start < len(rows):
        group = rows[start][0]
        end = start
        while end < len(rows) and rows[end][0] == group:
            end += 1
        if grouped:
            lines.append(HeatLine("group", group))
        labels = [label for _, label in rows[start:end]]
        indent = GROUP_INDENT if grouped else 0
        for line in _group_lines(labels, indent, room):
            if line.row is not None:
                line = HeatLine("row", line.text, start + line.row)
                line_of_row.append(len(lines))
            lines.append(line)
        start = end
    texts = [cell_width(line.text) for line in lines if line.kind != "group"]
    width = min(room, max([cell_width(corner), *texts])) if rows else 0
    return HeatLayout(tuple(lines), width, tuple(line_of_row))


def _group_lines(labels: list[str], indent: int, room: int) -> list[HeatLine]:
    """The lines of one group's rows (rows numbered within the group)."""
    if all(indent + cell_width(label) <= room for label in labels):
        return [HeatLine("row", " " * indent + label, i) for i, label in enumerate(labels)]
    # Fold the families that hold a label too long for the room.
    folded: dict[int, tuple[str, int]] = {}  # row -> (its family, the family's first row)
    for first, end, family in family_runs(labels):
        if any(indent + cell_width(label) > room for label in labels[first:end]):
            for i in range(first, end):
                folded[i] = (family, first)
    # Abbreviated among their siblings: the rows of one family, or the unfolded ones.
    siblings: dict[str | None, list[int]] = {}
    for i in range(len(labels)):
        siblings.setdefault(folded[i][0] if i in folded else None, []).append(i)
    shown: dict[int, str] = {}
    for kin, members in siblings.items():
        cut = len(kin) if kin else 0
        depth = indent + (FAMILY_INDENT if kin else 0)
        texts = abbreviate([labels[i][cut:] for i in members], room - depth)
        shown.update({i: " " * depth + text for i, text in zip(members, texts, strict=True)})
    lines: list[HeatLine] = []
    for i in range(len(labels)):
        if i in folded and folded[i][1] == i:
            lines.append(HeatLine("family", " " * indent + folded[i][0] + "*"))
        lines.append(HeatLine("row", shown[i], i))
    return lines
