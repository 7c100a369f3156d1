"""Plain data shared by every layer: examples, requests, generations, scores, specs.

Nothing here does I/O or imports a heavy dependency; every other layer speaks in
these types, so a change here is a change of the whole data flow (docs/ARCHITECTURE.md).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

JSONValue = Any  # values that survive json.dumps; kept loose on purpose


class ScoreStatus(str, enum.Enum):
    """How a score came about; only `ok` and `unparsed` enter means."""

    OK = "ok"
    UNPARSED = "unparsed"  # the answer could not be extracted: scores 0, counted apart
    ERROR = "error"  # the request failed: excluded from means, shown as an error


class GenerationStatus(str, enum.Enum):
    OK = "ok"
    ERROR = "error"
    CANCELLED = "cancelled"


@dataclass(frozen=True)
class Span:
    """A marked region of the context (needle, gold value) in character offsets."""

    start: int
    end: int
    kind: str  # "needle", "gold", "distractor", "demo"
    label: str = ""


@dataclass(frozen=True)
class Example:
    """One prompt with its reference answer, built deterministically to a token budget.

    `context` holds the long part, `question` the instruction after it; the task's
    `preamble` comes first. The plain prompt is preamble + context + question; the
    backend adds the chat template or the answer prefix (see `render_plain`).
    """

    example_id: str
    task: str
    category: str
    suite: str
    length: int  # target budget in tokens (prompt + reserved answer tokens)
    seed: int
    index: int
    tokenizer: str
    params: Mapping[str, JSONValue]
    preamble: str
    context: str
    question: str
    answer_prefix: str
    gold: tuple[str, ...]
    max_new_tokens: int
    prompt_tokens: int  # tokens of the user text + template_overhead, as built
    # Tokens the budget reserved for the model's template: the fixed allowance
    # (tasks.budget.TEMPLATE_ALLOWANCE), the same for every model; examples stored
    # before it hold the template size of the model they were built for.
    template_overhead: int = 0
    depth: float | None = None  # needle depth in percent of the context, if any
    spans: tuple[Span, ...] = ()
    truncated: bool = False
    metadata: Mapping[str, JSONValue] = field(default_factory=dict)

    @property
    def user_text(self) -> str:
        """The text of the user turn: everything the model reads, without answer prefix."""
        return self.preamble + self.context + self.question

    def render_plain(self) -> str:
        """Prompt for a model without chat template: the answer prefix is appended."""
        if not self.answer_prefix:
            return self.user_text
        return self.user_text + "\n\n" + self.answer_prefix


@dataclass(frozen=True)
class GenerationConfig:
    """Decoding settings; their hash is part of the generation key."""

    max_new_tokens: int
    temperature: float = 0.0
    top_p: float = 1.0
    stop: tuple[str, ...] = ()
    prompt_format: str = "auto"  # "auto" | "chat" | "plain"

    def as_dict(self) -> dict[str, JSONValue]:
        return dataclasses.asdict(self)


# The key of a generation's stored config that names the format its prompt was framed in
# ("chat" or "plain", as the backend resolved the config's prompt_format); not hashed.
FORMAT_USED = "prompt_format_used"
CHAT_FORMAT, PLAIN_FORMAT = "chat", "plain"


# An example read from an original benchmark's own input files (tasks/inputs/) names in
# its metadata how the original sends its prompt, FRAMING: COMPLETION (the model
# continues the user text as it is, no template) or USER_MESSAGE (the user text is one
# chat user message; the model's chat template applies). Its answer prefix is already
# part of the user text, so both are exactly the original's prompt; the run frames it
# in the matching prompt format (FRAMING_FORMATS) and no other.
FRAMING = "framing"
COMPLETION, USER_MESSAGE = "completion", "user"
FRAMING_FORMATS = {COMPLETION: PLAIN_FORMAT, USER_MESSAGE: CHAT_FORMAT}
# ... and, when its original decodes at a temperature of its own, that temperature.
INPUT_TEMPERATURE = "temperature"
# ... and, when the original scores an output with text in front of it (HELMET's eval.py
# puts the answer prefix before an output made without chat template), that text,
# OUTPUT_PREFIX; PARSE_PREFIX is the prefix the original's parser finds the answer line
# by. Without them lctui's scorers take the example's own answer prefix for both.
OUTPUT_PREFIX = "output_prefix"
PARSE_PREFIX = "parse_prefix"
# ... and, when two rows of the original may make the same prompt and the original runs
# and scores each (HELMET: depth variants of a question cut to the same text), what tells
# the rows apart (ROW_KEY: part of the id, so both run).
ROW_KEY = "row_key"


def framing_of(example: Example) -> str | None:
    """The framing an example from an original's inputs declares; None for lctui's own
    examples. ValueError when the metadata names one lctui does not know."""
    framing = example.metadata.get(FRAMING)
    if framing is None:
        return None
    if framing not in FRAMING_FORMATS:
        raise ValueError(
            f"example {example.example_id}: metadata {FRAMING!r} is {framing!r}; lctui knows "
            f"{', '.join(FRAMING_FORMATS)}"
        )
    return str(framing)


@dataclass(frozen=True)
class Request:
    """What a backend receives: either a chat message list or a plain prompt."""

    example_id: str
    config: GenerationConfig
    prompt: str  # the exact text the model reads (template applied, if any)
    messages: tuple[Mapping[str, str], ...] = ()  # for chat endpoints
    answer_prefix: str = ""  # appended after the assistant header in chat mode
    prompt_head: str = ""  # prompt == prompt_head + user_text + prompt_tail
    prompt_tail: str = ""
    reference: str = ""  # only the gold pseudo-model reads it


@dataclass(frozen=True)
class Chunk:
    """A piece of streamed output."""

    text: str
    tokens: int = 1
    finish_reason: str | None = None
    prompt_tokens: int | None = None  # reported once, by backends that know it
    # The server's count of generated tokens (usage), reported once at the end by
    # backends that know it; it replaces the sum of the chunks' `tokens`.
    output_tokens: int | None = None
    # True when a backend retried the request from scratch after streaming part of an
    # answer: the text received so far is void and the answer starts again with `text`.
    restart: bool = False


@dataclass
class Generation:
    """A finished (or failed) request."""

    generation_id: str
    gen_key: str
    run_id: str
    model_id: str
    example_id: str
    config_hash: str
    status: GenerationStatus
    output: str
    prompt_tokens: int
    output_tokens: int
    ttft_s: float | None
    latency_s: float
    finish_reason: str | None
    error: str | None
    started_at: float
    prompt_head: str = ""
    prompt_tail: str = ""
    # Every model call of a generation that takes more than one (LongBench v2's chain of
    # thought: a reasoning call, then an answer call); () for the usual single call.
    # `output` is the last call's, the one scored; the token counts and latency above
    # are the calls' sums, `ttft_s` the first call's.
    calls: tuple[CallRecord, ...] = ()


@dataclass(frozen=True)
class CallRecord:
    """One model call of a generation that takes several."""

    role: str  # "reasoning" | "answer"
    # The exact text the model read; "" for the first call, whose prompt is the
    # generation's own (prompt_head + the example's user text + prompt_tail).
    prompt: str
    output: str
    prompt_tokens: int
    output_tokens: int
    ttft_s: float | None
    latency_s: float
    finish_reason: str | None

    def as_dict(self) -> dict[str, JSONValue]:
        return dataclasses.asdict(self)


# An example whose metadata holds FOLLOW_UP is answered in two calls: the first reads
# the example's prompt and reasons; the second reads `before` + that reasoning + `after`
# (the context left out) and gives the answer that is scored, in at most
# `max_new_tokens` tokens (engine/follow_up.py).
FOLLOW_UP = "follow_up"


@dataclass(frozen=True)
class FollowUp:
    """The second call of a two-call example, as its metadata declares it."""

    before: str
    after: str
    max_new_tokens: int

    def as_dict(self) -> dict[str, JSONValue]:
        return dataclasses.asdict(self)

    @classmethod
    def of(cls, metadata: Mapping[str, JSONValue]) -> FollowUp | None:
        """The follow-up `metadata` declares, or None; ValueError when it is malformed."""
        declared = metadata.get(FOLLOW_UP)
        if declared is None:
            return None
        if not isinstance(declared, Mapping):
            raise ValueError(f"{FOLLOW_UP} must be an object, got {type(declared).__name__}")
        before, after, limit = (declared.get(k) for k in ("before", "after", "max_new_tokens"))
        if not isinstance(before, str) or not isinstance(after, str):
            raise ValueError(f"{FOLLOW_UP} needs the texts 'before' and 'after'")
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
            raise ValueError(f"{FOLLOW_UP} needs a positive integer 'max_new_tokens'")
        return cls(before, after, limit)


@dataclass(frozen=True)
class RubricPoint:
    """One scoring point: a weighted check with a fraction earned and an explanation."""

    name: str
    weight: float
    earned: float  # fraction in [0, 1] of the weight
    explanation: str
    capabilities: tuple[str, ...] = ()


@dataclass(frozen=True)
class Score:
    """A scorer's verdict on one generation."""

    scorer: str
    metric: str
    value: float | None  # None when status is error
    status: ScoreStatus
    extracted: tuple[str, ...]
    explanation: str
    points: tuple[RubricPoint, ...] = ()
    extras: Mapping[str, JSONValue] = field(default_factory=dict)
    # The version of the scorer's rules that made it (scoring/versions.py), stamped by
    # lctui.scoring; None for a score no lctui scorer made (a failed request, published
    # scores imported from an original harness).
    scorer_version: int | None = None


