"""The live run's stream panel (tui/widgets/stream_panel.py): the question it shows for
context is cut like every other shortened text, with the one ellipsis."""

from __future__ import annotations

from lctui.core.events import CellKey
from lctui.tui.state.run_progress import StreamView
from lctui.tui.widgets.stream_panel import QUESTION_CHARS, stream_text

CELL = CellKey("m", "niah_single_1", 4096)


def test_a_long_question_is_cut_with_the_one_ellipsis() -> None:
    question = "Which of the numbers above was said twice? " * 20
    view = StreamView("g1", CELL, 0, ("7",), question, 0.0)
    shown = stream_text(view).plain.split("\n")[0]
    assert len(shown) == QUESTION_CHARS and shown.endswith("…")
    assert question.startswith(shown[:-1])
    short = StreamView("g2", CELL, 0, ("7",), "Which one?", 0.0)
    assert stream_text(short).plain.split("\n")[0] == "Which one?"
