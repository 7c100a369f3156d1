"""Fixtures for backend tests: a tiny random HF checkpoint and the real embedded SmolLM2."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# No hub on CI machines: a missing optional file must fail at once, not after a timeout.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
# As lctui.backends.hf does, in case a test imports torch before the backend does.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

WORDS = ["the", "secret", "number", "is", "what", "a", "blue", "cat", "sat", "on", "mat", "."]
CHATML = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def make_hf_tokenizer(chat_template: str | None = CHATML) -> Any:
    """A small word-level fast tokenizer with ChatML special tokens, built without files."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    specials = ["[UNK]", "<s>", "</s>", "<|im_start|>", "<|im_end|>"]
    vocab = {token: i for i, token in enumerate([*specials, *WORDS, "user", "assistant"])}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core,
        unk_token="[UNK]",
        bos_token="<s>",
        eos_token="</s>",
        additional_special_tokens=["<|im_start|>", "<|im_end|>"],
    )
    tokenizer.chat_template = chat_template
    return tokenizer


def make_tiny_checkpoint(path: Path, seed: int, chat_template: str | None = CHATML) -> Path:
    """A randomly initialised two-layer Llama with the tokenizer above (a few hundred KB)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    tokenizer = make_hf_tokenizer(chat_template)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.eos_token_id,
    )
    torch.manual_seed(seed)
    LlamaForCausalLM(config).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


@pytest.fixture(scope="session")
def make_tokenizer() -> Any:
    """`make_hf_tokenizer`, for tests (conftest modules are not imported by tests)."""
    return make_hf_tokenizer


@pytest.fixture(scope="session")
def tiny_checkpoints(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two checkpoints of one architecture that differ only in their weights."""
    root = tmp_path_factory.mktemp("tiny")
    return make_tiny_checkpoint(root / "a", seed=1), make_tiny_checkpoint(root / "b", seed=2)


@pytest.fixture(scope="session")
def smollm2() -> Iterator[Any]:
    """The real embedded model, loaded once per session (materialised on first ever use)."""
    from lctui.backends import load_backend, resolve_model

    backend = load_backend(resolve_model("smollm2-135m", {}))
    yield backend
    asyncio.run(backend.close())
