"""The second call of a two-call example (LongBench v2's chain of thought).

The first call reads the example's prompt and writes its reasoning; the second reads
the follow-up text the example declares (`FollowUp`: `before` + the reasoning +
`after`, without the long context) and gives the answer that is scored. The second
call is framed like the first (the same backend, prompt format and temperature), so a
chat model reads both as one user turn each, as the original sends them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from lctui.core.protocols import Backend
from lctui.core.types import CallRecord, Chunk, Example, FollowUp, GenerationConfig, Request
from lctui.engine.reading import StreamRead, read_stream

# Streamed to the live view between the two calls' texts (no tokens of the model's).
CALL_SEPARATOR = "\n\n"


def follow_up_of(example: Example) -> FollowUp | None:
    """The second call `example` declares, or None for a one-call example."""
    return FollowUp.of(example.metadata)


def follow_up_example(example: Example, follow_up: FollowUp, reasoning: str) -> Example:
    """The example the second call reads: the reasoning between `before` and `after`,
    with no context, no spans and the follow-up's answer limit. Its metadata is the
    example's (the gold pseudo-model echoes the same reference answer)."""
    return replace(
        example,
        preamble="",
        context="",
        question=follow_up.before + reasoning.strip() + follow_up.after,
        max_new_tokens=follow_up.max_new_tokens,
        spans=(),
        depth=None,
    )


def follow_up_config(config: GenerationConfig, follow_up: FollowUp) -> GenerationConfig:
    """The first call's settings with the follow-up's answer limit."""
    return replace(config, max_new_tokens=follow_up.max_new_tokens)


@dataclass(frozen=True)
class AnswerRead:
    """What the calls of one generation gave: the scored output and its end, the sums of
    their tokens, and each call (() for a one-call example)."""

    read: StreamRead
    calls: tuple[CallRecord, ...]


async def read_answer(
    backend: Backend,
    example: Example,
    request: Request,
    on_chunk: Callable[[Chunk], None],
) -> AnswerRead:
    """Read the example's answer: one stream, or for a two-call example the reasoning
    and then the answer call (not made when the first call failed: the generation is
    that error). The live view sees both calls' text, a blank line between them."""
    started = time.monotonic()
    first = await read_stream(backend, request, on_chunk)
    follow_up = follow_up_of(example)
    if follow_up is None or first.error is not None:
        return AnswerRead(first, ())
    first_prompt = first.prompt_tokens or example.prompt_tokens
    reasoning = CallRecord(
        role="reasoning",
        prompt="",
        output=first.output,
        prompt_tokens=first_prompt,
        output_tokens=first.output_tokens,
        ttft_s=first.ttft_s,
        latency_s=time.monotonic() - started,
        finish_reason=first.finish_reason,
    )
    second_request = backend.build_request(
        follow_up_example(example, follow_up, first.output),
        follow_up_config(request.config, follow_up),
    )
    on_chunk(Chunk(CALL_SEPARATOR, tokens=0))
    second_started = time.monotonic()
    second = await read_stream(backend, second_request, on_chunk)
    second_prompt = second.prompt_tokens or backend.tokenizer.count(second_request.prompt)
    answer = CallRecord(
        role="answer",
        prompt=second_request.prompt,
        output=second.output,
        prompt_tokens=second_prompt,
        output_tokens=second.output_tokens,
        ttft_s=second.ttft_s,
        latency_s=time.monotonic() - second_started,
        finish_reason=second.finish_reason,
    )
    combined = StreamRead(
        output=second.output,
        output_tokens=first.output_tokens + second.output_tokens,
        prompt_tokens=first_prompt + second_prompt,
        ttft_s=first.ttft_s,
        finish_reason=second.finish_reason,
        error=second.error,
    )
    return AnswerRead(combined, (reasoning, answer))
