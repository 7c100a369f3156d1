"""The launch screen: pick models, tasks, lengths, n and seed; see the cost; start.

It opens on the choices of the last run started here, or on defaults that finish in
minutes on the embedded model (tui/state/launch_choices.py). The estimate line puts the
duration first, coloured by how long it is, and names a smaller run that finishes in
minutes when the choices would take long. Lengths above a chosen model's window are
disabled with the reason (windows come from settings and config files, not from loading
weights). Enter on a task's parameter edits it, checked as `--set` checks it. Start
(the button, ctrl+s, or enter in n/seed) validates everything and says what is wrong,
both as a notification titled by what happened and in the error line, before anything
runs; a message in the error line goes as soon as it no longer holds. With "in
background" ticked (F8), the run starts as `lctui run --detach` would, with the same
command (`request_argv`), in a process of its own that outlives lctui, and its live
view attaches to it.
"""

from __future__ import annotations

import platform
from pathlib import Path
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
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
from lctui.cli.run_args import request_argv
from lctui.core.errors import UserInputError
from lctui.core.lengths import format_length
from lctui.core.text import plural
from lctui.core.types import ModelSpec
from lctui.engine import RunRequest
from lctui.tasks import all_tasks
from lctui.tui.screens.base import LctuiScreen, on_a_cursor
from lctui.tui.screens.param_editor import ParamEditor
from lctui.tui.shown import shown_line
from lctui.tui.state.estimate import ModelCost, ModelKey, estimate_line, read_costs
from lctui.tui.state.launch_choices import (
    TASK_DEFAULT,
    TOKENIZER_HELP,
    TOKENIZER_OPTIONS,
    LaunchChoices,
    Problem,
    check_param,
    choice_problems,
    keep_choices,
    last_choices,
    notice_title,
    read_number,
    shown_value,
    still_holding,
    tokenizer_note,
)
from lctui.tui.state.run_options import (
    LENGTH_CHOICES,
    checked_endpoint,
    is_url,
    length_options,
    model_prompt,
    url_spec,
)
from lctui.tui.widgets.key_footer import KeyFooter
from lctui.tui.widgets.ordered_keys import OrderedInput
from lctui.tui.widgets.run_task_tree import TaskNode, TaskTree, describe_node
from lctui.tui.widgets.tick_list import TickBox, TickList

