"""Examples from an original's own inputs, sent as the original sends them.

Such an example (tasks/inputs/) names its framing in its metadata (core.types.FRAMING)
and holds the original's whole prompt as its user text. The run frames it in the one
prompt format that sends exactly that (`framed_format`: a plain prompt for a
completion, the chat template's one user turn for a user message), whatever the run
and the model would choose otherwise, and `check_framing` refuses, before any request,
a model whose backend would send it otherwise (a chat endpoint asked for a completion,
a model without chat template asked for a user message): a number next to a paper's
table must come from the paper's prompt.
"""

from __future__ import annotations

from collections.abc import Sequence

from lctui.core.errors import BackendError, UserInputError
from lctui.core.protocols import Backend
from lctui.core.types import (
    COMPLETION,
    FRAMING_FORMATS,
    Example,
    GenerationConfig,
    ModelSpec,
    Request,
    framing_of,
)


def framed_format(example: Example) -> str | None:
    """The prompt format an example from an original's inputs is sent in; None for
    lctui's own examples (their format is the run's, the model's or the task's)."""
    framing = _framing(example)
    return FRAMING_FORMATS[framing] if framing is not None else None


def check_framed_run(examples: Sequence[Example], prompt_format: str, truncate: bool) -> None:
    """Refuse a run that would change the prompts of examples from an original's inputs:
    another prompt format, or cutting them to a window."""
    framed = next((e for e in examples if _framing(e) is not None), None)
    if framed is None:
        return
    if prompt_format != "auto":
        raise UserInputError(
            f"--prompt-format {prompt_format}: examples from an original's inputs are sent "
            "as their original sends them (--input-option framing=... chooses how)"
        )
    if truncate:
        raise UserInputError(
            "--truncate: examples from an original's inputs run as they are, never cut; "
            "choose a model whose window holds them"
        )


def check_framing(spec: ModelSpec, backend: Backend, examples: Sequence[Example]) -> None:
    """Refuse `spec` when its backend would not send the examples' prompts as their
    framing says (one request built per framing, none sent). The gold pseudo-model
    answers whatever it is sent."""
    if spec.reference:
        return
    first: dict[str, Example] = {}
    for example in examples:
        framing = _framing(example)
        if framing is not None:
            first.setdefault(framing, example)
    for framing, example in first.items():
        config = GenerationConfig(
            max_new_tokens=example.max_new_tokens, prompt_format=FRAMING_FORMATS[framing]
        )
        try:
            sent = backend.build_request(example, config)
        except BackendError as err:  # a format the model cannot frame at all
            raise UserInputError(f"{_refusal(spec.name, framing)} ({err})") from None
        if not sends_as(sent, example.user_text, framing):
            raise UserInputError(_refusal(spec.name, framing))


def sends_as(request: Request, user_text: str, framing: str) -> bool:
    """Whether `request` sends `user_text` as `framing` says: alone as a completion, or
    as one user message (as messages, or templated locally for a completions endpoint)."""
    if framing == COMPLETION:
        return request.prompt == user_text and not request.messages
    if request.messages:
        return len(request.messages) == 1 and dict(request.messages[0]) == {
            "role": "user",
            "content": user_text,
        }
    return bool(request.prompt_head) and request.prompt == (
        request.prompt_head + user_text + request.prompt_tail
    )


def _framing(example: Example) -> str | None:
    try:
        return framing_of(example)
    except ValueError as err:
        raise UserInputError(str(err)) from None


def _refusal(model: str, framing: str) -> str:
    if framing == COMPLETION:
        return (
            f"model {model} would not send these inputs as plain completions, as their "
            "framing says: it applies a chat template (for the openai backend set "
            "endpoint = 'completions' and prompt_format = 'plain' in lctui.toml), or pass "
            "--input-option framing=user to send each prompt as one chat user message"
        )
    return (
        f"model {model} cannot send these inputs as one chat user message, as their framing "
        "says: it has no chat template (for the openai backend use endpoint = 'chat'), or "
        "pass --input-option framing=completion to send them as plain completions"
    )
