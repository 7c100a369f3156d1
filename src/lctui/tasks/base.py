"""The task interface: a named, parameterised generator of examples at a token budget."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

from lctui.core.errors import UserInputError
from lctui.core.hashing import seed_from, stable_hash
from lctui.core.protocols import Tokenizer
from lctui.core.types import Example, ParamSpec, Span, TaskInfo
from lctui.tasks.budget import TEMPLATE_ALLOWANCE, Budget
from lctui.tasks.corpora import PROSE_VERSION
from lctui.tasks.datasets import DataProblem, DataSource
from lctui.tasks.params import check_value
from lctui.tasks.reach import Reach, any_length

UUID_PATTERN = r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"


@dataclass(frozen=True)
class Draft:
    """What a task builds before the common fields are filled in."""

    preamble: str
    context: str
    question: str
    gold: tuple[str, ...]
    tokens: int
    depth: float | None = None
    spans: tuple[Span, ...] = ()
    params: Mapping[str, Any] = field(default_factory=dict)  # effective params, if adjusted
    metadata: Mapping[str, Any] = field(default_factory=dict)
    # The example's own answer prefix (None: the task's), when it names what this
    # example asks (a key, a value); `prefix_tokens` of it are reserved in its budget.
    answer_prefix: str | None = None
    prefix_tokens: int = 0


def reserve_answer_prefix(budget: Budget, prefix: str, tokenizer: Tokenizer) -> tuple[Budget, int]:
    """`budget` with room kept for an example's own answer prefix, and that room in tokens.

    The template allowance covers the model's framing and a short task-wide prefix; a
    prefix that names the asked keys can be long (four keys, a UUID), so its tokens come
    out of the example's own budget, as in RULER, where the prefix counts in the length.
    Counted with the blank line a plain prompt puts before it.
    """
    tokens = tokenizer.count("\n\n" + prefix)
    return replace(budget, overhead=budget.overhead + tokens), tokens


class Task(ABC):
    """A task family member with its parameters; `generate` is deterministic."""

    category: ClassVar[str] = "synthetic"
    suite: ClassVar[str] = "ruler"
    metric: ClassVar[str] = "string_match_all"
    # What each parameter is and accepts (tasks.params); `with_params` checks overrides.
    param_specs: ClassVar[tuple[ParamSpec, ...]] = ()
    # The tokenizer the suite's paper counts lengths with (LIFBench: o200k_base); its
    # examples count with it unless the run names a tokenizer. None: the model's own.
    paper_tokenizer: ClassVar[str | None] = None
    # Whether examples are fitted to land just under the length (within the budget's
    # tolerance). False for a task whose original fixes its size instead (json_kv:
    # HELMET's pair counts per length); such a task still never exceeds the length.
    fills_budget: ClassVar[bool] = True
    # Parameters added after examples were stored, with the value that builds examples
    # as before: left out of the identity at that value, so those ids stay as they were.
    later_params: ClassVar[dict[str, Any]] = {}
    # Whether the task reads a dataset (tasks/datasets.py) rather than generating its
    # text; such a task builds only once `with_data` has bound it to a source.
    needs_data: ClassVar[bool] = False
    # How a model's prompts for this task are framed when neither the run nor the model
    # names a prompt_format ("auto": the chat template when the tokenizer has one).
    # "plain" where the original runs the task without the chat template (HELMET's
    # recall, RAG, re-ranking and ICL: use_chat_template False in its configs).
    prompt_format: ClassVar[str] = "auto"
    # The sampling temperature when the run names none: greedy, unless the original
    # samples (LongBench v2: 0.1).
    temperature: ClassVar[float] = 0.0
    data: DataSource | None = None

    def __init__(
        self,
        name: str,
        description: str,
        max_new_tokens: int,
        answer_prefix: str,
        params: Mapping[str, Any],
    ) -> None:
        self.name = name
        self.description = description
        self.max_new_tokens = max_new_tokens
        self.answer_prefix = answer_prefix
        self.params = dict(params)

    def with_params(self, overrides: Mapping[str, Any]) -> Task:
        """A copy with some parameters changed.

        Unknown names, values outside a parameter's declaration and combinations the
        task cannot build (`check_params`) are rejected with a UserInputError.
        """
        unknown = sorted(set(overrides) - set(self.params))
        if unknown:
            known = ", ".join(sorted(self.params)) or "none"
            raise UserInputError(
                f"task {self.name} has no parameter {', '.join(unknown)} (its parameters: {known})"
            )
        specs = {spec.name: spec for spec in self.param_specs}
        params = {**self.params}
        for name, value in overrides.items():
            params[name] = check_value(self.name, specs[name], value) if name in specs else value
        self.check_params(params)
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        clone.params = params
        return clone

    def with_data(self, source: DataSource | None) -> Task:
        """A copy that reads its dataset from `source` (itself for a task without data)."""
        if not self.needs_data:
            return self
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        clone.data = source
        return clone

    def unavailable(self) -> str | None:
        """Why the task cannot build examples now (its data is missing), with where to
        get it; None when it can."""
        return None

    def data_problems(self) -> tuple[DataProblem, ...]:
        """Lines of the task's data files that were skipped, each with file and line."""
        return ()

    def data_files(self) -> tuple[Path, ...]:
        """The files of its dataset the task finds in its source (present ones only,
        whether or not all it needs are there): what `lctui data` sizes and places."""
        return ()

    def data_reach(self, lengths: Sequence[int]) -> Reach:
        """Which of `lengths` the task's data fills, decided without tokenising whole
        corpora (tasks/reach.py); asked of a task that can run. A task that generates
        its text fills every length."""
        return any_length(lengths, "generated: any length")

    def check_params(self, params: Mapping[str, Any]) -> None:
        """Raise a UserInputError if `params` (each within its declared range) cannot
        work together; the default accepts every combination."""
        return None

    def answer_tokens(self, length: int) -> int:
        """Answer tokens reserved (and generated at most) at `length`.

        `max_new_tokens` by default; a task whose answers grow with the context
        (LIFBench MultiDoc) reserves less at short lengths so the context still fits.
        """
        return self.max_new_tokens

    def truncate(self, example: Example, max_prompt_tokens: int, tokenizer: Tokenizer) -> Example:
        """`example` cut to at most `max_prompt_tokens` (`--truncate`, when a length
        exceeds the model's window): the end of the context by default, as HELMET cuts;
        a task whose original cuts elsewhere (LongBench v2: the middle) says so here."""
        return truncate_example(example, max_prompt_tokens, tokenizer)

    def info(self) -> TaskInfo:
        return TaskInfo(
            name=self.name,
            category=self.category,
            suite=self.suite,
            description=self.description,
            metric=self.metric,
            max_new_tokens=self.max_new_tokens,
            params=tuple(self._param_info(k, v) for k, v in self.params.items()),
        )

    def _param_info(self, name: str, value: Any) -> ParamSpec:
        for spec in self.param_specs:
            if spec.name == name:
                return replace(spec, default=value)
        return ParamSpec(name, value, "")

    def generate(self, length: int, seed: int, index: int, tokenizer: Tokenizer) -> Example:
        """Build example `index` of this task at `length` tokens for `tokenizer`.

        The user text is fitted to `length` minus the answer reserve and the template
        allowance (TEMPLATE_ALLOWANCE, the same for every model), so the example and
        its id depend only on (task, params, length, seed, index, tokenizer): every
        model counting with the same tokenizer reads the same text.
        """
        identity = self._identity(length, seed, index, tokenizer.name)
        rng = random.Random(seed_from(*identity))
        answer_tokens = self.answer_tokens(length)
        budget = Budget(
            length=length, reserve=answer_tokens, overhead=TEMPLATE_ALLOWANCE, seed=seed
        )
        draft = self.build(rng, budget, tokenizer, index)
        # An example's own answer prefix is reserved with the template allowance: the
        # model's framing plus that prefix fit in `template_overhead`.
        overhead = TEMPLATE_ALLOWANCE + draft.prefix_tokens
        answer_prefix = self.answer_prefix if draft.answer_prefix is None else draft.answer_prefix
        return Example(
            example_id=stable_hash(*identity),
            task=self.name,
            category=self.category,
            suite=self.suite,
            length=length,
            seed=seed,
            index=index,
            tokenizer=tokenizer.name,
            params=dict(draft.params or self.params),
            preamble=draft.preamble,
            context=draft.context,
            question=draft.question,
            answer_prefix=answer_prefix,
            gold=draft.gold,
            max_new_tokens=answer_tokens,
            prompt_tokens=draft.tokens + overhead,
            template_overhead=overhead,
            depth=draft.depth,
            spans=draft.spans,
            metadata={
                "metric": self.metric,
                "scorer": "recall",
                # What of template_overhead is the example's own answer prefix (the rest
                # is the allowance every example of this lctui reserves).
                **({"prefix_tokens": draft.prefix_tokens} if draft.prefix_tokens else {}),
                **draft.metadata,
            },
        )

    def example_id(self, length: int, seed: int, index: int, tokenizer: str) -> str:
        """The id `generate` would give, without building the example (for resume)."""
        return stable_hash(*self._identity(length, seed, index, tokenizer))

    def context_key(self, length: int, seed: int, index: int, tokenizer_name: str) -> str | None:
        """A name for the context example `index` shares with others (they share a long
        prompt prefix), without building it; None when its context is its own."""
        return None

    def reads_prose(self) -> bool:
        """Whether the examples are built from the prose corpus's sentences (their
        identity then names the corpus's PROSE_VERSION)."""
        return False

    def build_version(self, length: int) -> int:
        """The version of how the examples at `length` are built: 1 as they were first
        built; a task whose examples' text changed since returns a later one, named in
        their identity, so the new text is never stored or paired under the old id."""
        return 1

    def _identity(self, length: int, seed: int, index: int, tokenizer: str) -> tuple[object, ...]:
        later = self.later_params
        params = {k: v for k, v in self.params.items() if k not in later or later[k] != v}
        identity: tuple[object, ...] = (self.name, params, length, seed, index)
        identity = (*identity, tokenizer, TEMPLATE_ALLOWANCE)
        # Ids of examples built before the prose or the build was versioned stay as they were.
        if self.reads_prose():
            identity = (*identity, "prose", PROSE_VERSION)
        version = self.build_version(length)
        return (*identity, "build", version) if version > 1 else identity

    @abstractmethod
    def build(self, rng: random.Random, budget: Budget, tokenizer: Tokenizer, index: int) -> Draft:
        """Assemble preamble, context and question within `budget.target` tokens."""


