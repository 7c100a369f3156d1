"""The hf backend with the real embedded SmolLM2-135M-Instruct (slow: about a minute)."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from helpers.smollm2_examples import COUNTING, NEEDLE_TEXT
from helpers.smollm2_examples import smol_example as example
from lctui.core.errors import BackendError
from lctui.core.types import Chunk, GenerationConfig, Request

pytestmark = pytest.mark.slow


async def collect(backend: Any, request: Request) -> list[Chunk]:
    return [chunk async for chunk in backend.stream(request)]


def generate_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("lctui-hf-generate")]


def test_model_facts(smollm2: Any) -> None:
    assert smollm2.max_context == 8192
    assert smollm2.max_concurrency == 1
    assert smollm2.dtype == "bfloat16"
    # Named by content, so every backend of this checkpoint builds the same examples.
    assert smollm2.tokenizer.name.startswith("hf-") and len(smollm2.tokenizer.name) == 15


def test_tokenizer_counts_match_encode(smollm2: Any) -> None:
    tok = smollm2.tokenizer
    texts = [NEEDLE_TEXT, "  leading spaces", "", "Ünïcödé — 数字 7351", NEEDLE_TEXT * 50]
    counts = tok.count_batch(texts)
    assert counts == [len(tok.encode(t)) for t in texts]
    assert counts == [tok.count(t) for t in texts]
    assert counts[2] == 0
    assert tok.decode(tok.encode(NEEDLE_TEXT)) == NEEDLE_TEXT


async def test_short_generation_streams_chunks_then_finishes(smollm2: Any) -> None:
    ex = example(
        NEEDLE_TEXT * 3,
        "Write three short sentences about the sea.",
    )
    request = smollm2.build_request(ex, GenerationConfig(max_new_tokens=40))
    chunks = await collect(smollm2, request)
    text_chunks = [c for c in chunks if c.text]
    assert len(text_chunks) >= 3
    assert chunks[-1].finish_reason in ("stop", "length")
    assert all(c.finish_reason is None for c in chunks[:-1])
    assert 1 <= sum(c.tokens for c in chunks) <= 40
    assert "".join(c.text for c in chunks).strip()


async def test_prompt_tokens_are_what_the_model_reads(smollm2: Any) -> None:
    ex = example(NEEDLE_TEXT * 5, "What is the special magic number for Lisbon?", "Answer:")
    request = smollm2.build_request(ex, GenerationConfig(max_new_tokens=4))
    assert request.prompt.startswith("<|im_start|>")
    assert request.prompt.endswith("<|im_start|>assistant\nAnswer:")
    chunks = await collect(smollm2, request)
    reported = [c.prompt_tokens for c in chunks if c.prompt_tokens is not None]
    hf = smollm2.tokenizer.hf
    expected = len(hf(request.prompt, add_special_tokens=False)["input_ids"])
    assert reported == [expected]
    # Special tokens count once each, as the model sees them, not as their text.
    assert expected < len(hf(request.prompt, split_special_tokens=True)["input_ids"])
    estimate = smollm2.tokenizer.count(ex.user_text) + smollm2.template_overhead("Answer:")
    assert abs(estimate - expected) <= 2


async def test_generation_is_greedy_and_repeatable(smollm2: Any) -> None:
    ex = example(NEEDLE_TEXT, "What is the special magic number for Lisbon?", "Answer:")
    request = smollm2.build_request(ex, GenerationConfig(max_new_tokens=12))
    first = "".join(c.text for c in await collect(smollm2, request))
    second = "".join(c.text for c in await collect(smollm2, request))
    assert first == second


async def test_counting_prompt_runs_to_length(smollm2: Any) -> None:
    # Guards the cancellation test below: this prompt does not stop on its own.
    request = smollm2.build_request(
        example(COUNTING), GenerationConfig(max_new_tokens=16, prompt_format="plain")
    )
    chunks = await collect(smollm2, request)
    assert chunks[-1].finish_reason == "length"
    assert sum(c.tokens for c in chunks) == 16


async def test_stop_string_ends_the_output_before_it(smollm2: Any) -> None:
    config = GenerationConfig(max_new_tokens=16, prompt_format="plain")
    request = smollm2.build_request(example(COUNTING), config)
    full = "".join(c.text for c in await collect(smollm2, request))
    stop = full[len(full) // 2 : len(full) // 2 + 3]
    assert len(stop) == 3
    stopped_request = smollm2.build_request(
        example(COUNTING), GenerationConfig(16, stop=(stop,), prompt_format="plain")
    )
    chunks = await collect(smollm2, stopped_request)
    assert "".join(c.text for c in chunks) == full[: full.find(stop)]
    assert chunks[-1].finish_reason == "stop"


async def test_cancelling_the_task_stops_generation_promptly(smollm2: Any) -> None:
    request = smollm2.build_request(
        example(COUNTING), GenerationConfig(max_new_tokens=4000, prompt_format="plain")
    )
    first_chunk = asyncio.Event()
    received: list[Chunk] = []

    async def consume() -> None:
        async for chunk in smollm2.stream(request):
            received.append(chunk)
            first_chunk.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first_chunk.wait(), timeout=30)
    assert generate_threads(), "generation should be running in its worker thread"
    started = time.perf_counter()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    stopped_after = time.perf_counter() - started
    # A hang bound: 4,000 tokens at about 30 tok/s would take two minutes.
    assert stopped_after < 20.0
    assert not generate_threads()
    assert all(c.finish_reason is None for c in received)


async def test_closing_the_stream_stops_generation_promptly(smollm2: Any) -> None:
    request = smollm2.build_request(
        example(COUNTING), GenerationConfig(max_new_tokens=4000, prompt_format="plain")
    )
    stream = smollm2.stream(request)
    first = await stream.__anext__()
    assert first.finish_reason is None
    started = time.perf_counter()
    await stream.aclose()
    # A hang bound: the 4,000 tokens left would take minutes on these CPUs.
    assert time.perf_counter() - started < 20.0
    assert not generate_threads()
    # The model is free again at once.
    chunks = await asyncio.wait_for(
        collect(smollm2, smollm2.build_request(example(COUNTING), GenerationConfig(4))), 30
    )
    assert chunks[-1].finish_reason is not None


async def test_over_long_prompt_is_refused_with_the_numbers(smollm2: Any) -> None:
    request = smollm2.build_request(
        example(NEEDLE_TEXT * 40), GenerationConfig(max_new_tokens=7600)
    )
    with pytest.raises(BackendError) as info:
        await collect(smollm2, request)
    message = str(info.value)
    assert "8192" in message and "7600" in message and "592" in message
    assert not generate_threads()


async def test_generate_computes_logits_for_the_last_position_only(smollm2: Any) -> None:
    seen: list[Any] = []

    def record(module: Any, args: Any, kwargs: dict[str, Any]) -> None:
        seen.append(kwargs.get("logits_to_keep"))

    handle = smollm2.hf_model.register_forward_pre_hook(record, with_kwargs=True)
    try:
        request = smollm2.build_request(example(NEEDLE_TEXT * 10), GenerationConfig(3))
        await collect(smollm2, request)
    finally:
        handle.remove()
    assert seen
    assert all(value == 1 for value in seen)


def test_fingerprint_is_stable_across_reloads(smollm2: Any) -> None:
    from lctui.backends import load_backend, resolve_model

    again = load_backend(resolve_model("smollm2-135m", {}))
    assert again.fingerprint == smollm2.fingerprint
    asyncio.run(again.close())


async def test_cancelling_during_a_long_prefill_stops_promptly(smollm2: Any) -> None:
    """Cancelling mid-prefill leaves generate() within one decoder layer.

    Counted in layer calls, not seconds: on shared CPU cores one layer of a 7K-token
    prefill can take a second or more, so a wall-clock bound would be flaky.
    """
    if smollm2.device != "cpu":
        pytest.skip("a GPU finishes this prefill before the test can cancel it")
    # About 7K tokens: the prefill alone takes many seconds on a CPU.
    request = smollm2.build_request(example(NEEDLE_TEXT * 200), GenerationConfig(max_new_tokens=8))
    received: list[Chunk] = []
    layers = list(smollm2.hf_model.get_decoder().layers)
    calls = {"total": 0, "at_cancel": -1}

    def count(module: Any, args: Any) -> None:
        calls["total"] += 1

    # Registered after the abort hooks, so a layer the abort stops is not counted.
    handles = [layer.register_forward_pre_hook(count) for layer in layers]

    async def consume() -> None:
        async for chunk in smollm2.stream(request):
            received.append(chunk)

    try:
        task = asyncio.create_task(consume())
        deadline = time.perf_counter() + 60
        while calls["total"] < 2 and time.perf_counter() < deadline:
            await asyncio.sleep(0.05)
        assert 2 <= calls["total"] < len(layers), "cancel while the prefill is under way"
        assert not received, "still in the prefill"
        calls["at_cancel"] = calls["total"]
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    finally:
        for handle in handles:
            handle.remove()
    # At most the layer running at the moment of the cancel completes.
    assert calls["total"] - calls["at_cancel"] <= 1, calls
    assert not generate_threads()
