"""Side by side: the two outputs of one changed example, with their word-level
differences highlighted, and both rubric breakdowns under them.

The question and gold both sides were asked sit on top; `a` / `b` open either
generation in the inspector (its full prompt, attempts and re-run keys).
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from lctui.analysis.compare import ChangedExample, SideBySide, side_by_side
from lctui.core.lengths import format_length
from lctui.core.text import escape_unprintable, plural, shorten
from lctui.tui.diff_text import changed_words, side_text
from lctui.tui.screens.base import LctuiScreen
from lctui.tui.shown import shown_line
from lctui.tui.widgets.key_footer import KeyFooter
from lctui.tui.widgets.rubric_table import RubricPanel

QUESTION_CHARS = 400


class SideBySideScreen(LctuiScreen):
    """Two columns, A and B: output with differences, then the rubric panel."""

    DEFAULT_CSS = """
    SideBySideScreen #sbs-header {
        height: auto; max-height: 6; padding: 0 1; background: $panel; color: $text;
    }
    SideBySideScreen .sbs-side { width: 1fr; height: 1fr; }
    SideBySideScreen .sbs-output, SideBySideScreen RubricPanel {
        border: round $primary 40%;
        border-title-color: $text;
        padding: 0 1;
        &:focus, &:focus-within { border: round $primary; }
    }
    SideBySideScreen .sbs-output { height: 1fr; }
    SideBySideScreen RubricPanel { height: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "inspect('a')", "Inspect A", id="side-by-side.inspect-a"),
        Binding("b", "inspect('b')", "Inspect B", id="side-by-side.inspect-b"),
        Binding("escape", "back", "Back", id="side-by-side.back"),
    ]

    def __init__(self, changed: ChangedExample, a_label: str, b_label: str) -> None:
        super().__init__()
        self.changed = changed
        self.labels = {"a": a_label, "b": b_label}
        self.view: SideBySide | None = None

    def compose(self) -> ComposeResult:
        yield Static("Loading both generations...", id="sbs-header")
        with Horizontal():
            for side in ("a", "b"):
                with Vertical(classes="sbs-side", id=f"sbs-{side}"):
                    with VerticalScroll(classes="sbs-output", id=f"sbs-output-{side}"):
                        yield Static(id=f"sbs-text-{side}")
                    yield RubricPanel(id=f"sbs-rubric-{side}")
        yield KeyFooter()

    def on_mount(self) -> None:
        for side, score in (("a", self.changed.score_a), ("b", self.changed.score_b)):
            output = self.query_one(f"#sbs-output-{side}")
            output.border_title = shown_line(
                f"{side.upper()}: {self.labels[side]}  score {score:.2f}"
            )
            self.query_one(f"#sbs-rubric-{side}").border_title = f"Rubric of {side.upper()}"
        self._load()

    def _load(self) -> None:
        self.run_query(
            side_by_side,
            self.changed,
            group="side-by-side",
            done=self._show,
            failed=lambda exc: self._failed(
                f"could not read example {self.changed.example_id}: {exc}"
            ),
        )

    def _failed(self, message: str) -> None:
        self.query_one("#sbs-header", Static).update(
            Content.styled(escape_unprintable(message), "$error")
        )

    def _show(self, view: SideBySide) -> None:
        self.view = view
        self.query_one("#sbs-header", Static).update(self._header(view))
        only_a, only_b = changed_words(view.diff)
        for side, record, only in (("a", view.a, only_a), ("b", view.b, only_b)):
            self.query_one(f"#sbs-text-{side}", Static).update(side_text(view.diff, side))
            self.query_one(
                f"#sbs-output-{side}"
            ).border_subtitle = f"{plural(only, 'word')} only here"
            self.query_one(f"#sbs-rubric-{side}", RubricPanel).show(record)
        self.query_one("#sbs-output-a").focus()

    def _header(self, view: SideBySide) -> Content:
        ch = self.changed
        question = escape_unprintable(shorten(view.a.question or "", QUESTION_CHARS, one_line=True))
        gold = escape_unprintable(", ".join(view.a.gold)) or "-"
        return Content.assemble(
            ("example ", "$text-muted"), (escape_unprintable(ch.example_id), "bold"),
            ("  task ", "$text-muted"), escape_unprintable(ch.task), ("  length ", "$text-muted"),
            format_length(ch.length), ("  metric ", "$text-muted"),
            escape_unprintable(ch.metric or "-"),
            ("\nquestion ", "$text-muted"), question or "-",
            ("\ngold ", "$text-muted"), (gold, "bold $success"),
            ("   a / b: the full prompt in the inspector", "$text-muted"),
        )  # fmt: skip

    def action_inspect(self, side: str) -> None:
        generation = self.changed.generation_a if side == "a" else self.changed.generation_b
        self.lctui.open_generation(generation)

    def action_back(self) -> None:
        self.app.pop_screen()
