"""A reference tokenizer under a name of its own that records the texts it counts in
batches (the budget's unit counts): tests read from it how much of a row a build
tokenised. Its own name keeps the caches shared per tokenizer name (tasks/budget.py's
piece counts, summarization's document counts) from answering for it."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from lctui.tasks.tokenizers import reference_tokenizer


class CountingTokenizer:
    """o200k_base, recording every text passed to `count_batch`."""

    round_trips = True

    def __init__(self) -> None:
        self._inner = reference_tokenizer("o200k_base")
        self.name = f"o200k_base-counting-{uuid.uuid4().hex[:8]}"
        self.batched: list[str] = []

    def encode(self, text: str) -> list[int]:
        return self._inner.encode(text)

    def decode(self, ids: Sequence[int]) -> str:
        return self._inner.decode(ids)

    def count(self, text: str) -> int:
        return self._inner.count(text)

    def count_batch(self, texts: Sequence[str]) -> list[int]:
        self.batched += texts
        return self._inner.count_batch(texts)
