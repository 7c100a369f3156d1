"""A Hugging Face tokenizer behind the core `Tokenizer` protocol, safe to share between threads."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any


class HFTokenizer:
    """A Hugging Face tokenizer behind the `Tokenizer` protocol (no special tokens added)."""

    def __init__(self, name: str, hf_tokenizer: Any) -> None:
        self.name = name
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
