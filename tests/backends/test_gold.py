"""The gold pseudo-model streams each example's reference answer like a real backend."""

from __future__ import annotations

import dataclasses

import pytest

from helpers.example_factory import make_test_example
from lctui.backends import load_backend, resolve_model
from lctui.backends.gold import GoldBackend, reference_answer
from lctui.core.errors import BackendError
from lctui.core.types import Chunk, Example, GenerationConfig
from lctui.tasks.tokenizers import reference_tokenizer


def example(gold: tuple[str, ...], **metadata: str) -> Example:
    return make_test_example(
        example_id="ex-gold",
        task="niah_multivalue",
        preamble="Read the text.\n",
        context="The special magic numbers for cat are 311, 4096 and 77.\n" * 20,
        question="What are the special magic numbers for cat?",
        answer_prefix="Answer:",
        gold=gold,
        metadata=metadata,
    )


async def collect(backend: GoldBackend, ex: Example, config: GenerationConfig) -> list[Chunk]:
    return [chunk async for chunk in backend.stream(backend.build_request(ex, config))]


async def test_streams_every_gold_value_in_pieces() -> None:
    backend = GoldBackend()
    ex = example(("311", "4096", "77"))
    chunks = await collect(backend, ex, GenerationConfig(max_new_tokens=32))
    assert "".join(c.text for c in chunks) == "311, 4096, 77"
    assert len([c for c in chunks if c.text]) == 3
    assert [c.finish_reason for c in chunks] == [None, None, None, "stop"]
    assert sum(c.tokens for c in chunks) == backend.tokenizer.count("311, 4096, 77")


async def test_reports_prompt_tokens_once() -> None:
    backend = GoldBackend()
    ex = example(("311",))
    request = backend.build_request(ex, GenerationConfig(max_new_tokens=8))
    chunks = [chunk async for chunk in backend.stream(request)]
    reported = [c.prompt_tokens for c in chunks if c.prompt_tokens is not None]
    assert reported == [reference_tokenizer("o200k_base").count(request.prompt)]
    assert request.prompt == ex.render_plain()


async def test_prompt_overhead_is_the_answer_prefix_tail() -> None:
    backend = GoldBackend()
    ex = example(("311",))
    request = backend.build_request(ex, GenerationConfig(max_new_tokens=8))
    tok = backend.tokenizer
    estimate = tok.count(ex.user_text) + backend.template_overhead("Answer:")
    # BPE may merge across the seam ("?" + "\n\n"), so the sum is exact up to a token or two.
    assert abs(estimate - tok.count(request.prompt)) <= 2
    assert backend.template_overhead("Answer:") == tok.count("\n\nAnswer:")
    assert backend.template_overhead("") == 0


async def test_alternatives_give_the_first_answer() -> None:
    ex = example(("Paris", "paris, France"), gold_mode="any")
    assert reference_answer(ex) == "Paris"
    chunks = await collect(GoldBackend(), ex, GenerationConfig(max_new_tokens=8))
    assert "".join(c.text for c in chunks) == "Paris"


async def test_answer_longer_than_budget_ends_with_length() -> None:
    ex = example(tuple(str(n) for n in range(100, 140)))
    chunks = await collect(GoldBackend(), ex, GenerationConfig(max_new_tokens=10))
    assert chunks[-1].finish_reason == "length"
    assert sum(c.tokens for c in chunks) <= 10
    assert "".join(c.text for c in chunks).startswith("100, 101")


async def test_chat_config_still_gets_the_plain_prompt() -> None:
    ex = example(("311",))
    request = GoldBackend().build_request(ex, GenerationConfig(8, prompt_format="chat"))
    assert request.prompt == ex.render_plain()
    assert request.reference == "311"


async def test_prompt_over_the_context_is_refused() -> None:
    backend = GoldBackend()
    backend.max_context = 100
    with pytest.raises(BackendError, match="does not fit"):
        await collect(backend, example(("1",)), GenerationConfig(max_new_tokens=8))


def test_fingerprint_depends_on_tokenizer_only() -> None:
    assert GoldBackend("o200k_base").fingerprint == GoldBackend("o200k_base").fingerprint
    assert GoldBackend("o200k_base").fingerprint != GoldBackend("cl100k_base").fingerprint


def test_is_labelled_a_reference_and_loads_with_the_run_tokenizer() -> None:
    spec = resolve_model("gold", {})
    assert spec.reference is True
    assert spec.backend == "gold"
    backend = load_backend(spec, tokenizer="cl100k_base")
    assert backend.tokenizer.name == "cl100k_base"
    assert backend.max_concurrency == 8
    configured = dataclasses.replace(spec, params={"tokenizer": "cl100k_base"})
    assert load_backend(configured).tokenizer.name == "cl100k_base"
    assert load_backend(spec).tokenizer.name == "o200k_base"
