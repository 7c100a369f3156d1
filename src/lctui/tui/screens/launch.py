"""The launch screen: pick models, tasks, lengths, n and seed; see the cost; start.

Lengths above a chosen model's window are disabled with the reason (windows come
from settings and config files, not from loading weights). Start (the button,
ctrl+s, or enter in n/seed) validates everything and says what is wrong, both as a
notification and in the error line, before anything runs.
"""

from __future__ import annotations

import platform
from collections.abc import Callable
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import (
    Button,
    Input,
    Label,
    Select,
    SelectionList,
    Static,
    Tree,
)
from textual.widgets.selection_list import Selection

from lctui.backends import builtin_models, declared_window, resolve_model
from lctui.cli.data_option import listed_tasks
from lctui.core.bounds import check_n, check_seed
from lctui.core.errors import UserInputError
from lctui.core.lengths import format_length
from lctui.core.types import ModelSpec
from lctui.engine import RunRequest
from lctui.engine.plan import MODEL_TOKENIZER
from lctui.tasks import all_tasks
from lctui.tasks.tokenizers import REFERENCE_TOKENIZERS
from lctui.tui.screens.base import LctuiScreen, on_a_cursor
from lctui.tui.state.run_options import (
    LENGTH_CHOICES,
    describe,
    estimate,
    is_url,
    model_prompt,
    read_throughput,
    too_long,
    unreachable,
    url_spec,
)
from lctui.tui.widgets.key_footer import KeyFooter
from lctui.tui.widgets.run_task_tree import TaskNode, TaskTree, describe_node
from lctui.tui.widgets.tick_list import TickList

DEFAULT_LENGTH = 4096
TASK_DEFAULT = "default"
# What `--tokenizer` offers (engine.plan): the value None stands for is the tasks' default.
TOKENIZER_OPTIONS = [
    ("task default", TASK_DEFAULT),
    *((f"{name} (all)", name) for name in REFERENCE_TOKENIZERS),
    ("each model's own", MODEL_TOKENIZER),
]
TOKENIZER_HELP = (
    "task default: LIFBench tasks count with o200k_base as in their paper, the others with "
    "each model's own tokenizer. A reference tokenizer (all) makes every model read the "
    "same examples, so their results pair for a comparison."
)


