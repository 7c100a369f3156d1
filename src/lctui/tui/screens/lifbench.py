"""The LIFBench screen: LIFEval's capability profile of every model and the stability
of one model, each a tab.

Capabilities: ARS and IFP per capability for every model with lifeval scores, as bar
cells that compare down each column. Stability: the selected model's IFS per
perspective and, for one perspective, the per-level mean ARS of every task with its
coefficient of variation (their mean is the IFS), and the ARS per length. The numbers
come from `suites/lifbench/analysis/` (metrics, levels) in thread workers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import DataTable, OptionList, Static, TabbedContent, TabPane

from lctui.core.text import escape_unprintable, plural
from lctui.store.lifeval_views import PERSPECTIVES
from lctui.suites.lifbench.analysis.levels import ModelStability, lifbench_stability
from lctui.suites.lifbench.analysis.metrics import LifbenchReport, lifbench_reports
from lctui.tui.screens.base import LctuiScreen
from lctui.tui.shown import shown_line
from lctui.tui.widgets.capability_bars import CapabilityTable
from lctui.tui.widgets.key_footer import KeyFooter
from lctui.tui.widgets.stability_table import StabilityTable, length_bars

if TYPE_CHECKING:
    from lctui.store.db import Store

EMPTY_MESSAGE = "No LIFEval scores: run a lifbench task or `lctui import lifbench-scores DIR`."
CAPABILITY_NOTE = (
    "ARS and IFP per capability (higher is better), best ARS first. enter: the model's stability"
)
LEVELS = {
    "expression": "expression (instruction wording) id",
    "variable": "variable (parameter set) id",
    "length": "context length (K tokens)",
}


def stability_of(store: Store, model: str) -> ModelStability | None:
    return lifbench_stability(store, [model]).get(model)


class LifbenchScreen(LctuiScreen):
    """Tabs: 1 Capabilities (all models), 2 Stability (one model, one perspective)."""

    DEFAULT_CSS = """
    LifbenchScreen #lifbench-header {
        height: 1; padding: 0 1; background: $panel; color: $text-muted;
    }
    LifbenchScreen #lifbench-empty { display: none; padding: 1 2; color: $text-muted; }
    LifbenchScreen.-empty #lifbench-empty { display: block; }
    LifbenchScreen.-empty #lifbench-tabs { display: none; }
    LifbenchScreen #lifbench-tabs { height: 1fr; }
    LifbenchScreen TabPane { padding: 0; }
    LifbenchScreen .note { height: auto; padding: 0 1; color: $text-muted; }
    LifbenchScreen #capability-table, LifbenchScreen #stability-models,
    LifbenchScreen #stability-body {
        border: round $primary 40%;
        border-title-color: $text;
        &:focus, &:focus-within { border: round $primary; }
    }
    LifbenchScreen #stability-models { width: 32; max-width: 35%; height: 1fr; }
    LifbenchScreen #stability-body { width: 1fr; height: 1fr; padding: 0 1; }
    LifbenchScreen #stability-ifs { height: auto; margin-bottom: 1; }
    LifbenchScreen #length-title { margin-top: 1; text-style: bold; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        # The tab labels name 1 and 2, so the footer leaves them out.
        Binding(
            "1",
            "show_tab('capabilities')",
            "Capabilities",
            id="lifbench.capabilities",
            show=False,
        ),
        Binding("2", "show_tab('stability')", "Stability", id="lifbench.stability", show=False),
        Binding("p", "next_perspective", "Perspective", id="lifbench.perspective"),
        Binding("right_square_bracket", "step_model(1)", "Next model", id="lifbench.next-model"),
        Binding(
            "left_square_bracket",
            "step_model(-1)",
            "Prev model",
            id="lifbench.previous-model",
            show=False,
        ),
        Binding("R", "reload", "Reload", id="lifbench.reload", show=False),
        Binding("escape", "back", "Back", id="lifbench.back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.reports: list[LifbenchReport] | None = None
        self.stability: dict[str, ModelStability] = {}
        self.model: str | None = None
        self.perspective = PERSPECTIVES[0]

    def compose(self) -> ComposeResult:
        yield Static("Loading LIFEval scores...", id="lifbench-header")
        yield Static(EMPTY_MESSAGE, id="lifbench-empty", markup=False)
        with TabbedContent(id="lifbench-tabs", initial="capabilities"):
            with TabPane("1 Capabilities", id="capabilities"):
                yield Static(CAPABILITY_NOTE, classes="note")
                yield CapabilityTable(id="capability-table")
            with TabPane("2 Stability", id="stability"), Horizontal():
                yield OptionList(id="stability-models")
                with VerticalScroll(id="stability-body"):
                    yield Static(id="stability-ifs")
                    yield StabilityTable(id="stability-table")
                    yield Static("ARS by length (R_t-weighted over tasks)", id="length-title")
                    yield Static(id="length-bars")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#capability-table").border_title = "Capability profile (IFP)"
        self.query_one("#stability-models").border_title = "Model"
        self._load_reports()

    # -- queries (thread workers) -----------------------------------------------------

    def _load_reports(self) -> None:
        self.run_query(
            lifbench_reports,
            group="lifbench-reports",
            done=self._show_reports,
            failed=lambda exc: self._failed(f"could not read LIFEval scores: {exc}"),
        )

    def _load_stability(self, model: str) -> None:
        self.run_query(
            stability_of,
            model,
            group="lifbench-stability",
            done=lambda found: self._stability_loaded(model, found),
            failed=lambda exc: self._failed(f"could not read {model}'s levels: {exc}"),
        )

    def _failed(self, message: str) -> None:
        self.query_one("#lifbench-header", Static).update(
            Content.styled(escape_unprintable(message), "$error")
        )
        self.notify(message, title="LIFBench", severity="error")

    # -- showing ----------------------------------------------------------------------

    def _show_reports(self, reports: list[LifbenchReport]) -> None:
        self.reports = reports
        self.stability.clear()
        self.set_class(not reports, "-empty")
        self.refresh_bindings()
        responses = sum(r.responses for r in reports)
        header = (
            f"LIFBench (LIFEval)  ·  {plural(len(reports), 'model')}  ·  "
            f"{plural(responses, 'response')}"
        )
        self.query_one("#lifbench-header", Static).update(header if reports else "LIFBench")
        table = self.query_one(CapabilityTable)
        table.show_reports(reports)
        models = self.query_one("#stability-models", OptionList)
        models.clear_options()
        names = self._models()
        models.add_options([shown_line(name) for name in names])
        if not reports:
            return
        self._select_model(self.model if self.model in names else names[0])
        if self.query_one(TabbedContent).active == "capabilities":
            table.focus()

    def _models(self) -> list[str]:
        """The models in the order both tabs list them (best ARS first)."""
        return [r.model for r in self.query_one(CapabilityTable).reports]

    def _select_model(self, model: str) -> None:
        self.model = model
        models = self.query_one("#stability-models", OptionList)
        index = self._models().index(model)
        if models.highlighted != index:
            models.highlighted = index
        if model in self.stability:
            self._show_stability()
        else:
            self.query_one("#stability-ifs", Static).update(shown_line(f"Loading {model}..."))
            self._load_stability(model)

    def _stability_loaded(self, model: str, stability: ModelStability | None) -> None:
        self.stability[model] = stability or ModelStability(model)
        if model == self.model:
            self._show_stability()

    def _show_stability(self) -> None:
        assert self.model is not None
        stability = self.stability[self.model]
        body = self.query_one("#stability-body", VerticalScroll)
        body.border_title = f"{self.model}: {self.perspective}"
        body.border_subtitle = "p: perspective  [ ]: model"
        self.query_one("#stability-ifs", Static).update(self._ifs_line(stability))
        self.query_one(StabilityTable).show(stability, self.perspective)
        width = body.scrollable_content_region.width or 60
        bars = length_bars(stability.ars_by_length, min(width, 70))
        self.query_one("#length-bars", Static).update(bars)

    def _ifs_line(self, stability: ModelStability) -> Content:
        """IFS of every perspective, the shown one highlighted, then its mean."""
        values = {p: stability.ifs(p) for p in PERSPECTIVES}
        present = [v for v in values.values() if v is not None]
        values["mean"] = sum(present) / len(present) if len(present) == len(values) else None
        parts: list[Content] = [Content.styled("IFS", "bold")]
        for name, value in values.items():
            text = f"{name} {'-' if value is None else f'{value:.3f}'}"
            style = "bold reverse $accent" if name == self.perspective else ""
            parts.append(Content.styled(text, style))
        note = (
            f"\nMean ARS per task and {LEVELS[self.perspective]}; CV = std / mean of a "
            "task's level means; IFS = mean CV, lower is more stable."
        )
        return Content("  ").join(parts) + Content.styled(note, "$text-muted")

    # -- events and actions -----------------------------------------------------------

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        model = str(event.option.prompt)
        if model != self.model:
            self._select_model(model)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if isinstance(event.data_table, CapabilityTable) and event.row_key.value:
            self._select_model(event.row_key.value)
            self.action_show_tab("stability")

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id == "stability":
            self.query_one("#stability-models").focus()
        else:
            self.query_one(CapabilityTable).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("show_tab", "next_perspective", "step_model"):
            return bool(self.reports)  # no scores (or not read yet): nothing to show
        return True

    def action_show_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab

    def action_next_perspective(self) -> None:
        index = PERSPECTIVES.index(self.perspective)
        self.perspective = PERSPECTIVES[(index + 1) % len(PERSPECTIVES)]
        self.action_show_tab("stability")
        if self.model in self.stability:
            self._show_stability()

    def action_step_model(self, step: int) -> None:
        names = self._models()
        if not names:
            return
        index = names.index(self.model) if self.model in names else 0
        self.action_show_tab("stability")
        self._select_model(names[(index + step) % len(names)])

    def action_reload(self) -> None:
        self._load_reports()

    def action_back(self) -> None:
        self.app.pop_screen()
