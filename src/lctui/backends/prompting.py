"""Prompt formats: how a backend wraps an example's user text (chat template or plain).

Every format returns (head, tail) with prompt == head + user_text + tail, so the
inspector can map spans of the user text onto the exact prompt the model read.
"""

from __future__ import annotations

from typing import Any

from lctui.backends.hf_tokenizer import HFTokenizer
from lctui.core.backend_settings import PROMPT_FORMAT
from lctui.core.errors import BackendError, UserInputError
from lctui.core.protocols import PromptFormat
from lctui.core.types import Example, GenerationConfig, Request

PROMPT_FORMATS = PROMPT_FORMAT.choices

# Unlikely to occur in a template or to be split or escaped by one.
_SENTINEL = "LCTUI_USER_TEXT_SENTINEL_5F0C2A"


class PlainFormat:
    """No template: the user text, then a blank line and the answer prefix if there is one."""

    name = "plain"

    def render(self, user_text: str, answer_prefix: str) -> tuple[str, str]:
        return "", ("\n\n" + answer_prefix) if answer_prefix else ""


class ChatFormat:
    """A single user turn through the tokenizer's chat template, then the assistant header.

    The answer prefix opens the assistant's turn, so the model continues after it.
    """

    name = "chat"

    def __init__(self, hf_tokenizer: Any) -> None:
        if not has_chat_template(hf_tokenizer):
            raise BackendError(
                "prompt_format 'chat' needs a tokenizer with a chat template, and this one has "
                "none: use prompt_format 'plain' (or 'auto')"
            )
        self._tokenizer = hf_tokenizer
        self._head, self._tail = self._split()

    def _split(self) -> tuple[str, str]:
        rendered = self._tokenizer.apply_chat_template(
            [{"role": "user", "content": _SENTINEL}], tokenize=False, add_generation_prompt=True
        )
        if not isinstance(rendered, str):
            raise BackendError(f"the chat template rendered {type(rendered).__name__}, not text")
        found = rendered.count(_SENTINEL)
        if found != 1:
            # The template rewrites or repeats the content: no exact head/tail exists.
            raise BackendError(
                f"the chat template places the user text {found} times instead of once; "
                "use prompt_format 'plain' for this model"
            )
        head, tail = rendered.split(_SENTINEL)
        return head, tail

    def render(self, user_text: str, answer_prefix: str) -> tuple[str, str]:
        return self._head, self._tail + answer_prefix


def has_chat_template(hf_tokenizer: Any) -> bool:
    return bool(getattr(hf_tokenizer, "chat_template", None))


def check_prompt_format(value: str) -> str:
    if value not in PROMPT_FORMATS:
        raise UserInputError(
            f"unknown prompt_format {value!r}: use one of {', '.join(PROMPT_FORMATS)}"
        )
    return value


def choose_format(requested: str, hf_tokenizer: Any | None) -> PromptFormat:
    """Resolve "auto" | "chat" | "plain" for a tokenizer (None: no template available)."""
    check_prompt_format(requested)
    if requested == "plain":
        return PlainFormat()
    if requested == "auto" and (hf_tokenizer is None or not has_chat_template(hf_tokenizer)):
        return PlainFormat()
    if hf_tokenizer is None:
        raise BackendError(
            "prompt_format 'chat' needs a tokenizer with a chat template, and this model has "
            "none: use prompt_format 'plain' (or 'auto')"
        )
    return ChatFormat(hf_tokenizer)


def effective_format(config: GenerationConfig, model_default: str) -> str:
    """The config's format wins unless it is "auto", which defers to the model's setting."""
    requested = check_prompt_format(config.prompt_format)
    return check_prompt_format(model_default) if requested == "auto" else requested


def make_request(
    example: Example,
    config: GenerationConfig,
    fmt: PromptFormat,
    *,
    reference: str = "",
) -> Request:
    """Build the request for `example`: the exact prompt plus its head and tail."""
    head, tail = fmt.render(example.user_text, example.answer_prefix)
    is_chat = isinstance(fmt, ChatFormat)
    messages = ({"role": "user", "content": example.user_text},) if is_chat else ()
    return Request(
        example_id=example.example_id,
        config=config,
        prompt=head + example.user_text + tail,
        messages=messages,
        answer_prefix=example.answer_prefix,
        prompt_head=head,
        prompt_tail=tail,
        reference=reference,
    )


class PromptRenderer:
    """A model's prompts through its Hugging Face tokenizer (the `hf` and `vllm` backends).

    Holds the tokenizer, the formats resolved so far and the template overheads counted
    so far; the model's own `prompt_format` is what a config's "auto" defers to.
    """

    def __init__(self, hf_tokenizer: Any, prompt_format: str = "auto") -> None:
        self.prompt_format = check_prompt_format(prompt_format)
        self.tokenizer = HFTokenizer(hf_tokenizer)
        self._special_added = len(hf_tokenizer.encode("", add_special_tokens=True))
        self._formats: dict[str, PromptFormat] = {}
        self._overheads: dict[tuple[str, str], int] = {}
        self.format_for("auto")  # a model set to "chat" without a template fails now

    def format_for(self, requested: str) -> PromptFormat:
        """The prompt format for a config's `prompt_format` ("auto" defers to the model)."""
        resolved = effective_format(
            GenerationConfig(1, prompt_format=requested), self.prompt_format
        )
        if resolved not in self._formats:
            self._formats[resolved] = choose_format(resolved, self.tokenizer.hf)
        return self._formats[resolved]

    def template_overhead(self, answer_prefix: str, prompt_format: str = "auto") -> int:
        """Tokens the format adds around the user text, with what the tokenizer adds itself."""
        fmt = self.format_for(prompt_format)
        key = (type(fmt).__name__, answer_prefix)
        if key not in self._overheads:
            head, tail = fmt.render("", answer_prefix)
            added = 0 if isinstance(fmt, ChatFormat) else self._special_added
            self._overheads[key] = self.tokenizer.count(head) + self.tokenizer.count(tail) + added
        return self._overheads[key]

    def build_request(self, example: Example, config: GenerationConfig) -> Request:
        return make_request(example, config, self.format_for(config.prompt_format))

    def identity(self) -> tuple[str, str, int]:
        """What the prompt the model reads depends on, besides the weights (for fingerprints)."""
        hf_tokenizer = self.tokenizer.hf
        template = getattr(hf_tokenizer, "chat_template", None) or ""
        return self.prompt_format, template, len(hf_tokenizer)


class RendersPrompts:
    """Mixin for a backend whose prompts a `PromptRenderer` renders (set `self._prompts`)."""

    _prompts: PromptRenderer

    @property
    def tokenizer(self) -> HFTokenizer:
        return self._prompts.tokenizer

    @property
    def prompt_format(self) -> str:
        """The model's own prompt format, what a config's "auto" defers to."""
        return self._prompts.prompt_format

    def template_overhead(self, answer_prefix: str, prompt_format: str = "auto") -> int:
        """Tokens the format adds around the user text, with what the tokenizer adds itself."""
        return self._prompts.template_overhead(answer_prefix, prompt_format)

    def build_request(self, example: Example, config: GenerationConfig) -> Request:
        return self._prompts.build_request(example, config)
