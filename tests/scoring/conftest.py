"""Shared helpers for scoring tests: a factory that builds Examples directly."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from helpers.example_factory import make_test_example
from lctui.core.types import Example

NUMBER7 = r"\b\d{7}\b"


def build_example(
    gold: Sequence[str],
    metric: str = "string_match_all",
    *,
    value_pattern: str | None = NUMBER7,
    candidates: Sequence[str] | None = None,
    question: str = "What are all the special magic numbers mentioned in the text?",
    answer_prefix: str = "",
    **metadata: Any,
) -> Example:
    meta: dict[str, Any] = {"metric": metric, "scorer": "recall", **metadata}
    if value_pattern is not None:
        meta["value_pattern"] = value_pattern
    if candidates is not None:
        meta["candidates"] = candidates
    return make_test_example(
        task="niah_test",
        category="synthetic",
        length=4096,
        tokenizer="test",
        preamble="Some text.\n",
        context="haystack",
        question=question,
        answer_prefix=answer_prefix,
        gold=tuple(gold),
        max_new_tokens=128,
        prompt_tokens=4000,
        metadata=meta,
    )


@pytest.fixture
def make_example() -> Callable[..., Example]:
    return build_example
