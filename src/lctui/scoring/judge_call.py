"""Calling a judge: its prompt as a bare Example and the streamed reply joined.

Talks to any model through the Backend protocol, so a hosted API, a vLLM engine or a
local hf model can judge alike (the prompts and the reading of replies are in
scoring/judge.py; caching and storage in engine/judging.py and store/judge_calls.py).
"""

from __future__ import annotations

import time

from lctui.core.hashing import stable_hash
from lctui.core.protocols import Backend
from lctui.core.types import Example, GenerationConfig
from lctui.scoring.judge import JudgePrompt, JudgeReply


def judge_example(prompt: JudgePrompt, tokenizer: str) -> Example:
    """A bare example whose user text is the judge prompt, for Backend.build_request."""
    return Example(
        example_id=f"judge-{prompt.role}-{stable_hash(prompt.text, length=12)}",
        task="judge",
        category="judge",
        suite="judge",
        length=0,
        seed=0,
        index=0,
        tokenizer=tokenizer,
        params={},
        preamble="",
        context=prompt.text,
        question="",
        answer_prefix="",
        gold=(),
        max_new_tokens=prompt.max_new_tokens,
        prompt_tokens=0,
    )


async def ask_judge(backend: Backend, prompt: JudgePrompt) -> JudgeReply:
    """Stream the judge's reply (greedy) and join it; token counts as the backend reports.

    Reading stops at the prompt's max_new_tokens even when a server ignores it.
    """
    config = GenerationConfig(max_new_tokens=prompt.max_new_tokens, temperature=0.0)
    request = backend.build_request(judge_example(prompt, backend.tokenizer.name), config)
    started = time.monotonic()
    parts: list[str] = []
    counted = 0
    prompt_tokens: int | None = None
    output_tokens: int | None = None
    stream = backend.stream(request)
    try:
        async for chunk in stream:
            if chunk.text and not chunk.restart and counted >= prompt.max_new_tokens:
                break  # more than was asked for: the server ignores max_new_tokens
            if chunk.restart:
                parts.clear()
                counted = 0
            parts.append(chunk.text)
            counted += chunk.tokens if chunk.text else 0
            if chunk.prompt_tokens is not None:
                prompt_tokens = chunk.prompt_tokens
            if chunk.output_tokens is not None:
                output_tokens = chunk.output_tokens
    finally:
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:  # an async generator: closing it aborts the request
            await aclose()
    if prompt_tokens is None:
        prompt_tokens = backend.tokenizer.count(request.prompt)
    return JudgeReply(
        "".join(parts),
        prompt_tokens,
        output_tokens if output_tokens is not None else counted,
        time.monotonic() - started,
    )