@dataclass(frozen=True)
class ModelSpec:
    """A model as the user declared it (config file, CLI or built-in)."""

    name: str
    backend: str  # "hf" | "gold" | "vllm" | "openai"
    path: str = ""  # local dir, file, or hub name
    params: Mapping[str, JSONValue] = field(default_factory=dict)
    description: str = ""
    reference: bool = False  # pseudo-models that echo the gold answer


@dataclass(frozen=True)
class ParamSpec:
    """A task parameter exposed to users (CLI `lctui tasks`, the TUI launch screen).

    `kind` and the bounds declare what values the task accepts (checked by
    `lctui.tasks.params.check_value` when a user sets the parameter):
    "int" and "number" lie within [low, high]; "choice" is one of `choices`;
    "numbers" is a list whose items are numbers within [low, high].
    """

    name: str
    default: JSONValue
    help: str
    kind: str = "any"  # "int" | "number" | "choice" | "numbers" | "any"
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()

    def allowed(self) -> str:
        """The accepted values in a few characters: `1..20`, `noise|essay`, `list of 0..100`."""
        if self.kind == "choice":
            return "|".join(self.choices)
        span = _span(self.low, self.high)
        if self.kind == "numbers":
            return f"list of {span}" if span else "list of numbers"
        return span


def _span(low: float | None, high: float | None) -> str:
    def show(x: float) -> str:
        return f"{x:g}" if isinstance(x, float) and not x.is_integer() else str(int(x))

    if low is None and high is None:
        return ""
    if high is None:
        return f">= {show(low)}" if low is not None else ""
    if low is None:
        return f"<= {show(high)}"
    return f"{show(low)}..{show(high)}"


