"""What a run will do: the work items (model x task x length x index) and their keys.

Keys are computed without building any example (ids are hashes of the inputs), so
resuming a 128K run skips stored work before paying for a single haystack.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from lctui.core.bounds import (
    check_length,
    check_n,
    check_seed,
    check_temperature,
    check_work_items,
)
from lctui.core.errors import UserInputError
from lctui.core.events import CellKey
from lctui.core.hashing import stable_hash
from lctui.core.lengths import format_length
from lctui.core.protocols import Backend, Tokenizer
from lctui.core.types import GenerationConfig, ModelSpec
from lctui.tasks.base import Task


@dataclass(frozen=True)
class RunRequest:
    """Everything a user asks for in one `lctui run` (or the TUI's Start)."""

    models: Sequence[ModelSpec]
    tasks: Sequence[Task]
    lengths: Sequence[int]
    n: int = 10
    seed: int = 0
    tokenizer: str | None = None  # a reference tokenizer instead of each model's own
    truncate: bool = False
    temperature: float = 0.0
    command: dict[str, object] = field(default_factory=dict)
    indices: Sequence[int] | None = None  # example indices to run; default range(n)
    retry_stored: bool = False  # run even keys already stored (a deliberate re-run)
    judge: ModelSpec | None = None  # an LLM judge for examples that ask for one
    judge_batch: bool = False  # judge through the OpenAI Batch API (openai judges)

    def __post_init__(self) -> None:
        """Refuse numbers outside core.bounds, so every way of starting a run
        (CLI, TUI, inspector re-run) checks the same bounds."""
        check_n(self.n)
        check_seed(self.seed)
        check_temperature(self.temperature)
        for length in self.lengths:
            check_length(length)
        models, tasks, lengths = len(self.models), len(self.tasks), len(self.lengths)
        per_cell = len(self.example_indices())
        check_work_items(
            models * tasks * lengths * per_cell,
            f"{models} model(s) x {tasks} task(s) x {lengths} length(s) x {per_cell:,}",
        )

    def example_indices(self) -> Sequence[int]:
        return self.indices if self.indices is not None else range(self.n)


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
    truncate_to: int | None  # prompt-token limit when the length exceeds the window
    context_key: str | None = None  # examples with the same key share a long prompt prefix


def generation_key(fingerprint: str, example_id: str, config_hash: str) -> str:
    return stable_hash(fingerprint, example_id, config_hash, length=24)


def generation_config(
    spec: ModelSpec, task: Task, temperature: float, length: int
) -> GenerationConfig:
    return GenerationConfig(
        max_new_tokens=task.answer_tokens(length),
        temperature=temperature,
        prompt_format=prompt_format(spec),
    )


def prompt_format(spec: ModelSpec) -> str:
    """How the model's prompts are framed: "auto" (chat template if any), "chat" or "plain"."""
    return str(spec.params.get("prompt_format", "auto"))


def check_window(spec: ModelSpec, backend: Backend, lengths: Sequence[int], truncate: bool) -> None:
    """Refuse lengths above the model's window unless truncation was asked for."""
    too_long = [n for n in lengths if n > backend.max_context]
    if too_long and not truncate:
        shown = ", ".join(format_length(n) for n in too_long)
        raise UserInputError(
            f"model {spec.name} has a window of {backend.max_context} tokens "
            f"({format_length(backend.max_context)}); the length(s) {shown} do not fit. "
            f"Choose lengths up to {format_length(backend.max_context)}, or pass --truncate "
            f"to cut the end of each context to fit (recorded per example)."
        )


def plan_items(
    request: RunRequest, spec: ModelSpec, backend: Backend, tokenizer: Tokenizer
) -> list[WorkItem]:
    """The work items of one model, in the order they should run.

    Examples that share a context (Task.context_key: all LIFBench instructions over one
    list or document) come back to back, across tasks, so a server's prefix cache hits;
    otherwise tasks come in the order asked and, within a task, lengths ascend.
    """
    items: list[WorkItem] = []
    for task in request.tasks:
        overhead = backend.template_overhead(task.answer_prefix, prompt_format(spec))
        for length in request.lengths:
            config = generation_config(spec, task, request.temperature, length)
            config_hash = stable_hash(config.as_dict())
            build_length, truncate_to = length, None
            if length > backend.max_context:
                truncate_to = backend.max_context - config.max_new_tokens
            for index in request.example_indices():
                example_id = task.example_id(length, request.seed, index, tokenizer.name, overhead)
                if truncate_to is not None:
                    example_id = f"{example_id}-t{truncate_to}"
                items.append(
                    WorkItem(
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
                        build_length=build_length,
                        truncate_to=truncate_to,
                        context_key=task.context_key(
                            length, request.seed, index, tokenizer.name, overhead
                        ),
                    )
                )
    return group_by_context(items)


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
