"""The inspector's fourth panel, for real-data examples: the passage list (and a
citation task's citations), an ICL example's label map or a multiple-choice question's
options (LongBench v2), whichever the example has.

It shows one of its two panels and says which (`show` answers the tab's name, or None
when the example has none, so the screen hides the panel and its tab).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Container
from textual.widget import Widget
from textual.widgets import DataTable

from lctui.store.read.generations import GenerationRecord
from lctui.tui.state.example_context import choice_map
from lctui.tui.widgets.label_map import LabelMapPanel
from lctui.tui.widgets.passage_list import PassagePanel


class ExampleContextPanel(Container):
    """Passages, labels or options of one generation's example."""

    def compose(self) -> ComposeResult:
        yield PassagePanel(id="passage-panel")
        yield LabelMapPanel(id="label-panel")

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._pending: GenerationRecord | None = None
        self.display = False  # until the record says what the example has

    def show(self, record: GenerationRecord) -> str | None:
        """Show what the example has; its tab name ("Passages", "Labels", "Options") or
        None.

        The tables fill when the panel is first on screen: a 128K RAG prompt lists
        1,000 passages (a quarter of a second of table rows), which should delay
        neither the prompt the user opened nor an 80-column inspector that never
        shows this tab."""
        passages = any(s.kind == "passage" for s in record.spans)
        choices = None if passages else choice_map(record)
        labels = choices is not None
        # Inline display, not classes: a class change restyles the panel and its
        # tables (~20 ms before the first paint); an inline one only lays them out.
        self.query_one(PassagePanel).display = passages
        self.query_one(LabelMapPanel).display = labels
        if not passages and not labels:
            self._pending = None
            self.display = False
            return None
        self.styles.clear_rule("display")  # the inspector's rules say where it shows
        self.border_title = f"Passages ({sum(s.kind == 'passage' for s in record.spans)})"
        if choices is not None:
            self.border_title = choices.wording.tab
        self._pending = record
        self.call_after_refresh(self._fill_if_shown)
        return "Passages" if choices is None else choices.wording.tab

    def on_show(self) -> None:
        self.call_after_refresh(self._fill)  # after the paint that shows the prompt

    def _fill_if_shown(self) -> None:
        if self.display and self.region.area:
            self._fill()

    def _fill(self) -> None:
        record, self._pending = self._pending, None
        if record is None:
            return
        shown: PassagePanel | LabelMapPanel
        passages = self.query_one(PassagePanel)
        shown = passages if passages.display else self.query_one(LabelMapPanel)
        shown.show(record)
        self.border_title = shown.border_title  # the inspector draws the border here

    def first_table(self) -> Widget:
        """What to focus when the panel is opened: the first table of the panel shown."""
        shown = [t for t in self.query(DataTable) if t.parent and t.parent.display]
        return shown[0] if shown else self
