"""The inspector's ICL label map: which natural label each integer stands for in this
example (HELMET maps labels to shuffled integers per example), with the gold label and
the label read off the output named and marked in the list; and in the same form a
multiple-choice question's options (LongBench v2): the gold one and the one the answer
names marked, or "no option named" when it names none."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from lctui.store.read.generations import GenerationRecord
from lctui.tui.state.example_context import LabelMap, choice_map
from lctui.tui.widgets.fitted_table import FittedTable


class LabelTable(FittedTable):
    """One row per label (option): the key, its name (text), whether it is the gold / the
    answer."""

    DEFAULT_CSS = """
    LabelTable { height: auto; max-height: 100%; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, show_cursor=False)
        self.labels: LabelMap | None = None

    def show_labels(self, labels: LabelMap) -> None:
        self.labels = labels
        self._populate()

    def _populate(self) -> None:
        self._width = self.size.width
        self.clear(columns=True)
        labels = self.labels
        if labels is None:
            return
        colours = self.app.theme_variables
        gold_colour = colours.get("gold", colours.get("success", "green"))
        key_heading, name_heading = labels.wording.columns
        label_width = max([len(key_heading), *(len(label) for label, _ in labels.names)])
        role_width = len("gold, answer")
        fixed = label_width + role_width + 3 * 2 + 1
        name_width = max(8, (self._width or 80) - fixed)
        self.add_column(key_heading, width=label_width, key="label")
        self.add_column(name_heading, width=name_width, key="name")
        self.add_column("", width=role_width, key="role")
        for label, name in labels.names:
            marks = (("gold", label == labels.gold), ("answer", labels.answered == label))
            roles = [role for role, on in marks if on]
            style = f"bold {gold_colour}" if "gold" in roles else ("bold" if roles else "")
            self.add_row(
                Text(label, style=style, justify="right"),
                Text(name, style=style),
                Text(", ".join(roles), style=style),
                height=None,
            )


class LabelMapPanel(VerticalScroll):
    """The label map of an ICL example: a summary line and the table."""

    DEFAULT_CSS = """
    LabelMapPanel #label-summary { margin-bottom: 1; }
    """

    def compose(self) -> ComposeResult:
        yield Static(id="label-summary")
        yield LabelTable(id="labels")

    def show(self, record: GenerationRecord) -> None:
        labels = choice_map(record)
        if labels is None:
            return
        self.border_title = f"{labels.wording.tab} ({len(labels.names)})"
        gold_colour = self.app.theme_variables.get("gold", "$success")
        if labels.answered is None:
            answer = Content.styled(labels.wording.none_read, "italic $text-muted")
        else:
            right = labels.answered == labels.gold
            style = "bold $success" if right else "bold $error"
            answer = Content.styled(labels.named(labels.answered), style)
        about = Content.styled(labels.about + "\n", "$text-muted") if labels.about else ""
        self.query_one("#label-summary", Static).update(
            Content.assemble(
                about,
                ("gold ", "$text-muted"),
                (labels.named(labels.gold), f"bold {gold_colour}"),
                ("\nanswer ", "$text-muted"),
                answer,
            )
        )
        self.query_one(LabelTable).show_labels(labels)
