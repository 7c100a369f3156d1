"""The output panel of the inspector: what the model answered to the prompt.

Shows the output with the extracted answers highlighted, the gold answer(s) and the
status. A failed request shows its error in the error colour, never an empty output
or a zero score (docs/ARCHITECTURE.md: errors are excluded from means and shown as errors).
A LongBench v2 answer has the sentence its option was read from marked (not every
letter like it), and a chain of thought shows both calls' outputs: the reasoning,
then the answer that was scored.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.theme import Theme
from textual.widgets import Static

from lctui.core.text import control_pictures, escape_unprintable
from lctui.store.read.generations import GenerationRecord
from lctui.tui.state.example_context import Citation, choice_map, output_citations
from lctui.tui.state.example_view import CallView, calls_of, example_view

STATUS_STYLES = {"ok": "$success", "unparsed": "$warning", "error": "$error"}


class OutputPanel(VerticalScroll):
    """Output, gold and status of one generation (a `GenerationRecord`)."""

    DEFAULT_CSS = """
    OutputPanel #output-gold, OutputPanel #output-status { margin-top: 1; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.record: GenerationRecord | None = None
        self.status = ""

    def compose(self) -> ComposeResult:
        yield Static(id="output-text")
        yield Static(id="output-gold")
        yield Static(id="output-status")

    def on_mount(self) -> None:
        self.border_title = "Output"
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def _theme_changed(self, theme: Theme) -> None:
        if self.record is not None:
            self.show(self.record)  # the gold colour is a theme variable, read once

    def show(self, record: GenerationRecord) -> None:
        self.record = record
        # An output's own lines stay; whatever else would act on the terminal shows as
        # one visible cell (␛, ␇), so that answers are still marked where they are.
        output = control_pictures(record.output or "")
        failed = record.status == "error"
        self.status = "error" if failed else (record.score_status or "not scored")
        if failed:
            error = escape_unprintable(record.error or "")
            text = Content.styled(f"The request failed: {error}", "bold $error")
            if output:
                text = text + Content.styled(f"\n\npartial output:\n{output}", "$text-muted")
        elif not output:
            text = Content.styled("(empty output)", "italic $text-muted")
        elif (view := example_view(record)) is not None:
            text = mark_answer(output, view.answer_span)
            calls = calls_of(record)
            if len(calls) > 1:
                text = Content("\n\n").join([*map(call_section, calls[:-1]), call_head(calls[-1])])
                text = text + Content("\n") + mark_answer(calls[-1].output, view.answer_span)
        else:
            text = mark_extracted(output, [x for s in record.scores for x in s.extracted])
            text = mark_citations(text, output_citations(record))
        self.query_one("#output-text", Static).update(text)
        gold = ", ".join(str(g) for g in record.gold) or "(none)"
        labels = choice_map(record)
        if labels is not None and labels.gold:  # ICL: name the label; options: their text
            gold = labels.named(labels.gold)
        gold = escape_unprintable(gold)
        # `gold` is an lctui theme variable; Textual's own themes lack it.
        gold_colour = self.app.theme_variables.get("gold", "$success")
        self.query_one("#output-gold", Static).update(
            Content.assemble(("Gold: ", "bold"), (gold, f"bold {gold_colour}"))
        )
        details = f"  ·  finish {record.finish_reason or '-'}"
        details += f"  ·  {record.output_tokens or 0} output tokens"
        style = STATUS_STYLES.get(self.status, "$text-muted")
        self.query_one("#output-status", Static).update(
            Content.assemble("status ", (self.status, f"bold {style}"), details)
        )
        self.border_title = f"Output: {self.status}"


def mark_citations(content: Content, citations: Sequence[Citation]) -> Content:
    """A citation task's `[n]` marks: linked ones underlined, ones to a document the
    prompt does not list in the error colour."""
    for citation in citations:
        style = "bold underline $accent" if citation.passage else "bold reverse $error"
        content = content.stylize(style, citation.start, citation.end)
    return content


def call_head(call: CallView) -> Content:
    """The heading line of one call's output."""
    tokens = f"{call.output_tokens:,} tokens, finish {call.finish_reason or '-'}"
    return Content.assemble((call.title.capitalize(), "bold"), f" ({tokens})")


def call_section(call: CallView) -> Content:
    """A call's heading and its output (an empty one said so)."""
    body = (
        Content(control_pictures(call.output))
        if call.output
        else Content.styled("(empty)", "italic")
    )
    return call_head(call) + Content("\n") + body


def mark_answer(output: str, span_of: Callable[[str], tuple[int, int] | None]) -> Content:
    """An answer with what it was read from highlighted (LongBench v2: the sentence
    naming the option), where `span_of` (its suite's) finds it."""
    span = span_of(output)
    content = Content(control_pictures(output))
    return content if span is None else content.stylize("bold reverse $accent", *span)


def mark_extracted(output: str, extracted: Sequence[str]) -> Content:
    """The output with every occurrence of an extracted answer highlighted."""
    content = Content(output)
    lowered = output.lower()
    for answer in {a for a in extracted if a}:
        needle = answer.lower()  # extraction normalises case, so match without it
        start = lowered.find(needle)
        while start != -1:
            content = content.stylize("bold reverse $accent", start, start + len(needle))
            start = lowered.find(needle, start + len(needle))
    return content
