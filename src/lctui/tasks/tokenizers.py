"""Reference tokenizers (tiktoken `o200k_base`, `cl100k_base`) that work offline.

tiktoken downloads its vocabularies on first use, which fails without network. The
`quicktok-v1` package bundles the same vocabularies; we re-serialise them once into
tiktoken's own file format in its cache directory, where tiktoken verifies the
SHA-256 of the file itself, so a wrong conversion can never be used silently.
"""

from __future__ import annotations

import base64
import hashlib
import os
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from lctui.core.errors import MissingDependencyError, UserInputError
from lctui.core.paths import cache_dir

_SOURCES = {
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
}
REFERENCE_TOKENIZERS = tuple(_SOURCES)


class TiktokenTokenizer:
    """A tiktoken encoding behind the `Tokenizer` protocol."""

    # Byte-level BPE without normalisation: the bytes of a text's tokens are its UTF-8
    # bytes, so decoding them gives the text back (a lone surrogate, encoded as U+FFFD,
    # aside). suites/longbench/tasks/middle.py slices a kept text instead of decoding it.
    round_trips = True

    def __init__(self, name: str) -> None:
        if name not in _SOURCES:
            known = ", ".join(REFERENCE_TOKENIZERS)
            raise UserInputError(
                f"unknown tokenizer {name!r}: the reference tokenizers are {known}"
            )
        _ensure_offline_vocab(name)
        import tiktoken

        self.name = name
        self._enc = tiktoken.get_encoding(name)
        self._fast: Any = None

    def encode(self, text: str) -> list[int]:
        return self._enc.encode_ordinary(text)

    def decode(self, ids: Sequence[int]) -> str:
        return self._enc.decode(list(ids))

    def count(self, text: str) -> int:
        return len(self._enc.encode_ordinary(text))

    def count_batch(self, texts: Sequence[str]) -> list[int]:
        # quicktok reads the same vocabulary and counts a batch without building Python
        # lists; tiktoken's batch call pays a thread-pool submit per text. These counts
        # only steer the budget fit, whose verification uses tiktoken itself.
        import quicktok

        if self._fast is None:
            self._fast = quicktok.get_encoding(self.name)
        return [int(c) for c in quicktok.count_batch(self._fast, list(texts))]


@cache
def reference_tokenizer(name: str) -> TiktokenTokenizer:
    """Shared instance per name (loading a vocabulary takes about a second)."""
    return TiktokenTokenizer(name)


def _ensure_offline_vocab(name: str) -> None:
    target_dir = Path(os.environ.get("TIKTOKEN_CACHE_DIR") or cache_dir() / "tiktoken")
    os.environ["TIKTOKEN_CACHE_DIR"] = str(target_dir)
    target = target_dir / hashlib.sha1(_SOURCES[name].encode()).hexdigest()
    if target.exists():
        return
    try:
        import quicktok
    except ImportError as exc:
        raise MissingDependencyError(
            "quicktok-v1", "core", f"the offline {name} tokenizer"
        ) from exc
    enc = quicktok.get_encoding(name)
    lines = []
    rank = 0
    while True:
        try:
            if enc.is_special_token(rank):
                break
            token = enc.decode_single_token_bytes(rank)
        except (KeyError, ValueError, RuntimeError, IndexError):
            break
        lines.append(base64.b64encode(token) + b" " + str(rank).encode() + b"\n")
        rank += 1
        if rank > enc.max_token_value:
            break
    target_dir.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".tmp{os.getpid()}")
    tmp.write_bytes(b"".join(lines))
    tmp.replace(target)
