"""The inspector's fourth panel, for real-data examples: the passage list (and a
citation task's citations) or an ICL example's label map, whichever the example has.

It shows one of its two panels and says which (`show` answers the tab's name, or None
when the example has neither, so the screen hides the panel and its tab).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Container
from textual.widget import Widget
from textual.widgets import DataTable

from lctui.store.read.generations import GenerationRecord
from lctui.tui.state.example_context import label_map
from lctui.tui.widgets.label_map import LabelMapPanel
from lctui.tui.widgets.passage_list import PassagePanel


class ExampleContextPanel(Container):
    """Passages or labels of one generation's example."""

    DEFAULT_CSS = """
    ExampleContextPanel > * { display: none; }
    ExampleContextPanel.-passages PassagePanel, ExampleContextPanel.-labels LabelMapPanel {
        display: block;
    }
    """

    def compose(self) -> ComposeResult:
        yield PassagePanel(id="passage-panel")
        yield LabelMapPanel(id="label-panel")

    def show(self, record: GenerationRecord) -> str | None:
        """Show what the example has; its tab name ("Passages", "Labels") or None."""
        passages = any(s.kind == "passage" for s in record.spans)
        labels = not passages and label_map(record) is not None
        self.set_class(passages, "-passages")
        self.set_class(labels, "-labels")
        if not passages and not labels:
            return None
        shown: PassagePanel | LabelMapPanel
        shown = self.query_one(PassagePanel) if passages else self.query_one(LabelMapPanel)
        shown.show(record)
        self.border_title = shown.border_title  # the inspector draws the border here
        return "Passages" if passages else "Labels"

    def first_table(self) -> Widget:
        """What to focus when the panel is opened: the first table of the panel shown."""
        shown = [t for t in self.query(DataTable) if t.parent and t.parent.display]
        return shown[0] if shown else self