def truncate_example(example: Example, max_prompt_tokens: int, tokenizer: Tokenizer) -> Example:
    """Cut the end of the context (never the instructions) so the prompt fits.

    Used when the user asks for `--truncate` and the length exceeds the model's
    window; the example keeps its id plus a suffix, and says it was truncated.
    `max_prompt_tokens` bounds the example's own count (`prompt_tokens`: the user text
    plus its template allowance), as engine/plan.py works it out from the window.
    """
    excess = example.prompt_tokens - max_prompt_tokens
    if excess <= 0:
        return example
    ids = tokenizer.encode(example.context)
    keep = max(0, len(ids) - excess - 2)
    context = tokenizer.decode(ids[:keep])
    while keep > 0:
        tokens = tokenizer.count(example.user_text.replace(example.context, context, 1))
        if tokens + example.template_overhead <= max_prompt_tokens:
            break
        keep = max(0, keep - max(1, (tokens + example.template_overhead - max_prompt_tokens)))
        context = tokenizer.decode(ids[:keep])
    else:
        tokens = tokenizer.count(example.preamble + example.question)
    spans = tuple(s for s in example.spans if s.end <= len(context))
    return replace(
        example,
        example_id=f"{example.example_id}-t{max_prompt_tokens}",
        context=context,
        prompt_tokens=tokens + example.template_overhead,
        spans=spans,
        truncated=True,
        metadata={**example.metadata, "truncated_from": example.prompt_tokens},
    )
