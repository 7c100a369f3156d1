"""The `gold` pseudo-model: streams each example's reference answer through the same pipeline.

It checks tasks, scorers and the engine end to end (a perfect model should score
1.0) and is labelled as a reference wherever it is listed (ModelSpec.reference).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Mapping
from typing import Any

from lctui.backends.prompting import PlainFormat, make_request
from lctui.core.backend_settings import typed_default
from lctui.core.errors import BackendError
from lctui.core.hashing import stable_hash
from lctui.core.types import Chunk, Example, GenerationConfig, Request
from lctui.tasks.tokenizers import TiktokenTokenizer, reference_tokenizer

DEFAULT_TOKENIZER = typed_default("gold", "tokenizer", str)
GOLD_MAX_CONTEXT = typed_default("gold", "max_context", int)
# Word-sized pieces, so the live view shows the answer arriving as a real model's would.
_PIECE = re.compile(r"\s*\S+|\s+")


def reference_answer(example: Example) -> str:
    """What a perfect model answers: every gold value, or the first one of alternatives.

    Recall scorers (RULER string_match_all, multi-value needles) need every value in
    the output, so by default the values are joined with ", ". Tasks whose golds are
    alternatives (QA answers scored by the best match, where extra values would cost
    precision) say so with metadata gold_mode = "any", and then the first one is used.
    Rubric tasks whose reference is one exact output string (LIFBench: quoting, JSON
    lists) say gold_mode = "exact" and give it as metadata "reference".
    """
    if not example.gold:
        return ""
    mode = _gold_mode(example.metadata)
    if mode == "exact" and isinstance(example.metadata.get("reference"), str):
        return str(example.metadata["reference"])  # LIFBench: the exact output string
    if mode == "any":
        return example.gold[0]
    return ", ".join(example.gold)


def _gold_mode(metadata: Mapping[str, Any]) -> str:
    mode = metadata.get("gold_mode", "all")
    return mode if mode in ("all", "any", "exact") else "all"


class GoldBackend:
    """Echoes Request.reference; prompts are plain and counted with a reference tokenizer.

    Every prompt_format gives the plain prompt: no model reads it, and the answer
    does not depend on it, so a task set to "chat" still gets its reference run.
    """

    max_concurrency = 8

    def __init__(
        self,
        tokenizer: str = DEFAULT_TOKENIZER,
        *,
        name: str = "gold",
        max_context: int = GOLD_MAX_CONTEXT,
    ) -> None:
        self.name = name
        # A smaller window lets a reference run stand in for a real model's limits
        # (refusal and --truncate) without loading one.
        self.max_context = max_context
        self._tokenizer = reference_tokenizer(tokenizer)
        self.fingerprint = stable_hash("gold", self._tokenizer.name)
        self._format = PlainFormat()

    @property
    def tokenizer(self) -> TiktokenTokenizer:
        return self._tokenizer

    def template_overhead(self, answer_prefix: str, prompt_format: str = "auto") -> int:
        head, tail = self._format.render("", answer_prefix)
        return self._tokenizer.count(head) + self._tokenizer.count(tail)

    def build_request(self, example: Example, config: GenerationConfig) -> Request:
        return make_request(example, config, self._format, reference=reference_answer(example))

    async def stream(self, request: Request) -> AsyncIterator[Chunk]:
        # Counting a 128K-token prompt takes tens of milliseconds: keep it off the loop.
        total = await asyncio.to_thread(self._tokenizer.count, request.prompt)
        room = self.max_context - request.config.max_new_tokens
        if total > room:
            raise BackendError(
                f"prompt of {total} tokens does not fit the gold pseudo-model's "
                f"{self.max_context} positions with {request.config.max_new_tokens} reserved"
            )
        prompt_tokens: int | None = total
        budget = request.config.max_new_tokens
        finish = "stop"
        for piece in _PIECE.findall(request.reference):
            tokens = self._tokenizer.count(piece)
            if tokens > budget:
                # A real model would have been cut here too.
                finish = "length"
                break
            budget -= tokens
            yield Chunk(piece, tokens=tokens, prompt_tokens=prompt_tokens)
            prompt_tokens = None
            await asyncio.sleep(0)
        yield Chunk("", tokens=0, finish_reason=finish, prompt_tokens=prompt_tokens)

    async def close(self) -> None:
        return None
