"""The hf backend on tiny random checkpoints: fingerprints, formats, streaming, cancellation."""

from __future__ import annotations

import asyncio
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from helpers.example_factory import make_test_example
from lctui.backends.fingerprint import checkpoint_identity
from lctui.backends.hf import HFBackend
from lctui.core.errors import BackendError, UserInputError
from lctui.core.types import Chunk, Example, GenerationConfig, Request


def example(text: str, answer_prefix: str = "") -> Example:
    return make_test_example(
        example_id="ex-tiny",
        task="t",
        category="c",
        suite="s",
        length=256,
        tokenizer="tiny",
        context=text,
        answer_prefix=answer_prefix,
        gold=("cat",),
        max_new_tokens=8,
    )


def generate_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("lctui-hf-generate")]


@pytest.fixture(scope="module")
def tiny(tiny_checkpoints: tuple[Path, Path]) -> HFBackend:
    return HFBackend(tiny_checkpoints[0], name="tiny", dtype="float32")


def test_fingerprint_tells_checkpoints_apart_and_survives_reload_and_copy(
    tiny_checkpoints: tuple[Path, Path], tmp_path: Path
) -> None:
    a, b = tiny_checkpoints
    first = HFBackend(a, dtype="float32").fingerprint
    assert HFBackend(a, dtype="float32").fingerprint == first
    assert HFBackend(b, dtype="float32").fingerprint != first
    assert HFBackend(a, dtype="bfloat16").fingerprint != first
    assert HFBackend(a, dtype="float32", prompt_format="plain").fingerprint != first
    copy = shutil.copytree(a, tmp_path / "elsewhere")
    assert HFBackend(copy, dtype="float32").fingerprint == first


def test_checkpoint_identity_sees_a_changed_weight(tmp_path: Path) -> None:
    weights = tmp_path / "model.safetensors"
    data = bytearray(range(256)) * 4096  # 1 MiB, sampled rather than read whole
    weights.write_bytes(bytes(data))
    before = checkpoint_identity(tmp_path)
    data[len(data) // 2] ^= 0xFF
    weights.write_bytes(bytes(data))
    assert checkpoint_identity(tmp_path) != before


def test_chat_without_template_is_an_error(tmp_path: Path, make_tokenizer: Any) -> None:
    from transformers import LlamaConfig, LlamaForCausalLM

    tokenizer = make_tokenizer(chat_template=None)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=64,
    )
    LlamaForCausalLM(config).save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    backend = HFBackend(tmp_path, dtype="float32")
    request = backend.build_request(example("the cat"), GenerationConfig(4))
    assert request.prompt == "the cat"
    with pytest.raises(BackendError, match="chat template"):
        backend.build_request(example("the cat"), GenerationConfig(4, prompt_format="chat"))
    with pytest.raises(BackendError, match="chat template"):
        HFBackend(tmp_path, dtype="float32", prompt_format="chat")


def test_bad_settings_are_user_errors(tiny_checkpoints: tuple[Path, Path]) -> None:
    with pytest.raises(UserInputError, match="dtype"):
        HFBackend(tiny_checkpoints[0], dtype="fp8")
    with pytest.raises(UserInputError, match="prompt_format"):
        HFBackend(tiny_checkpoints[0], prompt_format="chatml")


def test_missing_checkpoint_is_a_backend_error(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text('{"model_type": "llama"}')
    with pytest.raises(BackendError, match="cannot load"):
        HFBackend(tmp_path)


def test_template_overhead_adds_up_to_the_prompt(tiny: HFBackend) -> None:
    ex = example("the secret number is what", answer_prefix="the")
    request = tiny.build_request(ex, GenerationConfig(4))
    tok = tiny.tokenizer
    prompt_ids = tok.encode_prompt(request.prompt, templated=True)
    assert tok.count(ex.user_text) + tiny.template_overhead("the") == len(prompt_ids)
    plain = tiny.build_request(ex, GenerationConfig(4, prompt_format="plain"))
    plain_ids = tok.encode_prompt(plain.prompt, templated=False)
    assert tok.count(ex.user_text) + tiny.template_overhead("the", "plain") == len(plain_ids)


async def collect(backend: HFBackend, request: Request) -> list[Chunk]:
    return [chunk async for chunk in backend.stream(request)]


async def test_random_model_runs_to_length(tiny: HFBackend) -> None:
    # Random weights almost never pick the single EOS id among the vocabulary.
    request = tiny.build_request(example("the cat sat"), GenerationConfig(max_new_tokens=12))
    chunks = await collect(tiny, request)
    assert sum(c.tokens for c in chunks) == 12
    assert chunks[-1].finish_reason == "length"
    assert [c.finish_reason for c in chunks[:-1]] == [None] * (len(chunks) - 1)
    assert chunks[0].prompt_tokens == len(
        tiny.tokenizer.encode_prompt(request.prompt, templated=True)
    )


async def test_too_long_prompt_names_the_numbers(tiny: HFBackend) -> None:
    request = tiny.build_request(example("the cat " * 100), GenerationConfig(max_new_tokens=64))
    with pytest.raises(BackendError) as info:
        await collect(tiny, request)
    prompt_tokens = len(tiny.tokenizer.encode_prompt(request.prompt, templated=True))
    assert prompt_tokens > 192
    message = str(info.value)
    for number in (prompt_tokens, 256, 64, 192):
        assert str(number) in message


async def test_stream_does_not_block_the_event_loop(tiny: HFBackend) -> None:
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.005)

    task = asyncio.create_task(ticker())
    request = tiny.build_request(example("the cat sat"), GenerationConfig(max_new_tokens=100))
    start = time.perf_counter()
    await collect(tiny, request)
    elapsed = time.perf_counter() - start
    task.cancel()
    assert elapsed > 0.05
    # A loop blocked for the whole generation would tick once; no rate is asserted, so a
    # loaded machine cannot fail it.
    assert ticks >= 5


def test_checkpoint_identity_ignores_the_saving_environment(tmp_path: Path) -> None:
    for name, version in (("a", "5.23.0"), ("b", "5.30.1")):
        (tmp_path / name).mkdir()
        config = f'{{"hidden_size": 8, "transformers_version": "{version}"}}'
        (tmp_path / name / "config.json").write_text(config)
        (tmp_path / name / "model.safetensors").write_bytes(b"weights")
    assert checkpoint_identity(tmp_path / "a") == checkpoint_identity(tmp_path / "b")
    (tmp_path / "b" / "config.json").write_text('{"hidden_size": 16}')
    assert checkpoint_identity(tmp_path / "a") != checkpoint_identity(tmp_path / "b")
