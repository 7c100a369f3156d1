"""Prompt formats: chat template split around the user text, plain prompts, format choice."""

from __future__ import annotations

from typing import Any

import pytest

from helpers.example_factory import make_test_example
from lctui.backends.prompting import (
    ChatFormat,
    PlainFormat,
    choose_format,
    effective_format,
    make_request,
)
from lctui.core.errors import BackendError, UserInputError
from lctui.core.types import Example, GenerationConfig

USER_TEXT = "the secret number is 42 .\nwhat is the secret number ?"


def example(answer_prefix: str = "Answer:") -> Example:
    return make_test_example(
        example_id="ex1",
        task="niah",
        preamble="the ",
        context="secret number is 42 .\n",
        question="what is the secret number ?",
        answer_prefix=answer_prefix,
        gold=("42",),
        max_new_tokens=8,
    )


def test_chat_split_round_trips_the_template(make_tokenizer: Any) -> None:
    tokenizer = make_tokenizer()
    head, tail = ChatFormat(tokenizer).render(USER_TEXT, "")
    expected = tokenizer.apply_chat_template(
        [{"role": "user", "content": USER_TEXT}], tokenize=False, add_generation_prompt=True
    )
    assert head + USER_TEXT + tail == expected
    assert head == "<|im_start|>user\n"
    assert tail == "<|im_end|>\n<|im_start|>assistant\n"


def test_chat_answer_prefix_opens_the_assistant_turn(make_tokenizer: Any) -> None:
    head, tail = ChatFormat(make_tokenizer()).render(USER_TEXT, "Answer:")
    assert tail == "<|im_end|>\n<|im_start|>assistant\nAnswer:"
    assert head == "<|im_start|>user\n"


def test_chat_template_that_repeats_the_content_is_refused(make_tokenizer: Any) -> None:
    twice = "{% for m in messages %}{{ m['content'] }}|{{ m['content'] }}{% endfor %}"
    with pytest.raises(BackendError, match="2 times"):
        ChatFormat(make_tokenizer(twice))


def test_chat_without_template_is_a_clear_error(make_tokenizer: Any) -> None:
    with pytest.raises(BackendError, match="needs a tokenizer with a chat template"):
        choose_format("chat", make_tokenizer(chat_template=None))
    with pytest.raises(BackendError, match="plain"):
        choose_format("chat", None)


def test_plain_format() -> None:
    assert PlainFormat().render(USER_TEXT, "Answer:") == ("", "\n\nAnswer:")
    assert PlainFormat().render(USER_TEXT, "") == ("", "")


def test_plain_prompt_matches_example_render_plain() -> None:
    ex = example()
    request = make_request(ex, GenerationConfig(8), PlainFormat())
    assert request.prompt == ex.render_plain()
    assert request.messages == ()


@pytest.mark.parametrize(
    ("requested", "template", "expected"),
    [
        ("auto", True, ChatFormat),
        ("auto", False, PlainFormat),
        ("plain", True, PlainFormat),
        ("chat", True, ChatFormat),
    ],
)
def test_choose_format(requested: str, template: bool, expected: type, make_tokenizer: Any) -> None:
    tokenizer = make_tokenizer() if template else make_tokenizer(chat_template=None)
    assert isinstance(choose_format(requested, tokenizer), expected)


def test_unknown_format_names_the_choices() -> None:
    with pytest.raises(UserInputError, match="auto, chat, plain"):
        choose_format("chatml", None)


def test_config_format_wins_unless_auto() -> None:
    assert effective_format(GenerationConfig(8, prompt_format="plain"), "chat") == "plain"
    assert effective_format(GenerationConfig(8, prompt_format="auto"), "chat") == "chat"
    assert effective_format(GenerationConfig(8), "auto") == "auto"


def test_chat_request_fills_head_tail_and_messages(make_tokenizer: Any) -> None:
    ex = example()
    fmt = ChatFormat(make_tokenizer())
    request = make_request(ex, GenerationConfig(8), fmt)
    assert request.prompt == request.prompt_head + ex.user_text + request.prompt_tail
    assert request.prompt.endswith("<|im_start|>assistant\nAnswer:")
    assert request.messages == ({"role": "user", "content": ex.user_text},)
    assert request.answer_prefix == "Answer:"
    assert request.reference == ""