@dataclass(frozen=True)
class TaskInfo:
    """Description of a task family member for listings."""

    name: str
    category: str
    suite: str
    description: str
    metric: str
    max_new_tokens: int
    params: tuple[ParamSpec, ...] = ()


# The key of a run's command (runs.command) under which the run's record keeps, per
# model, the ServerShare rows of its servers (written by the engine, read by lctui stats).
RUN_SERVERS = "servers"
# ... and under which it keeps how it was timed: {"machine": core.paths.machine_id(),
# "load_s": {model: seconds its backend took to load}} (the launch screen's estimate).
RUN_TIMING = "timing"
# ... and, for a run of an original's own input files (`lctui run --inputs`), every file
# it read: kind, path, SHA-256 digest, task, length and rows (tasks/inputs/).
RUN_INPUTS = "inputs"


@dataclass(frozen=True)
class ServerShare:
    """One server's part in a model's requests, for a model served from several base URLs
    (the openai backend's round-robin). Attempts count per server: a retry is an attempt
    of the server it went to, and an attempt its consumer gave up on is neither ok nor
    an error."""

    url: str
    requests: int  # attempts sent to it
    ok: int  # attempts it answered to the end
    errors: int  # attempts that failed there (retried elsewhere or not)
    in_flight: int
    latency_s: float | None  # mean seconds of its answered attempts
    ttft_s: float | None  # mean seconds to its first text, over the attempts that had one
    last_error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> ServerShare:
        """A share as `as_dict` wrote it (keys it does not know are left out)."""
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in row.items() if k in known})