# The estimate's duration, coloured by how long the run would take.
LEVEL_STYLES = {
    "short": "bold $success",
    "long": "bold $warning",
    "very long": "bold $error",
    "unknown": "bold $text-muted",
}


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
    LaunchScreen #estimate { height: auto; max-height: 3; padding: 0 1; }
    LaunchScreen #tokenizer-note { height: auto; max-height: 3; padding: 0 1; color: $text-muted; }
    LaunchScreen #tokenizer-note.warning { color: $text-warning; }
    LaunchScreen #launch-error { height: auto; max-height: 4; padding: 0 1; }
    LaunchScreen #start-row { height: 1; padding: 0 1; }
    LaunchScreen #start-row Label { padding: 0 2; color: $text-muted; }
    LaunchScreen #background { margin: 0 0 0 2; }
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
        Binding(
            "f8",
            "toggle_background",
            "In background",
            priority=True,
            id="launch-background",
            show=False,
            tooltip="Start the run in a process of its own that goes on when lctui closes",
        ),
    ]

    def action_jump(self, target: str) -> None:
        self.query_one(f"#{target}").focus()

    def __init__(self) -> None:
        super().__init__()
        self.specs: dict[str, ModelSpec] = {}
        self.windows: dict[str, int | None] = {}
        self.costs: dict[ModelKey, ModelCost] = {}  # measured on this machine
        self.problems: list[Problem] = []  # those the error line shows
        self.choices: LaunchChoices = last_choices()

    # -- layout ---------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        for spec in [*self.lctui.config.models.values(), *builtin_models()]:
            self.specs.setdefault(spec.name, spec)
        self.windows = {name: declared_window(spec) for name, spec in self.specs.items()}
        choices = self.choices
        with Horizontal(id="launch-panels"):
            with Vertical(id="models-panel", classes="panel") as models:
                models.border_title = "Models (F2)"
                yield TickList[str](
                    *(
                        Selection(shown_line(model_prompt(s, self.windows[n])), n)
                        for n, s in self.specs.items()
                    ),
                    id="models",
                )
                yield OrderedInput(
                    placeholder="+ add: path, hf:name, http://…", id="add-model", compact=True
                )
            with Vertical(id="tasks-panel", classes="panel") as tasks:
                tasks.border_title = "Tasks (F3)"
                yield TaskTree(listed_tasks(all_tasks(), self.lctui.config), id="tasks")
                yield Static("enter: tick · space: parameters", id="task-detail")
            with Vertical(id="lengths-panel", classes="panel") as lengths:
                lengths.border_title = "Lengths (F4)"
                yield TickList[int](
                    *(Selection(format_length(n), n, n in choices.lengths) for n in LENGTH_CHOICES),
                    id="lengths",
                )
                yield Static("", id="length-note")
                with Horizontal(classes="field"):
                    yield Label("n (F5)")
                    yield OrderedInput(str(choices.n), type="integer", id="n", compact=True)
                with Horizontal(classes="field"):
                    yield Label("seed (F6)")
                    yield OrderedInput(str(choices.seed), type="integer", id="seed", compact=True)
                yield Label("count tokens with (F7)", classes="field")
                offered = {value for _, value in TOKENIZER_OPTIONS}
                picker = Select[str](
                    TOKENIZER_OPTIONS,
                    value=choices.tokenizer if choices.tokenizer in offered else TASK_DEFAULT,
                    allow_blank=False,
                    compact=True,
                    id="tokenizer",
                )
                picker.tooltip = TOKENIZER_HELP
                yield picker
        yield Static("", id="estimate")
        yield Static("", id="tokenizer-note")
        yield Static("", id="launch-error", classes="error-text")
        with Horizontal(id="start-row"):
            yield Button("Start", id="start", variant="primary", compact=True)
            background = TickBox("in background (F8)", id="background", compact=True)
            background.tooltip = (
                "The run goes on in a process of its own when lctui closes (`lctui run "
                "--detach`, the same command); its live view attaches to it"
            )
            yield background
            yield Label("ctrl+s starts · space/enter ticks")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#models").focus()
        self._restore(self.choices)
        self._update_lengths()
        self._update_estimate()
        self._update_tokenizer_note()
        self._load_costs()

    def _restore(self, choices: LaunchChoices) -> None:
        """Tick the remembered models and tasks and set their parameters; what is gone
        (a model no longer configured, a task without its data) is said, not guessed."""
        gone: list[str] = []
        models = self.query_one("#models", SelectionList)
        for name in choices.models:
            if name not in self.specs:
                try:
                    self._add_spec(url_spec(name) if is_url(name) else self._resolve(name))
                except UserInputError as exc:
                    gone.append(f"model {name}: {exc}")
                    continue
            models.select(name)
        tree = self.query_one(TaskTree)
        gone += tree.tick_remembered(choices.tasks)
        gone += tree.set_params(choices.params)
        if gone:
            self.notify(
                "Not restored from the last run:\n" + "\n".join(gone),
                title="Last choices changed",
                severity="warning",
            )

    def on_screen_resume(self) -> None:
        # Back from a run: it measured its models here, so the estimate can use it.
        if self.is_mounted:
            self._load_costs()

    def _load_costs(self) -> None:
        self.run_query(
            on_a_cursor(read_costs),
            group="costs",
            done=self._set_costs,
            # The estimate then goes without measurements, as on a new file.
            failed=lambda exc: None,
        )

    def _set_costs(self, measured: dict[ModelKey, ModelCost]) -> None:
        self.costs = measured
        self._update_estimate()

    # -- reading the choices ----------------------------------------------------------------

    def chosen_models(self) -> list[ModelSpec]:
        return [self.specs[name] for name in self.query_one("#models", SelectionList).selected]

    def chosen_tokenizer(self) -> str | None:
        """The run's `tokenizer` (None: the default, engine.plan.shared_default)."""
        value = self.query_one("#tokenizer", Select).value
        return None if value == TASK_DEFAULT or not isinstance(value, str) else value

    def chosen_lengths(self) -> list[int]:
        return sorted(self.query_one("#lengths", SelectionList).selected)

    def _number(self, field: str) -> int | Problem:
        """n or seed, as typed, if it is a whole number within bounds, else the problem."""
        return read_number(field, self.query_one(f"#{field}", Input).value)

    # -- reacting ---------------------------------------------------------------------------

    @on(SelectionList.SelectedChanged, "#models")
    def _models_changed(self) -> None:
        self._update_lengths()
        self._changed()

    @on(SelectionList.SelectedChanged, "#lengths")
    @on(Input.Changed, "#n, #seed")
    @on(Select.Changed, "#tokenizer")
    def _changed(self) -> None:
        self._update_estimate()
        self._update_tokenizer_note()
        self._recheck()

    @on(Tree.NodeSelected, "#tasks")
    def _task_selected(self, event: Tree.NodeSelected[TaskNode]) -> None:
        data = event.node.data
        if data is not None and data.kind == "param":
            self._edit_param(data)
        elif self.query_one(TaskTree).toggle(event.node):
            self._changed()

    @on(Tree.NodeHighlighted, "#tasks")
    def _task_highlighted(self, event: Tree.NodeHighlighted[TaskNode]) -> None:
        if event.node.data is not None:
            self.query_one("#task-detail", Static).update(describe_node(event.node.data))

    def _edit_param(self, node: TaskNode) -> None:
        """Open the editor on a task's parameter; keep what it returns."""
        if node.info is None or node.param is None:
            return
        tree = self.query_one(TaskTree)
        task, name = tree.listed_task(node.info.name), node.name
        changed = tree.overrides.get(task.name, {})
        current = changed.get(name, task.params[name])

        def check(raw: str) -> Any:
            others = {k: v for k, v in changed.items() if k != name}
            return check_param(task, others, name, raw)

        def edited(result: tuple[Any] | None) -> None:
            if result is not None:
                tree.set_param(task.name, name, result[0])
                self._changed()

        editor = ParamEditor(task.name, node.param, shown_value(current), check)
        self.app.push_screen(editor, edited)

    def _update_lengths(self) -> None:
        """Disable the lengths above the smallest window of the chosen models, with why."""
        lengths = self.query_one("#lengths", SelectionList)
        windows = {m.name: self.windows.get(m.name) for m in self.chosen_models()}
        options, notes = length_options(windows)
        dropped = []
        for index, option in enumerate(options):
            if not option.enabled and option.length in lengths.selected:
                dropped.append(format_length(option.length))
                lengths.deselect(option.length)
            lengths.replace_option_prompt_at_index(index, option.prompt)
            if option.enabled:
                lengths.enable_option_at_index(index)
            else:
                lengths.disable_option_at_index(index)
        if dropped:
            message = f"unticked {', '.join(dropped)}: above the window of a chosen model"
            notes.insert(0, f"! {message}")
            self.notify(message, title="Lengths unticked", severity="warning")
        self.query_one("#length-note", Static).update("\n".join(notes))

    def _update_estimate(self) -> None:
        models = [(m.name, m.backend) for m in self.chosen_models()]
        tasks = len(self.query_one(TaskTree).checked)
        lengths = self.chosen_lengths()
        n = self._number("n")
        line = self.query_one("#estimate", Static)
        if not (models and tasks and lengths):
            line.update(
                f"{plural(len(models), 'model')} x {plural(tasks, 'task')} x "
                f"{plural(len(lengths), 'length')}: tick one of each to see the cost"
            )
            return
        if isinstance(n, Problem):  # what is wrong with n, as soon as it is typed
            line.update(Content.styled(f"! {n.text}", "$text-warning"))
            return
        shown = estimate_line(models, tasks, lengths, n, self.costs)
        parts: list[str | tuple[str, str]] = [
            ("Estimate ", "bold"),
            (shown.duration, LEVEL_STYLES[shown.level]),
            f"  {shown.detail}",
        ]
        if shown.advice:
            parts.append((f"\nto finish in minutes: {shown.advice}", "$text-muted"))
        line.update(Content.assemble(*parts))

    def _update_tokenizer_note(self) -> None:
        """What the tokenizer choice costs a comparison of the ticked models."""
        text, warning = tokenizer_note(len(self.chosen_models()), self.chosen_tokenizer())
        note = self.query_one("#tokenizer-note", Static)
        note.update(f"! {text}" if warning else text)
        note.set_class(warning, "warning")
        note.display = bool(text)

    # -- adding a model ---------------------------------------------------------------------

    def _resolve(self, text: str) -> ModelSpec:
        """A configured or built-in model, or a checkpoint by path; raises UserInputError."""
        return resolve_model(text, self.lctui.config.models)

    def _add_spec(self, spec: ModelSpec) -> None:
        if spec.name not in self.specs:
            self.specs[spec.name] = spec
            self.windows[spec.name] = declared_window(spec)
            prompt = model_prompt(spec, self.windows[spec.name])
            self.query_one("#models", SelectionList).add_option(
                Selection(shown_line(prompt), spec.name)
            )

    @on(Input.Changed, "#add-model")
    def _add_model_edited(self) -> None:
        # What was said about the last text typed there no longer holds.
        if any(p.about.startswith("add:") for p in self.problems):
            kept = [p for p in self.problems if not p.about.startswith("add:")]
            self._show_problems(kept, notify=False)

    @on(Input.Submitted, "#add-model")
    async def _add_model(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text:
            return
        try:
            spec = url_spec(text) if is_url(text) else self._resolve(text)
        except UserInputError as exc:
            if is_url(text):
                title = "Invalid endpoint URL"
            elif Path(text).expanduser().exists():
                title = "Not a model checkpoint"
            else:
                title = "Model not found"
            self._show_problems([Problem(f"add:{text}", title, str(exc))])
            return
        self._add_spec(spec)
        self.query_one("#models", SelectionList).select(spec.name)
        event.input.value = ""
        self._show_problems([p for p in self.problems if not p.about.startswith("add:")])
        if spec.backend == "openai":
            problem = await self._endpoint_problem(spec)
            if problem is not None:
                self._show_problems([*self.problems, problem])

    async def _endpoint_problem(self, spec: ModelSpec) -> Problem | None:
        """Why an endpoint cannot be used now (run_options.checked_endpoint); its model
        keeps the name the server serves."""
        checked, problem = await checked_endpoint(spec)
        if spec.name in self.specs:
            self.specs[spec.name] = checked
        return problem

    # -- problems -----------------------------------------------------------------------------

    def _show_problems(self, problems: list[Problem], *, notify: bool = True) -> None:
        self.problems = problems
        line = self.query_one("#launch-error", Static)
        line.update("\n".join(f"✗ {p.text}" for p in problems))
        if problems and notify:
            text = "\n".join(p.text for p in problems)
            self.notify(text, title=notice_title(problems), severity="error")

    def _current_problems(self) -> list[Problem]:
        """What is wrong with the choices now, without asking endpoints."""
        models = self.chosen_models()
        return choice_problems(
            [m.name for m in models],
            len(self.query_one(TaskTree).checked),
            self.chosen_lengths(),
            (self._number("n"), self._number("seed")),
            {m.name: self.windows.get(m.name) for m in models},
        )

    def _recheck(self) -> None:
        """Keep in the error line only the problems that still hold (new ones wait for
        Start)."""
        if self.problems:
            chosen = {m.name for m in self.chosen_models()}
            kept = still_holding(self.problems, self._current_problems(), chosen)
            if kept != self.problems:
                self._show_problems(kept, notify=False)

    # -- starting -----------------------------------------------------------------------------

    @on(Button.Pressed, "#start")
    @on(Input.Submitted, "#n, #seed")
    async def _start_pressed(self) -> None:
        await self.action_start()

    def action_toggle_background(self) -> None:
        self.query_one("#background", TickBox).toggle()

    async def action_start(self) -> None:
        request = await self.validate()
        if request is None:
            return
        self._show_problems([])
        keep_choices(self._choices_now())
        if self.query_one("#background", TickBox).value:
            await self.lctui.start_background(request)
        else:
            self.lctui.start_run(request)

    def _choices_now(self) -> LaunchChoices:
        tree = self.query_one(TaskTree)
        n = self._number("n")
        seed = self._number("seed")
        return LaunchChoices(
            models=tuple(m.name for m in self.chosen_models()),
            tasks=tuple(tree.checked),
            params={task: dict(values) for task, values in tree.overrides.items()},
            lengths=tuple(self.chosen_lengths()),
            n=n if isinstance(n, int) else self.choices.n,
            seed=seed if isinstance(seed, int) else self.choices.seed,
            tokenizer=self.chosen_tokenizer(),
        )

    async def validate(self) -> RunRequest | None:
        """The RunRequest of the choices, or None after showing every problem."""
        problems = self._current_problems()
        for model in (m for m in self.chosen_models() if m.backend == "openai"):
            problem = await self._endpoint_problem(model)
            problems += [problem] if problem is not None else []
        models = self.chosen_models()  # endpoints with the names their servers serve
        n, seed = self._number("n"), self._number("seed")
        if problems or isinstance(n, Problem) or isinstance(seed, Problem):
            self._show_problems(problems)
            return None
        try:
            request = RunRequest(
                models=models,
                tasks=self.query_one(TaskTree).selected_tasks(),
                lengths=self.chosen_lengths(),
                n=n,
                seed=seed,
                tokenizer=self.chosen_tokenizer(),
            )
        except UserInputError as exc:  # the bounds of the whole run (core.bounds)
            self._show_problems([Problem("bounds", "Run too large", str(exc))])
            return None
        # The command that runs it headless (its parameters as --set), as its record keeps it.
        argv = request_argv(request, self.lctui.db_path, self.lctui.config.path)
        request.command.update(argv=argv, host=platform.node(), source="tui")
        return request
