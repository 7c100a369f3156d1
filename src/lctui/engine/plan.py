"""What a run will do, read once from its request (`plan_run`): the cells (model x task
x length) and their counts, what each task's examples count with, and per model
(`RunPlan.model`, once its backend is loaded) the budgets, the window check and the
keys of its work items (model x task x length x index).

Keys are computed without building any example (ids are hashes of the inputs), so
resuming a 128K run skips stored work before paying for a single haystack. Items are
planned lazily (`ModelPlan.items`, a generator): a run of any n starts at once and holds
only the items it is about to do, while `RunPlan.cells` counts them without planning.

Every model that counts with the same tokenizer reads the same examples: an example
reserves a fixed template allowance (tasks.budget.TEMPLATE_ALLOWANCE) instead of the
model's own framing, so its id names no model. A run of several models that names no
tokenizer counts every example with `SHARED_TOKENIZER`, so that its models read the
same examples and their results pair (`RunRequest.counts_with`). The window is
checked per model (engine/window.py): its prompt plus answer take
`length - allowance + framing` tokens, where `framing` is what its template adds
(backend.template_overhead).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import islice
from types import MappingProxyType

from lctui.core.backend_settings import PROMPT_FORMAT
from lctui.core.bounds import check_length, check_n, check_seed, check_temperature
from lctui.core.errors import UserInputError
from lctui.core.events import CellKey
from lctui.core.hashing import stable_hash
from lctui.core.protocols import Backend, Tokenizer
from lctui.core.types import INPUT_TEMPERATURE, Example, GenerationConfig, ModelSpec
from lctui.engine.framing import check_framed_run, check_framing, framed_format
from lctui.engine.window import Fit, refuse_over_window, stored_length, truncation_limit
from lctui.tasks import get_task
from lctui.tasks.base import Task
from lctui.tasks.budget import TEMPLATE_ALLOWANCE
from lctui.tasks.tokenizers import REFERENCE_TOKENIZERS, reference_tokenizer

# `--tokenizer model`: every task counts with each model's own tokenizer, also the
# tasks whose paper fixes one (Task.paper_tokenizer).
MODEL_TOKENIZER = "model"
TOKENIZER_CHOICES = (*REFERENCE_TOKENIZERS, MODEL_TOKENIZER)
# What the examples of a run of several models count with when it names no tokenizer:
# each model's own would build each model its own examples, and nothing would pair
# across them in a comparison. Gold's default too, so a reference run pairs with them.
SHARED_TOKENIZER = "o200k_base"


@dataclass(frozen=True)
class RunRequest:
    """Everything a user asks for in one `lctui run` (or the TUI's Start)."""

    models: Sequence[ModelSpec]
    tasks: Sequence[Task]
    lengths: Sequence[int]
    n: int = 10
    seed: int = 0
    # A reference tokenizer every example counts with, MODEL_TOKENIZER for each model's
    # own, or None: the default (`counts_with`): with one model, each task's paper
    # tokenizer where it has one, else the model's own; with several, SHARED_TOKENIZER.
    tokenizer: str | None = None
    truncate: bool = False
    # None: each task's own (Task.temperature: 0, or what its original decodes with).
    temperature: float | None = None
    command: dict[str, object] = field(default_factory=dict)
    indices: Sequence[int] | None = None  # example indices to run; default range(n)
    retry_stored: bool = False  # run even keys already stored (a deliberate re-run)
    judge: ModelSpec | None = None  # an LLM judge for examples that ask for one
    judge_batch: bool = False  # judge through the OpenAI Batch API (openai judges)
    # Stored examples to run exactly as they are (the inspector's re-runs): when given,
    # they are the run's work instead of tasks x lengths x indices, and none is rebuilt.
    examples: Sequence[Example] = ()
    # The prompt format of every model and task of the run; "auto" leaves it to each
    # model's prompt_format, then to each task's (Task.prompt_format).
    prompt_format: str = "auto"

    def __post_init__(self) -> None:
        """Refuse numbers outside core.bounds, so every way of starting a run
        (CLI, TUI, inspector re-run) checks the same bounds."""
        if self.prompt_format not in PROMPT_FORMAT.choices:
            raise UserInputError(
                f"unknown prompt format {self.prompt_format!r}: use one of "
                f"{', '.join(PROMPT_FORMAT.choices)}"
            )
        check_tokenizer_choice(self.tokenizer)
        check_framed_run(self.examples, self.prompt_format, self.truncate)
        check_n(self.n)
        check_seed(self.seed)
        if self.temperature is not None:
            check_temperature(self.temperature)
        for length in self.lengths:
            check_length(length)

    def example_indices(self) -> Sequence[int]:
        return self.indices if self.indices is not None else range(self.n)

    @property
    def counts_with(self) -> str | None:
        """The run's tokenizer choice with its default resolved (`shared_default`)."""
        return self.tokenizer if self.tokenizer is not None else shared_default(len(self.models))

    @property
    def reference_tokenizer(self) -> str | None:
        """The reference tokenizer of the whole run, if it has one (what gold counts with)."""
        counts_with = self.counts_with
        return counts_with if counts_with in REFERENCE_TOKENIZERS else None


def shared_default(models: int) -> str | None:
    """What a run of `models` models that names no tokenizer counts its examples with:
    SHARED_TOKENIZER for several (so they read the same examples), else None (each
    task's paper tokenizer where it has one, else the model's own)."""
    return SHARED_TOKENIZER if models > 1 else None


@dataclass(frozen=True)
class WorkItem:
    """One generation to do: which model reads which example, and its key."""

    cell: CellKey
    model: ModelSpec
    task: Task
    length: int
    seed: int
    index: int
    example_id: str
    gen_key: str
    config: GenerationConfig
    config_hash: str
    build_length: int  # the length the example is built at (before truncation)
    truncate_to: int | None  # limit on the example's prompt_tokens when it exceeds the window
    context_key: str | None = None  # examples with the same key share a long prompt prefix
    # Builds (or truncates) the example; None only for a prebuilt one left as it is.
    tokenizer: Tokenizer | None = None
    prebuilt: Example | None = None  # a stored example, run as it is (never rebuilt)


def generation_key(fingerprint: str, example_id: str, config_hash: str) -> str:
    return stable_hash(fingerprint, example_id, config_hash, length=24)


def generation_config(
    spec: ModelSpec, task: Task, temperature: float | None, length: int, run_format: str = "auto"
) -> GenerationConfig:
    return GenerationConfig(
        max_new_tokens=task.answer_tokens(length),
        temperature=task_temperature(task, temperature),
        prompt_format=prompt_format(spec, task, run_format),
    )


def task_temperature(task: Task, run_temperature: float | None) -> float:
    """The temperature `task` is sampled at: the run's when it names one, else the
    task's own (Task.temperature: 0, LongBench v2's 0.1 as its original samples)."""
    return task.temperature if run_temperature is None else run_temperature


def example_temperature(example: Example, task: Task, run_temperature: float | None) -> float:
    """A stored example's temperature: the run's when it names one, else the one its
    original decodes it at (an example from an original's inputs may name it), else
    its task's."""
    own = example.metadata.get(INPUT_TEMPERATURE)
    if run_temperature is None and isinstance(own, (int, float)) and not isinstance(own, bool):
        return float(own)
    return task_temperature(task, run_temperature)


def prompt_format(spec: ModelSpec, task: Task | None = None, run_format: str = "auto") -> str:
    """How the model's prompts for `task` are framed: "auto" (chat template if any),
    "chat" or "plain". The first that is not "auto" wins: the run's, the model's
    (`prompt_format` in lctui.toml), the task's (Task.prompt_format). The same format
    sets the request (the backend's build_request) and the framing the window and
    truncation count (backend.template_overhead), so both always agree."""
    return _format_of(spec, task.prompt_format if task is not None else "auto", run_format)


def counting_tokenizer(request_tokenizer: str | None, task: Task) -> str | None:
    """The reference tokenizer a task's examples count with in a run; None: the model's own.

    A tokenizer the user names wins; otherwise the one the task's paper counts with.
    """
    if request_tokenizer == MODEL_TOKENIZER:
        return None
    return request_tokenizer or task.paper_tokenizer


def check_tokenizer_choice(name: str | None) -> None:
    """Refuse an unknown `--tokenizer` before any model loads."""
    if name is not None and name not in TOKENIZER_CHOICES:
        raise UserInputError(
            f"unknown tokenizer {name!r}: use {', '.join(REFERENCE_TOKENIZERS)} (every model "
            f"counts with it), or {MODEL_TOKENIZER} (each model counts with its own)"
        )


# Items grouped by context at a time: every item of a realistic run (a LIFBench set of
# 11 tasks x 6 lengths x 50 indices is 3,300) shares one window, so a context's
# questions still come back to back; a run of millions streams in windows.
PLAN_WINDOW = 4096


@dataclass(frozen=True)
class CellPlan:
    """A task at a length on one model: what every item of its cell shares."""

    cell: CellKey
    task: Task
    length: int
    config: GenerationConfig
    config_hash: str
    truncate_to: int | None
    counts_with: str | None  # the reference tokenizer its examples count with; None: the model's


@dataclass(frozen=True)
class ModelPlan:
    """One model's part of a run: its cells (or the stored examples it reruns), their
    budgets and keys. Its items come lazily (`items`), so a run of any n starts at once."""

    spec: ModelSpec
    backend: Backend
    seed: int
    indices: Sequence[int]
    cells: tuple[CellPlan, ...] = ()
    stored: tuple[WorkItem, ...] = ()  # the items of stored examples, run as they are

    def items(self) -> Iterator[WorkItem]:
        """The work items in the order they should run.

        Examples that share a context (Task.context_key: all LIFBench instructions over
        one list or document) come back to back, across tasks, so a server's prefix
        cache hits; otherwise tasks come in the order asked and, within a task, lengths
        ascend.
        """
        items: Iterable[WorkItem] = self.stored if self.stored else self._built()
        for window in _windows(items, PLAN_WINDOW):
            yield from group_by_context(window)

    def _built(self) -> Iterator[WorkItem]:
        tokenizers: dict[str | None, Tokenizer] = {}
        for plan in self.cells:
            name = plan.counts_with
            if name not in tokenizers:  # loaded when its first item is planned
                tokenizers[name] = reference_tokenizer(name) if name else self.backend.tokenizer
            tokenizer = tokenizers[name]
            for index in self.indices:
                example_id = plan.task.example_id(plan.length, self.seed, index, tokenizer.name)
                if plan.truncate_to is not None:
                    example_id = f"{example_id}-t{plan.truncate_to}"
                yield WorkItem(
                    cell=plan.cell,
                    model=self.spec,
                    task=plan.task,
                    length=plan.length,
                    seed=self.seed,
                    index=index,
                    example_id=example_id,
                    gen_key=generation_key(self.backend.fingerprint, example_id, plan.config_hash),
                    config=plan.config,
                    config_hash=plan.config_hash,
                    build_length=plan.length,
                    truncate_to=plan.truncate_to,
                    context_key=plan.task.context_key(
                        plan.length, self.seed, index, tokenizer.name
                    ),
                    tokenizer=tokenizer,
                )


@dataclass(frozen=True)
class RunPlan:
    """A request read once (`plan_run`): what its examples count with, its cells and
    how many items each holds; each model's part (`model`) once its backend is loaded.
    The CLI's notes, the engine and its progress read it, never the request's rules."""

    request: RunRequest
    counts_with: str | None  # the run's tokenizer choice, its default resolved
    reference_tokenizer: str | None  # the whole run's reference tokenizer (gold's too)
    tasks: tuple[tuple[Task, str | None], ...]  # each task with what its examples count with
    cells: Mapping[CellKey, int]  # work items per cell, every model's

    def model(self, spec: ModelSpec, backend: Backend) -> ModelPlan:
        """The part of `spec` on its loaded backend: its budgets and keys, after the
        framing and the window are checked (refused with why before any generation)."""
        check_framing(spec, backend, self.request.examples)  # before the window counts it
        if self.request.examples:
            return self._stored_part(spec, backend)
        return self._built_part(spec, backend)

    def _built_part(self, spec: ModelSpec, backend: Backend) -> ModelPlan:
        request = self.request
        cells: list[CellPlan] = []
        fits: list[Fit] = []
        for task, counts_with in self.tasks:
            fmt = prompt_format(spec, task, request.prompt_format)
            framing = backend.template_overhead(task.answer_prefix, fmt)
            for length in request.lengths:
                config = generation_config(
                    spec, task, request.temperature, length, request.prompt_format
                )
                fit = Fit(task.name, length, TEMPLATE_ALLOWANCE, framing, config.max_new_tokens)
                fits.append(fit)
                cells.append(
                    CellPlan(
                        CellKey(spec.name, task.name, length),
                        task,
                        length,
                        config,
                        stable_hash(config.as_dict()),
                        truncation_limit(backend.max_context, fit),
                        counts_with,
                    )
                )
        self._check_window(spec, backend, fits)
        return ModelPlan(spec, backend, request.seed, request.example_indices(), tuple(cells))

    def _stored_part(self, spec: ModelSpec, backend: Backend) -> ModelPlan:
        stored = [self._stored_item(spec, backend, e) for e in self.request.examples]
        self._check_window(spec, backend, [fit for _, fit in stored])
        items = tuple(self._truncated(item, fit, backend) for item, fit in stored)
        return ModelPlan(spec, backend, self.request.seed, (), stored=items)

    def _check_window(self, spec: ModelSpec, backend: Backend, fits: Sequence[Fit]) -> None:
        if not self.request.truncate:  # else what is over is cut (truncation_limit)
            refuse_over_window(spec.name, backend.max_context, fits)

    def _stored_item(
        self, spec: ModelSpec, backend: Backend, example: Example
    ) -> tuple[WorkItem, Fit]:
        """A stored example's item (its id the stored one, so its key is that of the
        original generation on the same model; nothing is rebuilt) and what it must fit."""
        request = self.request
        task = _task_of(example.task, request.tasks)
        framed = framed_format(example)
        fmt = framed or prompt_format(spec, task, request.prompt_format)
        config = GenerationConfig(
            max_new_tokens=example.max_new_tokens,
            temperature=example_temperature(example, task, request.temperature),
            prompt_format=fmt,
        )
        config_hash = stable_hash(config.as_dict())
        fit = Fit(
            example.task,
            stored_length(example),
            example.template_overhead,
            backend.template_overhead(example.answer_prefix, fmt),
            example.max_new_tokens,
            framed is not None,
        )
        item = WorkItem(
            cell=CellKey(spec.name, example.task, example.length),
            model=spec,
            task=task,
            length=example.length,
            seed=example.seed,
            index=example.index,
            example_id=example.example_id,
            gen_key=generation_key(backend.fingerprint, example.example_id, config_hash),
            config=config,
            config_hash=config_hash,
            build_length=example.length,
            truncate_to=None,
            context_key=task.context_key(
                example.length, example.seed, example.index, example.tokenizer
            ),
            prebuilt=example,
        )
        return item, fit

    @staticmethod
    def _truncated(item: WorkItem, fit: Fit, backend: Backend) -> WorkItem:
        """A stored example's item cut to the window where it is over (asked for)."""
        truncate_to = truncation_limit(backend.max_context, fit)
        if truncate_to is None:
            return item
        assert item.prebuilt is not None
        example_id = f"{item.example_id}-t{truncate_to}"
        return replace(
            item,
            example_id=example_id,
            gen_key=generation_key(backend.fingerprint, example_id, item.config_hash),
            truncate_to=truncate_to,
            tokenizer=_tokenizer_named(item.prebuilt.tokenizer, backend),
        )


def plan_run(request: RunRequest) -> RunPlan:
    """The plan of `request`: the one place its tokenizer, cells and counts are worked
    out (each model's budgets and keys: RunPlan.model, once its backend is loaded)."""
    counts_with = request.counts_with
    if request.examples:
        cells = Counter(
            CellKey(spec.name, e.task, e.length)
            for spec in request.models
            for e in request.examples
        )
    else:
        per_cell = len(request.example_indices())
        cells = Counter(
            {
                CellKey(spec.name, task.name, length): per_cell
                for spec in request.models
                for task in request.tasks
                for length in request.lengths
            }
        )
    return RunPlan(
        request=request,
        counts_with=counts_with,
        reference_tokenizer=request.reference_tokenizer,
        tasks=tuple((task, counting_tokenizer(counts_with, task)) for task in request.tasks),
        cells=MappingProxyType(dict(cells)),
    )


def _windows(items: Iterable[WorkItem], size: int) -> Iterator[list[WorkItem]]:
    iterator = iter(items)
    while window := list(islice(iterator, size)):
        yield window


def _task_of(name: str, tasks: Sequence[Task]) -> Task:
    """The run's task of that name, else the registry's (a stored example's task)."""
    return next((t for t in tasks if t.name == name), None) or get_task(name)


def _format_of(spec: ModelSpec, task_format: str, run_format: str) -> str:
    model_format = str(spec.params.get("prompt_format", PROMPT_FORMAT.default))
    return next((f for f in (run_format, model_format, task_format) if f != "auto"), "auto")


def _tokenizer_named(name: str, backend: Backend) -> Tokenizer:
    """The tokenizer a stored example was counted with (to truncate it on this model)."""
    if name in REFERENCE_TOKENIZERS:
        return reference_tokenizer(name)
    if backend.tokenizer.name == name:
        return backend.tokenizer
    raise UserInputError(
        f"this example was counted with tokenizer {name}, which this model does not have, "
        "so it cannot be cut to the model's window: choose a model with a larger window"
    )


def group_by_context(items: Sequence[WorkItem]) -> list[WorkItem]:
    """Items sharing a context key moved up behind the first one with that key.

    Stable: groups come in the order of their first item, items keep their order
    within a group, and items without a key stay where they were relative to others.
    """
    groups: dict[object, list[WorkItem]] = {}
    for position, item in enumerate(items):
        key = item.context_key if item.context_key is not None else ("own", position)
        groups.setdefault(key, []).append(item)
    return [item for group in groups.values() for item in group]
