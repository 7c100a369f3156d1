"""An `Example` for tests that build one by hand: neutral defaults, the fields that matter given."""

from __future__ import annotations

from typing import Any

from lctui.core.types import Example

DEFAULTS: dict[str, Any] = {
    "example_id": "ex-1",
    "task": "niah_single",
    "category": "retrieval",
    "suite": "ruler",
    "length": 1024,
    "seed": 0,
    "index": 0,
    "tokenizer": "o200k_base",
    "params": {},
    "preamble": "",
    "context": "",
    "question": "",
    "answer_prefix": "",
    "gold": (),
    "max_new_tokens": 32,
    "prompt_tokens": 0,
}


def make_test_example(**fields: Any) -> Example:
    return Example(**{**DEFAULTS, **fields})
