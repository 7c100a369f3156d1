"""The inspector's passage list: the passages of the asked question, the gold ones
marked, and for a citation task the citations of the output linked to the documents
they cite. Enter (or a click) on a row asks the screen to show that passage in the
prompt (`PassagePanel.Jump`); a citation to a number the prompt does not list is
flagged and jumps nowhere.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import DataTable, Static

from lctui.core.text import plural, shorten
from lctui.store.read.generations import GenerationRecord
from lctui.tui.state.example_context import (
    Citation,
    ListedPassage,
    listed_passages,
    output_citations,
)
from lctui.tui.widgets.fitted_table import FittedTable

GOLD_MARK = "★"
NOT_LISTED = "not in the prompt"


class PassageTable(FittedTable):
    """One row per passage: position, gold mark, label (never cut), then its text."""

    DEFAULT_CSS = """
    PassageTable { height: auto; max-height: 100%; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.passages: list[ListedPassage] = []
        self.citing = False

    def show_passages(self, passages: Sequence[ListedPassage], citing: bool) -> None:
        self.passages = list(passages)
        self.citing = citing
        self._populate()

    def _populate(self) -> None:
        self._width = self.size.width
        cursor_row = self.cursor_row
        self.clear(columns=True)
        passages = self.passages
        colours = self.app.theme_variables
        gold_colour = colours.get("gold", colours.get("success", "green"))
        number_width = max([1, *(len(str(p.position)) for p in passages)])
        marks = [f"{GOLD_MARK} {p.gold}" for p in passages if p.gold]
        gold_width = max([len("gold"), *map(len, marks)]) if marks else 0
        label_width = max([len("passage"), *(len(p.label) for p in passages)])
        cited_width = len("cited") if self.citing else 0
        # Re-ranking: where the output ranked each passage ("-": left out).
        ranking = any(p.ranked is not None for p in passages)
        ranked_width = len("ranked") if ranking else 0
        widths = [number_width, gold_width, label_width, cited_width, ranked_width]
        # Padding 1 + 1 per column, a cell for the scrollbar, the text gets the rest.
        fixed = sum(w + 2 for w in widths if w) + 2 + 1
        text_width = max(8, (self._width or 80) - fixed)
        self.add_column("#", width=number_width, key="position")
        if gold_width:  # a citation task marks no gold passage: no empty column
            self.add_column("gold", width=gold_width, key="gold")
        self.add_column("passage", width=label_width, key="label")
        if self.citing:
            self.add_column("cited", width=cited_width, key="cited")
        if ranking:
            self.add_column("ranked", width=ranked_width, key="ranked")
        self.add_column("text", width=text_width, key="text")
        for passage in passages:
            mark = Text(f"{GOLD_MARK} {passage.gold}" if passage.gold else "")
            mark.stylize(f"bold {gold_colour}")
            label = Text(passage.label, style=f"bold {gold_colour}" if passage.gold else "bold")
            cells = [
                Text(str(passage.position), justify="right"),
                *([mark] if marks else []),
                label,
            ]
            if self.citing:
                cited = f"{passage.cited}x" if passage.cited else ""
                cells.append(Text(cited, justify="right"))
            if ranking:
                place = "-" if passage.ranked is None else f"#{passage.ranked}"
                cells.append(Text(place, justify="right"))
            text = Text(no_wrap=True)
            if passage.title and passage.title != passage.label:
                text.append(f"{passage.title}: ", style="italic")
            text.append(passage.preview, style="dim")
            text.truncate(text_width, overflow="ellipsis")
            cells.append(text)
            self.add_row(*cells, key=str(passage.position))
        if self.row_count:
            self.move_cursor(row=min(cursor_row, self.row_count - 1))


class CitationTable(FittedTable):
    """One row per citation of the output: the mark, the document it names, the text."""

    DEFAULT_CSS = """
    CitationTable { height: auto; max-height: 100%; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.citations: list[Citation] = []

    def show_citations(self, citations: Sequence[Citation]) -> None:
        self.citations = list(citations)
        self._populate()

    def _populate(self) -> None:
        self._width = self.size.width
        cursor_row = self.cursor_row
        self.clear(columns=True)
        colours = self.app.theme_variables
        error = colours.get("error", "red")
        citations = self.citations
        mark_width = max([4, *(len(c.number) + 2 for c in citations)])
        target_width = max(
            [len("document"), *(len(_target(c)) for c in citations)] if citations else [8]
        )
        fixed = mark_width + target_width + 3 * 2 + 1
        text_width = max(8, (self._width or 80) - fixed)
        self.add_column("cite", width=mark_width, key="mark")
        self.add_column("document", width=target_width, key="document")
        self.add_column("the output's text it closes", width=text_width, key="text")
        for i, citation in enumerate(citations):
            listed = citation.passage is not None
            mark = Text(f"[{citation.number}]", style="bold" if listed else f"bold {error}")
            target = Text(_target(citation), style="" if listed else f"bold {error}")
            text = Text(shorten(citation.sentence, text_width), style="dim")
            self.add_row(mark, target, text, key=str(i))
        if self.row_count:
            self.move_cursor(row=min(cursor_row, self.row_count - 1))


def _target(citation: Citation) -> str:
    passage = citation.passage
    if passage is None:
        return NOT_LISTED
    return f"#{passage.position} {passage.title or passage.label}"


class PassagePanel(VerticalScroll):
    """The passage list of one generation, and its citations for a citation task."""

    DEFAULT_CSS = """
    PassagePanel #citations-heading, PassagePanel #citations { display: none; }
    PassagePanel.-citing #citations-heading, PassagePanel.-citing #citations { display: block; }
    PassagePanel #citations-heading { margin-top: 1; }
    PassagePanel #passages-heading, PassagePanel #citations-heading { color: $text-muted; }
    """

    class Jump(Message):
        """Show `passage` in the prompt."""

        def __init__(self, passage: ListedPassage) -> None:
            super().__init__()
            self.passage = passage

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.passages: list[ListedPassage] = []
        self.citations: list[Citation] = []

    def compose(self) -> ComposeResult:
        yield Static(id="passages-heading")
        yield PassageTable(id="passages")
        yield Static(id="citations-heading")
        yield CitationTable(id="citations")

    def show(self, record: GenerationRecord) -> None:
        self.passages = listed_passages(record)
        self.citations = output_citations(record)
        citing = record.category == "cite"
        self.set_class(citing, "-citing")
        golds = sum(1 for p in self.passages if p.gold)
        heading = plural(len(self.passages), "passage")
        heading += f", {golds} gold ({GOLD_MARK})" if golds else ""
        self.query_one("#passages-heading", Static).update(heading + "; enter shows one")
        self.query_one(PassageTable).show_passages(self.passages, citing)
        unlisted = sum(1 for c in self.citations if c.passage is None)
        line = f"{plural(len(self.citations), 'citation')} in the output"
        if unlisted:
            line += f", {unlisted} to a document {NOT_LISTED}"
        self.query_one("#citations-heading", Static).update(line)
        self.query_one(CitationTable).show_citations(self.citations)
        self.border_title = f"Passages ({len(self.passages)})"

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        key = event.row_key.value
        if key is None:
            return
        if isinstance(event.data_table, CitationTable):
            citation = self.citations[int(key)]
            if citation.passage is None:
                self.notify(
                    f"[{citation.number}] cites a document the prompt does not list.",
                    title="Citation",
                    severity="warning",
                )
                return
            self.post_message(self.Jump(citation.passage))
        else:
            self.post_message(self.Jump(self.passages[int(key) - 1]))
