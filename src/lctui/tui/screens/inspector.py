"""The example inspector: the exact prompt, the output, the gold answer and the rubric.

Opened on one stored generation. The prompt is a virtual-scrolling PromptView with
needles and gold values marked (n / N / g jump between them); the output shows the
extracted answers; the rubric lists every point. Actions re-score the stored output,
re-run the example (same or another model), copy the prompt and export everything.
Under 110 columns the panels become tabs (keys 1, 2, 3, 4). A real-data example adds
a fourth panel (key 4): its passages, the gold ones marked, and a citation task's
citations (widgets/passage_list.py), an ICL example's label map or a multiple-choice
question's options (widgets/label_map.py). A LongBench v2 example names its domain,
difficulty and length bucket in the header and marks where its context's middle was
cut; answered in two calls (chain of thought), `c` switches the prompt between the
reasoning call's and the answer call's, and the output shows both calls' outputs.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.containers import Container
from textual.content import Content
from textual.widgets import Static, Tab, Tabs

from lctui.backends import resolve_model
from lctui.core.errors import LctuiError
from lctui.core.private import write_output
from lctui.core.text import escape_unprintable
from lctui.core.types import ModelSpec, Score
from lctui.store.read.generations import GenerationRecord, get_generation
from lctui.tui.inspector_actions import (
    already_stored,
    export_path,
    export_payload,
    model_choices,
    read_rerun,
    rescore,
)
from lctui.tui.screens.base import LctuiScreen, PendingQuery
from lctui.tui.screens.model_picker import ModelPicker
from lctui.tui.state.example_view import calls_of
from lctui.tui.state.inspector_header import fit_header
from lctui.tui.state.prompt_marks import MarkedSpan, in_prompt
from lctui.tui.state.prompt_shown import prompt_shown
from lctui.tui.widgets.example_context import ExampleContextPanel
from lctui.tui.widgets.key_footer import KeyFooter
from lctui.tui.widgets.passage_list import PassagePanel
from lctui.tui.widgets.prompt_output import OutputPanel
from lctui.tui.widgets.prompt_view import PromptView
from lctui.tui.widgets.rubric_table import RubricPanel

if TYPE_CHECKING:
    from lctui.engine import RunRequest

FIRST_LAYOUT_WAIT_S = 0.15
PANELS = {
    "prompt": "#prompt",
    "output": "#output-panel",
    "rubric": "#rubric",
    "context": "#context-panel",
}


class InspectorCommands(Provider):
    """Command palette entries for every described key of the inspector."""

    def _commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        screen = self.screen
        if not isinstance(screen, InspectorScreen):
            return []
        out: list[tuple[str, str, Callable[[], object]]] = []
        for binding in screen.BINDINGS:
            if not isinstance(binding, Binding) or not binding.description:
                continue
            # Not offered where the key does nothing (`c` on a one-call answer).
            if screen.check_action(binding.action.partition("(")[0], ()) is not False:
                title = f"Inspector: {binding.tooltip or binding.description}"
                out.append(
                    (title, f"key {binding.key}", partial(screen.run_action, binding.action))
                )
        return out

    async def discover(self) -> Hits:
        for title, help_text, command in self._commands():
            yield DiscoveryHit(title, command, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, command in self._commands():
            if (score := matcher.match(title)) > 0:
                yield Hit(score, matcher.highlight(title), command, help=help_text)


class InspectorScreen(LctuiScreen):
    """One generation: prompt with marked spans, output, gold, rubric and actions."""

    DEFAULT_CSS = """
    InspectorScreen { layout: vertical; }
    #inspector-header { height: auto; padding: 0 1; background: $panel; color: $text-muted; }
    #panel-tabs { display: none; }
    #panels { height: 1fr; }
    #panels > * { border: round $primary 50%; border-title-color: $text; }
    #panels > *:focus-within { border: round $accent; }
    #prompt { padding: 0 0 0 1; }
    #output-panel, #rubric-panel { padding: 0 1; }
    InspectorScreen.-wide #panels {
        layout: grid; grid-size: 2 2; grid-columns: 3fr 2fr; grid-rows: 1fr auto;
    }
    InspectorScreen.-wide #rubric-panel { row-span: 2; }
    InspectorScreen.-wide #output-panel { height: auto; max-height: 14; }
    #context-panel { display: none; }
    InspectorScreen.-wide #context-panel { display: block; }
    InspectorScreen.-narrow #panel-tabs { display: block; }
    InspectorScreen.-narrow #panels > * { display: none; height: 1fr; }
    InspectorScreen.-narrow.-show-prompt #prompt { display: block; }
    InspectorScreen.-narrow.-show-output #output-panel { display: block; }
    InspectorScreen.-narrow.-show-rubric #rubric-panel { display: block; }
    InspectorScreen.-narrow.-show-context #context-panel { display: block; }
    """
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]  # noqa: RUF012 (Screen's type)
    AUTO_FOCUS = "#prompt"
    COMMANDS: ClassVar[set[Any]] = {InspectorCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "next_span", "Next", id="inspector.next-span", tooltip="Next needle"),
        Binding(
            "N,shift+n",
            "previous_span",
            "Prev",
            id="inspector.previous-span",
            tooltip="Previous needle",
            show=False,  # the 80-column footer has no room; the prompt's subtitle names it
        ),
        Binding("g", "gold", "Gold", id="inspector.gold", tooltip="Jump to the first gold span"),
        Binding(
            "c",
            "switch_call",
            "Call",
            id="inspector.call",
            tooltip="Prompt of the other call (chain of thought: reasoning, answer)",
        ),
        # The same key on an example answered in one call: out of the footer, says why.
        Binding("c", "one_call", show=False, id="inspector.one-call"),
        Binding("s", "rescore", "Rescore", id="inspector.rescore", tooltip="Re-score the output"),
        Binding("r", "rerun", "Rerun", id="inspector.rerun", tooltip="Re-run on the same model"),
        Binding(
            "m",
            "rerun_on_model",
            "Model",
            id="inspector.rerun-model",
            tooltip="Re-run on another model",
        ),
        Binding("y", "copy_prompt", "Copy", id="inspector.copy", tooltip="Copy the prompt"),
        Binding("e", "export", "Export", id="inspector.export", tooltip="Export as JSON"),
        Binding("escape", "back", "Back", id="inspector.back", tooltip="Back to the list"),
        Binding("1", "show_panel('prompt')", "Prompt", id="inspector.panel-prompt", show=False),
        Binding("2", "show_panel('output')", "Output", id="inspector.panel-output", show=False),
        Binding("3", "show_panel('rubric')", "Rubric", id="inspector.panel-rubric", show=False),
        Binding(
            "4",
            "show_panel('context')",
            "Passages",
            id="inspector.panel-context",
            tooltip="Passages, citations, labels or options of a real-data example",
            show=False,
        ),
    ]

    def __init__(self, generation_id: str) -> None:
        super().__init__()
        self.generation_id = generation_id
        self.record: GenerationRecord | None = None
        self.panel = "prompt"
        self.has_context = False  # the example lists passages, labels or options (panel 4)
        self.call = 0  # the call whose prompt is shown (a two-call answer: 0 or 1)
        self._reading: PendingQuery[GenerationRecord | None] | None = None

    def compose(self) -> ComposeResult:
        self._reading = self._start_read()
        yield Static("Loading...", id="inspector-header")
        yield Tabs(
            Tab("1 Prompt", id="tab-prompt"),
            Tab("2 Output", id="tab-output"),
            Tab("3 Rubric", id="tab-rubric"),
            Tab("4 Passages", id="tab-context"),
            id="panel-tabs",
        )
        with Container(id="panels"):
            # The grid places them in this order (see `_context_layout`).
            yield PromptView(id="prompt")
            yield RubricPanel(id="rubric-panel")
            yield ExampleContextPanel(id="context-panel")
            yield OutputPanel(id="output-panel")
        yield KeyFooter()

    async def on_mount(self) -> None:
        tabs = self.query_one(Tabs)
        tabs.can_focus = False
        tabs.hide("tab-context")
        self.add_class("-show-prompt")
        self.query_one("#prompt", PromptView).border_title = "Prompt"
        reading = self._reading
        if reading is None:
            return
        # The read usually ends within milliseconds of mounting: showing the record
        # before the first layout saves a second layout and paint of the whole screen
        # (~50-100 ms on a 128K prompt). A slow read shows "Loading..." meanwhile.
        await asyncio.wait({asyncio.wrap_future(reading.finished)}, timeout=FIRST_LAYOUT_WAIT_S)
        self.deliver_if_finished(reading)  # else its message delivers it when it ends

    # -- loading ---------------------------------------------------------------------

    def _start_read(self) -> PendingQuery[GenerationRecord | None]:
        """Read the generation in a query worker, started before the widgets are built.

        Reading a 128K prompt (~20 ms) then overlaps composing the screen, which
        matters for the 300 ms open target; `on_mount` waits a little for it.
        """
        return self.run_query(
            get_generation,
            self.generation_id,
            group="inspector-read",
            done=self._receive,
            failed=lambda exc: self._failed(f"could not read the generation: {exc}"),
        )

    def _receive(self, record: GenerationRecord | None) -> None:
        if record is None:
            self._failed(f"generation {self.generation_id} is not in this results file")
            return
        self._show(record)

    def _failed(self, message: str) -> None:
        shown = escape_unprintable(message)  # it quotes an exception, names a generation
        self.query_one("#inspector-header", Static).update(Content.styled(shown, "$error"))
        self.notify(message, title="Inspector", severity="error")

    def _show(self, record: GenerationRecord) -> None:
        self.record = record
        self.call = 0
        self.refresh_bindings()  # `c` shows for a two-call answer only
        self._show_header(record)
        self._show_prompt(record)
        self.query_one(OutputPanel).show(record)
        self.query_one(RubricPanel).show(record)
        self._show_context(record)

    def _show_context(self, record: GenerationRecord) -> None:
        """The fourth panel: passages (and citations) or the label map, when there are."""
        name = self.query_one(ExampleContextPanel).show(record)
        self.has_context = name is not None
        tabs = self.query_one(Tabs)
        if name is None:
            tabs.hide("tab-context")
            return
        tabs.query_one("#tab-context", Tab).label = f"4 {name}"
        tabs.show("tab-context")
        self._context_layout()

    def _context_layout(self) -> None:
        """The wide grid with the fourth panel: prompt and context panel two rows high,
        the rubric above the context panel, the output under the prompt.

        Inline styles, not a screen class: a class on the screen restyles every widget
        (~0.1 s, before the first paint); the narrow layout is vertical and ignores them.
        """
        panels = self.query_one("#panels")
        panels.styles.grid_size_rows = 3
        panels.styles.grid_rows = "1fr 1fr auto"
        self.query_one("#prompt").styles.row_span = 2
        self.query_one("#rubric-panel").styles.row_span = 1
        self.query_one("#context-panel").styles.row_span = 2

    def _show_header(self, record: GenerationRecord) -> None:
        line = fit_header(record, self.generation_id, self.size.width - 2)
        # Plain text (never markup); its names were made one line with controls shown.
        self.query_one("#inspector-header", Static).update(Content(line))

    def on_resize(self) -> None:
        if self.record is not None:
            self._show_header(self.record)

    def _show_prompt(self, record: GenerationRecord) -> None:
        view = self.query_one("#prompt", PromptView)
        shown = prompt_shown(record, self.call)
        view.load(shown.text, shown.spans, found=shown.found, unmarked=shown.unmarked)
        view.border_title = shown.title

    # -- panels ----------------------------------------------------------------------

    def action_show_panel(self, panel: str) -> None:
        if panel == "context" and not self.has_context:
            self.notify("This example lists no passages or labels.", severity="warning")
            return
        self._set_panel(panel)
        if panel == "context":
            self.query_one(ExampleContextPanel).first_table().focus()
        else:
            self.query_one(PANELS[panel]).focus()

    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        panel = (event.tab.id or "").removeprefix("tab-")
        if panel in PANELS:
            self._set_panel(panel)

    def _set_panel(self, panel: str) -> None:
        self.panel = panel
        for name in PANELS:
            self.set_class(name == panel, f"-show-{name}")
        tabs = self.query_one(Tabs)
        if tabs.active != f"tab-{panel}":
            tabs.active = f"tab-{panel}"

    def _on_prompt(
        self,
        move: Callable[[PromptView], MarkedSpan | None],
        to: str = "needle",
        keep_focus: bool = False,
    ) -> None:
        """Jump `to` a needle or gold value, showing the prompt's tab first (`keep_focus`:
        unless it is in view); finding nothing says why (what the prompt holds)."""
        view = self.query_one("#prompt", PromptView)

        def jump() -> None:
            if move(view) is None:
                self.notify(view.nothing_to_jump(to), title=f"No {to} here", severity="warning")

        if self.has_class("-narrow") and self.panel != "prompt":
            self.action_show_panel("prompt")
            self.call_after_refresh(jump)  # the view has no size until it is shown
        else:
            if not keep_focus:
                view.focus()
            jump()

    def on_passage_panel_jump(self, event: PassagePanel.Jump) -> None:
        """Show the chosen passage in the prompt (its tab first when the panels are tabs);
        in the wide layout the list keeps the focus: the next passage is one key away."""
        record = self.record
        if record is None:
            return
        listed = event.passage
        span = in_prompt(record, listed.start, listed.end, "passage", listed.label)
        self._on_prompt(lambda view: view.show_span(span), "passage", keep_focus=True)

    def action_switch_call(self) -> None:
        """Show the prompt of the other call of a two-call answer (the key is enabled
        for those only: `check_action`)."""
        record = self.record
        if record is None or len(record.calls) < 2:
            return
        self.call = (self.call + 1) % len(record.calls)
        self._show_prompt(record)
        if self.has_class("-narrow") and self.panel != "prompt":
            self.action_show_panel("prompt")

    def action_one_call(self) -> None:
        self.notify(
            "This example was answered in one call: its prompt is the only one. "
            "c shows the other call's prompt of a chain-of-thought answer.",
            title="One call",
            severity="warning",
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        two_calls = self.record is not None and len(self.record.calls) > 1
        if action == "switch_call":  # in the footer for a two-call answer only
            return two_calls
        if action == "one_call":
            return self.record is not None and not two_calls
        return True

    def action_next_span(self) -> None:
        self._on_prompt(PromptView.select_next)

    def action_previous_span(self) -> None:
        self._on_prompt(PromptView.select_previous)

    def action_gold(self) -> None:
        self._on_prompt(PromptView.select_first_gold, "gold")

    def action_back(self) -> None:
        self.app.pop_screen()

    # -- actions ---------------------------------------------------------------------

    def _writable(self, what: str) -> bool:
        if self.record is None:
            self.notify("Still loading the generation.", severity="warning")
            return False
        if self.lctui.read_only:
            if self.lctui.writable_later:
                self.notify(
                    f"Another lctui process writes {self.lctui.db_path.name} (G lists its "
                    f"run): cannot {what} until it has ended.",
                    severity="warning",
                )
            else:
                self.notify(f"Opened read-only: cannot {what}.", severity="warning")
            return False
        return True

    def action_rescore(self) -> None:
        if not self._writable("store a new score"):
            return
        assert self.record is not None
        if self.record.status == "error":
            self.notify(
                "The request failed, so there is no output to score; re-run it with r.",
                severity="warning",
            )
            return
        self._rescore(self.record)

    def _rescore(self, record: GenerationRecord) -> None:
        self.run_query(
            rescore,
            record,
            group="inspector-rescore",
            done=lambda found: self._rescored(*found),
            failed=lambda exc: self.notify(f"Re-scoring failed: {exc}", severity="error"),
        )

    def _rescored(self, score: Score, fresh: GenerationRecord) -> None:
        self._show(fresh)
        value = "error" if score.value is None else f"{score.value:.2f}"
        self.notify(f"Re-scored: {score.metric} {value} ({score.status.value}).", title="Score")

    def action_rerun(self) -> None:
        if not self._writable("start a run"):
            return
        assert self.record is not None
        # A deliberate re-run is a new attempt under the same generation key; the
        # results view then shows the newest one and keeps the old one as history.
        self._start_rerun(self.record.model, retry_stored=already_stored(self.record))

    def action_rerun_on_model(self) -> None:
        if not self._writable("start a run"):
            return
        assert self.record is not None
        models = model_choices(self.lctui.config.models, exclude=self.record.model)

        def picked(spec: ModelSpec | None) -> None:
            if spec is not None:
                self._start_rerun(spec.name)

        self.app.push_screen(ModelPicker(models), picked)

    def _start_rerun(self, model: str, retry_stored: bool = False) -> None:
        assert self.record is not None
        try:
            spec = resolve_model(model, self.lctui.config.models)
        except LctuiError as exc:
            self.notify(f"Cannot re-run: {exc}", severity="error")
            return
        self._rerun(self.record, spec, retry_stored)

    def _rerun(self, record: GenerationRecord, spec: ModelSpec, retry_stored: bool) -> None:
        """Read the stored example (the re-run reads exactly it), then start the run."""
        self.run_query(
            read_rerun,
            record,
            spec,
            retry_stored,
            group="inspector-rerun",
            done=lambda found: self._rerun_ready(*found),
            failed=lambda exc: self.notify(f"Cannot re-run: {exc}", severity="error"),
        )

    def _rerun_ready(self, request: RunRequest, warning: str | None) -> None:
        if warning:
            self.notify(warning, title="Re-run", severity="warning")
        self.lctui.start_run(request)

    def action_copy_prompt(self) -> None:
        """Copy the prompt shown (a two-call answer: the call's prompt on screen)."""
        calls = calls_of(self.record) if self.record else []
        prompt = calls[self.call].prompt if calls else self.record.prompt if self.record else None
        if not prompt:
            self.notify("No prompt text to copy.", severity="warning")
            return
        self.app.copy_to_clipboard(prompt)
        self.notify(f"Copied the prompt ({len(prompt):,} characters) to the clipboard (OSC 52).")

    def action_export(self) -> None:
        if self.record is None:
            self.notify("Still loading the generation.", severity="warning")
            return
        self._export(self.record)

    @work(thread=True, exclusive=True, group="inspector-export")
    def _export(self, record: GenerationRecord) -> None:
        path = export_path(record)
        try:
            text = json.dumps(export_payload(record), indent=2, ensure_ascii=False, default=str)
            write_output(path, text + "\n")
        except OSError as exc:
            self.app.call_from_thread(self.notify, f"Export failed: {exc}", severity="error")
            return
        self.app.call_from_thread(self.notify, f"Exported to {path}", title="Export")
