"""Prompt formats: how a backend wraps an example's user text (chat template or plain).

Every format returns (head, tail) with prompt == head + user_text + tail, so the
inspector can map spans of the user text onto the exact prompt the model read.
"""

from __future__ import annotations

from typing import Any

from lctui.core.errors import BackendError, UserInputError
from lctui.core.protocols import PromptFormat
from lctui.core.types import Example, GenerationConfig, Request

PROMPT_FORMATS = ("auto", "chat", "plain")

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
