"""Where the heatmap puts its rows (tui/state/heat_layout.py): a heading per model, task
names whole when the room allows, a family folded under its own heading when one of
its names is too long, and what is still too long abbreviated, never two rows alike."""

from __future__ import annotations

import pytest

from lctui.core.text import cell_width
from lctui.tui.state.heat_layout import heat_layout

LIFBENCH = [
    "lifbench_batch_label",
    "lifbench_blur_offset_query_element",
    "lifbench_blur_offset_query_id",
    "lifbench_offset_query_element",
    "lifbench_offset_query_id",
]
ROWS = [("smollm2-135m", "cwe"), ("smollm2-135m", "niah_single_1")] + [
    ("gold (reference)", task) for task in ["cwe", *LIFBENCH, "vt"]
]


def test_names_that_fit_stay_whole_under_a_heading_per_group() -> None:
    layout = heat_layout(ROWS, "task \\ length", 60)
    kinds = [line.kind for line in layout.lines]
    assert kinds == ["group", "row", "row", "group"] + ["row"] * 7
    assert [line.text for line in layout.lines if line.kind == "group"] == [
        "smollm2-135m",
        "gold (reference)",
    ]
    rows = [line for line in layout.lines if line.kind == "row"]
    assert [line.text.strip() for line in rows] == [label for _, label in ROWS]
    assert [line.row for line in rows] == list(range(len(ROWS)))
    assert layout.label_width == 1 + len("lifbench_blur_offset_query_element")
    assert [layout.row_at(i) for i in layout.line_of_row] == list(range(len(ROWS)))
    assert layout.row_at(0) is None and layout.row_at(99) is None  # a heading; past the end


@pytest.mark.parametrize("room", [30, 22, 16, 12])
def test_a_family_too_long_is_folded_under_its_name_and_rows_stay_distinct(room: int) -> None:
    layout = heat_layout(ROWS, "task \\ length", room)
    texts = [line.text for line in layout.lines if line.kind != "group"]
    assert max(cell_width(text) for text in texts) <= layout.label_width <= room
    families = [line.text.strip() for line in layout.lines if line.kind == "family"]
    assert families == ["lifbench_*"]
    gold = [line.text.strip() for line in layout.lines if line.row is not None][2:]
    assert len(set(gold)) == len(gold)  # every row of gold tells itself apart
    assert gold[0] == "cwe" and gold[-1] == "vt"  # outside the family: whole
    folded = gold[1:-1]
    for name, shown in zip(LIFBENCH, folded, strict=True):
        rest = name.removeprefix("lifbench_")
        if "…" in shown:  # abbreviated: the start and end of the rest kept
            head, tail = shown.split("…")
            assert rest.startswith(head) and rest.endswith(tail)
        else:
            assert shown == rest


def test_a_grid_without_groups_has_no_headings() -> None:
    layout = heat_layout([("", "recall"), ("", "rag")], "by task", 40)
    assert [line.kind for line in layout.lines] == ["row", "row"]
    assert [line.text for line in layout.lines] == ["recall", "rag"]
    assert layout.label_width == len("by task")
