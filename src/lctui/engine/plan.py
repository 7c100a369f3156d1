"""What a run will do: the work items (model x task x length x index) and their keys.

Keys are computed without building any example (ids are hashes of the inputs), so
resuming a 128K run skips stored work before paying for a single haystack. Items are
planned lazily (`iter_items`, a generator): a run of any n starts at once and holds
only the items it is about to do, while `planned_cells` counts them without planning.

Every model that counts with the same tokenizer reads the same examples: an example
reserves a fixed template allowance (tasks.budget.TEMPLATE_ALLOWANCE) instead of the
model's own framing, so its id names no model. A run of several models that names no
tokenizer counts every example with `SHARED_TOKENIZER`, so that its models read the
same examples and their results pair (`RunRequest.counts_with`). The window is
checked per model: its prompt plus answer take `length - allowance + framing` tokens,
where `framing` is what its template adds (backend.template_overhead).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice

from lctui.core.backend_settings import PROMPT_FORMAT
from lctui.core.bounds import check_length, check_n, check_seed, check_temperature
from lctui.core.errors import UserInputError
from lctui.core.events import CellKey
from lctui.core.hashing import stable_hash
from lctui.core.lengths import format_length
from lctui.core.protocols import Backend, Tokenizer
from lctui.core.types import INPUT_TEMPERATURE, Example, GenerationConfig, ModelSpec
from lctui.engine.framing import check_framed_run, framed_format
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


def stored_length(example: Example) -> int:
    """The budget a stored example fills: its prompt as counted plus its answer reserve
    (its length, or less once truncated, so a truncated one is not cut again)."""
    return example.prompt_tokens + example.max_new_tokens


def window_need(length: int, allowance: int, framing: int) -> int:
    """Tokens a model's prompt and answer reserve take for an example built at `length`
    with `allowance` tokens reserved for the template, when its template takes `framing`."""
    return length - allowance + framing


@dataclass(frozen=True)
class _Target:
    """Something a model must fit: a length of a task, or a stored example."""

    task: str
    length: int
    answer_prefix: str
    allowance: int
    answer_tokens: int
    task_format: str  # Task.prompt_format
    framed: str | None = None  # the one format of an example from an original's inputs


def _targets(request: RunRequest) -> list[_Target]:
    if request.examples:
        return [
            _Target(
                e.task,
                stored_length(e),
                e.answer_prefix,
                e.template_overhead,
                e.max_new_tokens,
                _task_of(e.task, request.tasks).prompt_format,
                framed_format(e),
            )
            for e in request.examples
        ]
    return [
        _Target(t.name, n, t.answer_prefix, TEMPLATE_ALLOWANCE, t.answer_tokens(n), t.prompt_format)
        for t in request.tasks
        for n in request.lengths
    ]


def check_window(spec: ModelSpec, backend: Backend, request: RunRequest) -> None:
    """Refuse what does not fit the model's window, unless truncation was asked for.

    An example reserves `allowance` tokens for the template; the model's own takes
    `framing`, so at `length` its prompt and answer need `length - allowance + framing`.
    """
    if request.truncate:
        return
    window = backend.max_context
    over: dict[int, int] = {}  # length -> the most it needs there
    largest_fit: int | None = None
    framing_over: tuple[str, int, int] | None = None  # a task whose framing > its allowance
    framed = False  # an example from an original's inputs is over: it is never cut
    for target in _targets(request):
        fmt = target.framed or _format_of(spec, target.task_format, request.prompt_format)
        framing = backend.template_overhead(target.answer_prefix, fmt)
        need = window_need(target.length, target.allowance, framing)
        if need <= window:
            continue
        over[target.length] = max(need, over.get(target.length, 0))
        framed = framed or target.framed is not None
        fit = window + target.allowance - framing
        largest_fit = fit if largest_fit is None else min(largest_fit, fit)
        if framing > target.allowance and framing_over is None:
            framing_over = (target.task, framing, target.allowance)
    if not over:
        return
    shown = ", ".join(
        f"{format_length(n)} (prompt and answer: {need} tokens)" for n, need in sorted(over.items())
    )
    why = ""
    if framing_over is not None:
        task, framing, allowance = framing_over
        why = (
            f" Its prompt template takes {framing} tokens ({task}), more than the {allowance} "
            "every example reserves for one, so a length needs that much more room."
        )
    head = (
        f"model {spec.name} has a window of {window} tokens ({format_length(window)}); "
        f"the length(s) {shown} do not fit.{why}"
    )
    if framed:
        raise UserInputError(
            f"{head} Examples from an original's inputs run as they are (their prompt "
            "counted as the original counts it): choose a model with a larger window, or "
            f"inputs made for lengths up to {largest_fit} tokens."
        )
    raise UserInputError(
        f"{head} Choose lengths up to {largest_fit} tokens, "
        "or pass --truncate to cut the end of each context to fit (recorded per example)."
    )


def truncation_limit(
    backend: Backend, length: int, allowance: int, framing: int, answer_tokens: int
) -> int | None:
    """The limit on an example's prompt_tokens (user text + allowance) that makes the
    model's prompt (user text + framing) and answer fit its window; None when it fits."""
    if window_need(length, allowance, framing) <= backend.max_context:
        return None
    return backend.max_context - answer_tokens - framing + allowance