class LaunchScreen(LctuiScreen):
    """Choose what to run."""

    DEFAULT_CSS = """
    LaunchScreen #launch-panels { height: 1fr; }
    LaunchScreen .panel { border: round $primary; height: 1fr; }
    LaunchScreen .panel:focus-within { border: round $accent; }
    LaunchScreen #models-panel { width: 2fr; min-width: 26; }
    LaunchScreen #tasks-panel { width: 3fr; }
    LaunchScreen #lengths-panel { width: 24; }
    LaunchScreen SelectionList, LaunchScreen SelectionList:focus {
        border: none; height: 1fr; padding: 0;
    }
    LaunchScreen #add-model { margin: 0; }
    LaunchScreen #tasks { height: 1fr; overflow-x: hidden; }
    LaunchScreen #task-detail { height: auto; max-height: 4; color: $text-muted; }
    LaunchScreen #length-note { height: auto; color: $text-muted; }
    LaunchScreen .field { height: 1; }
    LaunchScreen .field Label { width: 12; }
    LaunchScreen .field Input { width: 1fr; }
    LaunchScreen #tokenizer { width: 1fr; }
    LaunchScreen #estimate { height: auto; padding: 0 1; }
    LaunchScreen #launch-error { height: auto; max-height: 4; padding: 0 1; }
    LaunchScreen #start-row { height: 1; padding: 0 1; }
    LaunchScreen #start-row Label { padding: 0 2; color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "start", "Start", priority=True, id="launch-start"),
        Binding("escape", "app.pop_screen", "Back", id="launch-back"),
        # Direct jumps, so no field is more than one key away (Tab also walks them all).
        Binding("f2", "jump('models')", "Models", priority=True, id="launch-models"),
        Binding("f3", "jump('tasks')", "Tasks", priority=True, id="launch-tasks"),
        Binding("f4", "jump('lengths')", "Lengths", priority=True, id="launch-lengths"),
        Binding("f5", "jump('n')", "n", priority=True, id="launch-n", show=False),
        Binding("f6", "jump('seed')", "Seed", priority=True, id="launch-seed", show=False),
        Binding(
            "f7", "jump('tokenizer')", "Tokenizer", priority=True, id="launch-tokenizer", show=False
        ),
    ]

    def action_jump(self, target: str) -> None:
        self.query_one(f"#{target}").focus()

    def __init__(self) -> None:
        super().__init__()
        self.specs: dict[str, ModelSpec] = {}
        self.windows: dict[str, int | None] = {}
        self.throughput: dict[str, float] = {}

    # -- layout ---------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        for spec in [*self.lctui.config.models.values(), *builtin_models()]:
            self.specs.setdefault(spec.name, spec)
        self.windows = {name: declared_window(spec) for name, spec in self.specs.items()}
        with Horizontal(id="launch-panels"):
            with Vertical(id="models-panel", classes="panel") as models:
                models.border_title = "Models (F2)"
                yield TickList[str](
                    *(
                        Selection(model_prompt(s, self.windows[n]), n)
                        for n, s in self.specs.items()
                    ),
                    id="models",
                )
                yield Input(
                    placeholder="+ add: path, hf:name, http://…", id="add-model", compact=True
                )
            with Vertical(id="tasks-panel", classes="panel") as tasks:
                tasks.border_title = "Tasks (F3)"
                yield TaskTree(listed_tasks(all_tasks(), self.lctui.config), id="tasks")
                yield Static("enter: tick · space: parameters", id="task-detail")
            with Vertical(id="lengths-panel", classes="panel") as lengths:
                lengths.border_title = "Lengths (F4)"
                yield TickList[int](
                    *(Selection(format_length(n), n, n == DEFAULT_LENGTH) for n in LENGTH_CHOICES),
                    id="lengths",
                )
                yield Static("", id="length-note")
                with Horizontal(classes="field"):
                    yield Label("n (F5)")
                    yield Input("10", type="integer", id="n", compact=True)
                with Horizontal(classes="field"):
                    yield Label("seed (F6)")
                    yield Input("0", type="integer", id="seed", compact=True)
                yield Label("count tokens with (F7)", classes="field")
                picker = Select[str](
                    TOKENIZER_OPTIONS,
                    value=TASK_DEFAULT,
                    allow_blank=False,
                    compact=True,
                    id="tokenizer",
                )
                picker.tooltip = TOKENIZER_HELP
                yield picker
        yield Static("", id="estimate")
        yield Static("", id="launch-error", classes="error-text")
        with Horizontal(id="start-row"):
            yield Button("Start", id="start", variant="primary", compact=True)
            yield Label("ctrl+s starts · space/enter ticks")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#models").focus()
        self._update_lengths()
        self._update_estimate()
        self._load_throughput()

    def on_screen_resume(self) -> None:
        # Back from a run: it measured throughput, so the estimate can use it.
        if self.is_mounted:
            self._load_throughput()

    def _load_throughput(self) -> None:
        self.run_query(
            on_a_cursor(read_throughput),
            group="throughput",
            done=self._set_throughput,
            # The estimate then goes without measured throughput, as on a new file.
            failed=lambda exc: None,
        )

    def _set_throughput(self, measured: dict[str, float]) -> None:
        self.throughput = measured
        self._update_estimate()

    # -- reading the choices ----------------------------------------------------------------

    def chosen_models(self) -> list[ModelSpec]:
        return [self.specs[name] for name in self.query_one("#models", SelectionList).selected]

    def chosen_tokenizer(self) -> str | None:
        """The run's `tokenizer` (None: each task's default)."""
        value = self.query_one("#tokenizer", Select).value
        return None if value == TASK_DEFAULT or not isinstance(value, str) else value

    def chosen_lengths(self) -> list[int]:
        return sorted(self.query_one("#lengths", SelectionList).selected)

    def _number(self, widget_id: str, label: str, check: Callable[[int, str], int]) -> int | str:
        """The integer in an Input if `check` (a core.bounds check) accepts it, else a
        message saying what is wrong with it."""
        raw = self.query_one(f"#{widget_id}", Input).value.strip()
        try:
            return check(int(raw), label)
        except ValueError:
            return f"{label} must be a whole number, not {raw!r}"
        except UserInputError as exc:
            return str(exc)

    # -- reacting ---------------------------------------------------------------------------

    @on(SelectionList.SelectedChanged, "#models")
    def _models_changed(self) -> None:
        self._update_lengths()
        self._update_estimate()

    @on(SelectionList.SelectedChanged, "#lengths")
    @on(Input.Changed, "#n, #seed")
    def _inputs_changed(self) -> None:
        self._update_estimate()

    @on(Tree.NodeSelected, "#tasks")
    def _task_selected(self, event: Tree.NodeSelected[TaskNode]) -> None:
        if self.query_one(TaskTree).toggle(event.node):
            self._update_estimate()

    @on(Tree.NodeHighlighted, "#tasks")
    def _task_highlighted(self, event: Tree.NodeHighlighted[TaskNode]) -> None:
        if event.node.data is not None:
            self.query_one("#task-detail", Static).update(describe_node(event.node.data))

    def _update_lengths(self) -> None:
        """Disable the lengths above the smallest window of the chosen models, with why."""
        lengths = self.query_one("#lengths", SelectionList)
        limits = {m.name: self.windows.get(m.name) for m in self.chosen_models()}
        known = {name: w for name, w in limits.items() if w is not None}
        dropped = []
        for index, length in enumerate(LENGTH_CHOICES):
            over = sorted(name for name, w in known.items() if length > w)
            if over:
                window = min(known[name] for name in over)
                prompt = f"{format_length(length)}  > {format_length(window)} window"
                if length in lengths.selected:
                    dropped.append(format_length(length))
                    lengths.deselect(length)
                lengths.replace_option_prompt_at_index(index, prompt)
                lengths.disable_option_at_index(index)
            else:
                lengths.replace_option_prompt_at_index(index, format_length(length))
                lengths.enable_option_at_index(index)
        notes = [
            f"over {format_length(w)}: above the window of {name}"
            for name, w in sorted(known.items(), key=lambda item: item[1])
            if w < LENGTH_CHOICES[-1]
        ]
        self.query_one("#length-note", Static).update("\n".join(notes))
        if dropped:
            message = f"unticked {', '.join(dropped)}: above the window of a chosen model"
            self.query_one("#launch-error", Static).update(f"! {message}")
            self.notify(message, severity="warning")

    def _update_estimate(self) -> None:
        models = [m.name for m in self.chosen_models()]
        tasks = len(self.query_one(TaskTree).checked)
        lengths = self.chosen_lengths()
        n = self._number("n", "n", check_n)
        line = self.query_one("#estimate", Static)
        if not (models and tasks and lengths):
            line.update(
                f"{len(models)} model(s) x {tasks} task(s) x {len(lengths)} length(s): "
                "tick one of each to see the cost"
            )
            return
        if isinstance(n, str):  # what is wrong with n, as soon as it is typed
            line.update(f"! {n}")
            return
        est = estimate(models, tasks, lengths, n, self.throughput)
        line.update(describe(est, len(models), tasks, len(lengths), n))

    # -- adding a model ---------------------------------------------------------------------

    @on(Input.Submitted, "#add-model")
    async def _add_model(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text:
            return
        try:
            spec = url_spec(text) if is_url(text) else resolve_model(text, self.lctui.config.models)
        except UserInputError as exc:
            self._show_errors([str(exc)])
            return
        models = self.query_one("#models", SelectionList)
        if spec.name not in self.specs:
            self.specs[spec.name] = spec
            self.windows[spec.name] = declared_window(spec)
            models.add_option(Selection(model_prompt(spec, self.windows[spec.name]), spec.name))
        models.select(spec.name)
        event.input.value = ""
        self._show_errors([])
        if spec.backend == "openai":
            reason = await unreachable(spec)
            if reason:
                self._show_errors([f"{spec.name}: {reason}"])
            else:
                self.notify(
                    f"{spec.name} answers, but the openai backend arrives in a later version "
                    "of lctui: it cannot be run yet.",
                    severity="warning",
                )

    # -- starting -----------------------------------------------------------------------------

    def _show_errors(self, errors: list[str]) -> None:
        self.query_one("#launch-error", Static).update("\n".join(f"✗ {e}" for e in errors))
        if errors:
            self.notify("\n".join(errors), title="Cannot start", severity="error")

    @on(Button.Pressed, "#start")
    @on(Input.Submitted, "#n, #seed")
    async def _start_pressed(self) -> None:
        await self.action_start()

    async def action_start(self) -> None:
        request = await self.validate()
        if request is not None:
            self._show_errors([])
            self.lctui.start_run(request)

    async def validate(self) -> RunRequest | None:
        """The RunRequest of the choices, or None after showing every problem."""
        errors: list[str] = []
        models = self.chosen_models()
        tasks = self.query_one(TaskTree).selected_tasks()
        lengths = self.chosen_lengths()
        if not models:
            errors.append("choose at least one model (space ticks it)")
        if not tasks:
            errors.append("choose at least one task (enter ticks it, or a whole category)")
        if not lengths:
            errors.append("choose at least one length")
        n = self._number("n", "n per cell", check_n)
        seed = self._number("seed", "seed", check_seed)
        errors += [v for v in (n, seed) if isinstance(v, str)]
        errors += too_long(lengths, {m.name: self.windows.get(m.name) for m in models})
        for spec in models:
            if spec.backend == "openai":
                reason = await unreachable(spec)
                errors.append(
                    f"{spec.name}: {reason}"
                    if reason
                    else f"{spec.name}: the openai backend arrives in a later version of lctui"
                )
        if errors or isinstance(n, str) or isinstance(seed, str):
            self._show_errors(errors)
            return None
        argv = ["run", *(a for m in models for a in ("--model", m.name))]
        argv += ["--tasks", ",".join(t.name for t in tasks)]
        argv += ["--lengths", ",".join(format_length(x) for x in lengths)]
        argv += ["--n", str(n), "--seed", str(seed)]
        tokenizer = self.chosen_tokenizer()
        if tokenizer is not None:
            argv += ["--tokenizer", tokenizer]
        try:
            return RunRequest(
                models=models,
                tasks=tasks,
                lengths=lengths,
                n=n,
                seed=seed,
                tokenizer=tokenizer,
                command={"argv": argv, "host": platform.node(), "source": "tui"},
            )
        except UserInputError as exc:  # the bounds of the whole run (core.bounds)
            self._show_errors([str(exc)])
            return None
