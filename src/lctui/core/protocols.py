"""Protocols that let layers meet without importing each other."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Protocol, runtime_checkable

from lctui.core.types import Chunk, Example, GenerationConfig, Request, ServerShare


@runtime_checkable
class Tokenizer(Protocol):
    """What the budget fitter needs from a tokenizer."""

    name: str

    def encode(self, text: str) -> list[int]: ...

    def decode(self, ids: Sequence[int]) -> str: ...

    def count(self, text: str) -> int: ...

    def count_batch(self, texts: Sequence[str]) -> list[int]: ...


class PromptFormat(Protocol):
    """Turns user text into the exact prompt a model reads."""

    def render(self, user_text: str, answer_prefix: str) -> tuple[str, str]:
        """Return (head, tail) such that prompt == head + user_text + tail."""
        ...


class Backend(Protocol):
    """A model adapter (docs/ARCHITECTURE.md, Layers: backends)."""

    fingerprint: str
    max_context: int
    max_concurrency: int

    @property
    def tokenizer(self) -> Tokenizer: ...

    def template_overhead(self, answer_prefix: str, prompt_format: str = "auto") -> int:
        """Tokens the prompt format adds around the user text (head, tail, answer prefix)."""
        ...

    def build_request(self, example: Example, config: GenerationConfig) -> Request: ...

    def stream(self, request: Request) -> AsyncIterator[Chunk]: ...

    async def close(self) -> None: ...


@runtime_checkable
class ReportsServers(Protocol):
    """A backend that spreads one model's requests over servers (the openai backend)."""

    def server_shares(self) -> tuple[ServerShare, ...]:
        """Each server's requests, answers, errors and latency so far, in its URL order."""
        ...
