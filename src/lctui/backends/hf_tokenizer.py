"""A Hugging Face tokenizer behind the core `Tokenizer` protocol, safe to share between threads."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from typing import Any


def tokenizer_identity(hf_tokenizer: Any) -> str:
    """A name derived from the tokenizer's content ("hf-" + 12 hex digits).

    Example ids include the tokenizer's name, so naming it by content rather than by the
    model gives the same examples to every backend of one checkpoint (hf, vllm, a
    server with its local tokenizer): their runs then pair up for an A/B comparison.
    """
    backend = getattr(hf_tokenizer, "backend_tokenizer", None)
    if backend is not None and hasattr(backend, "to_str"):
        content = str(backend.to_str())
    else:  # a slow tokenizer: its vocabulary and special tokens
        vocab = sorted(hf_tokenizer.get_vocab().items())
        content = json.dumps([vocab, sorted(map(str, hf_tokenizer.all_special_tokens))])
    return "hf-" + hashlib.sha256(content.encode("utf-8")).hexdigest()[:12]


class HFTokenizer:
    """A Hugging Face tokenizer behind the `Tokenizer` protocol (no special tokens added).

    Its name is always `tokenizer_identity` of the tokenizer, never a model's name: one
    name per tokenizer, wherever it is loaded from.
    """

    def __init__(self, hf_tokenizer: Any) -> None:
        self.name = tokenizer_identity(hf_tokenizer)
        self.hf = hf_tokenizer
        # Fast tokenizers mutate their Rust state per call ("Already borrowed" across threads).
        self.lock = threading.Lock()

    def encode(self, text: str) -> list[int]:
        with self.lock:
            return list(self.hf.encode(text, add_special_tokens=False, verbose=False))

    def decode(self, ids: Sequence[int]) -> str:
        with self.lock:
            return str(self.hf.decode(list(ids)))

    def count(self, text: str) -> int:
        return len(self.encode(text))

    def count_batch(self, texts: Sequence[str]) -> list[int]:
        if not texts:
            return []
        with self.lock:
            encoded = self.hf(
                list(texts),
                add_special_tokens=False,
                return_attention_mask=False,
                return_token_type_ids=False,
                verbose=False,
            )
        return [len(ids) for ids in encoded["input_ids"]]

    def encode_prompt(self, prompt: str, *, templated: bool) -> list[int]:
        """Token ids the model reads: a chat template already holds its special tokens."""
        with self.lock:
            return list(self.hf.encode(prompt, add_special_tokens=not templated, verbose=False))
