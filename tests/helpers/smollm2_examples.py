"""The prompts the SmolLM2 tests (hf and vllm backends) send."""

from __future__ import annotations

from helpers.example_factory import make_test_example
from lctui.core.types import Example

NEEDLE_TEXT = (
    "Many people keep notes about their day. The special magic number for Lisbon is 7351. "
    "Gardens need water in the summer, and bicycles need air in their tyres.\n"
)
# A plain continuation a small model keeps going for hundreds of tokens.
COUNTING = "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,"


def smol_example(
    context: str, question: str = "", answer_prefix: str = "", example_id: str = "ex-smol"
) -> Example:
    return make_test_example(
        example_id=example_id,
        task="niah_single",
        tokenizer="smollm2-135m",
        context=context,
        question=question,
        answer_prefix=answer_prefix,
        gold=("7351",),
    )