# Items grouped by context at a time: every item of a realistic run (a LIFBench set of
# 11 tasks x 6 lengths x 50 indices is 3,300) shares one window, so a context's
# questions still come back to back; a run of millions streams in windows.
PLAN_WINDOW = 4096


def plan_items(request: RunRequest, spec: ModelSpec, backend: Backend) -> list[WorkItem]:
    """Every work item of one model, in order (`iter_items`, all at once)."""
    return list(iter_items(request, spec, backend))


def iter_items(request: RunRequest, spec: ModelSpec, backend: Backend) -> Iterator[WorkItem]:
    """The work items of one model, in the order they should run, planned lazily.

    Examples that share a context (Task.context_key: all LIFBench instructions over one
    list or document) come back to back, across tasks, so a server's prefix cache hits;
    otherwise tasks come in the order asked and, within a task, lengths ascend.
    """
    items: Iterable[WorkItem] = (
        _prebuilt_items(request, spec, backend)
        if request.examples
        else _built_items(request, spec, backend)
    )
    for window in _windows(items, PLAN_WINDOW):
        yield from group_by_context(window)


def planned_cells(request: RunRequest, spec: ModelSpec) -> dict[CellKey, int]:
    """How many work items `iter_items` gives per cell, without planning them."""
    if request.examples:
        return dict(Counter(CellKey(spec.name, e.task, e.length) for e in request.examples))
    per_cell = len(request.example_indices())
    return {
        CellKey(spec.name, task.name, length): per_cell
        for task in request.tasks
        for length in request.lengths
    }


def _windows(items: Iterable[WorkItem], size: int) -> Iterator[list[WorkItem]]:
    iterator = iter(items)
    while window := list(islice(iterator, size)):
        yield window


def _built_items(request: RunRequest, spec: ModelSpec, backend: Backend) -> Iterator[WorkItem]:
    for task in request.tasks:
        fmt = prompt_format(spec, task, request.prompt_format)
        framing = backend.template_overhead(task.answer_prefix, fmt)
        name = counting_tokenizer(request.counts_with, task)
        tokenizer = reference_tokenizer(name) if name else backend.tokenizer
        for length in request.lengths:
            config = generation_config(
                spec, task, request.temperature, length, request.prompt_format
            )
            config_hash = stable_hash(config.as_dict())
            truncate_to = truncation_limit(
                backend, length, TEMPLATE_ALLOWANCE, framing, config.max_new_tokens
            )
            for index in request.example_indices():
                example_id = task.example_id(length, request.seed, index, tokenizer.name)
                if truncate_to is not None:
                    example_id = f"{example_id}-t{truncate_to}"
                yield WorkItem(
                    cell=CellKey(spec.name, task.name, length),
                    model=spec,
                    task=task,
                    length=length,
                    seed=request.seed,
                    index=index,
                    example_id=example_id,
                    gen_key=generation_key(backend.fingerprint, example_id, config_hash),
                    config=config,
                    config_hash=config_hash,
                    build_length=length,
                    truncate_to=truncate_to,
                    context_key=task.context_key(length, request.seed, index, tokenizer.name),
                    tokenizer=tokenizer,
                )


def _prebuilt_items(request: RunRequest, spec: ModelSpec, backend: Backend) -> list[WorkItem]:
    """Work items for stored examples: their ids are the stored ones (so their keys are
    those of the original generations on the same model), and nothing is rebuilt."""
    items: list[WorkItem] = []
    for example in request.examples:
        task = _task_of(example.task, request.tasks)
        fmt = framed_format(example) or prompt_format(spec, task, request.prompt_format)
        config = GenerationConfig(
            max_new_tokens=example.max_new_tokens,
            temperature=example_temperature(example, task, request.temperature),
            prompt_format=fmt,
        )
        config_hash = stable_hash(config.as_dict())
        framing = backend.template_overhead(example.answer_prefix, fmt)
        truncate_to = truncation_limit(
            backend,
            stored_length(example),
            example.template_overhead,
            framing,
            example.max_new_tokens,
        )
        example_id, tokenizer = example.example_id, None
        if truncate_to is not None:
            example_id = f"{example_id}-t{truncate_to}"
            tokenizer = _tokenizer_named(example.tokenizer, backend)
        items.append(
            WorkItem(
                cell=CellKey(spec.name, example.task, example.length),
                model=spec,
                task=task,
                length=example.length,
                seed=example.seed,
                index=example.index,
                example_id=example_id,
                gen_key=generation_key(backend.fingerprint, example_id, config_hash),
                config=config,
                config_hash=config_hash,
                build_length=example.length,
                truncate_to=truncate_to,
                context_key=task.context_key(
                    example.length, example.seed, example.index, example.tokenizer
                ),
                tokenizer=tokenizer,
                prebuilt=example,
            )
        )
    return items


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
