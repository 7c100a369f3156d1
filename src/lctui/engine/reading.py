"""Reading one generation's stream from a backend: the text, its timing and its end.

The output is capped at the request's max_new_tokens (and at a generous number of
characters per token) even when a server ignores the limit: reading stops, and
leaving the stream closes it, which aborts the request.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass

from lctui.core.protocols import Backend
from lctui.core.types import Chunk, Request

# Output read past max_new_tokens * this many characters is cut like tokens past the cap:
# a token is rarely over 16 characters; a server that counts events, not tokens, for
# its deltas must not stream without bound.
MAX_CHARS_PER_TOKEN = 32


@dataclass(frozen=True)
class StreamRead:
    """What one stream gave: the output (the text since the last restart), the tokens
    (the server's count where it gave one), and why it ended."""

    output: str
    output_tokens: int
    prompt_tokens: int | None  # the server's count of the prompt, if it gave one
    ttft_s: float | None
    finish_reason: str | None
    error: str | None  # the request failed (after the backend's own retries)


async def read_stream(
    backend: Backend, request: Request, on_chunk: Callable[[Chunk], None]
) -> StreamRead:
    """Read `backend.stream(request)` to its end, or to the cap; `on_chunk` sees each
    chunk with text or a restart. A cancellation propagates (nothing is kept)."""
    started = time.monotonic()
    parts: list[str] = []
    ttft: float | None = None
    tokens = chars = 0
    prompt_tokens: int | None = None
    reported: int | None = None
    finish: str | None = None
    error: str | None = None
    cap = request.config.max_new_tokens
    stream = backend.stream(request)
    try:
        async for chunk in stream:
            over = tokens >= cap or chars >= cap * MAX_CHARS_PER_TOKEN
            if chunk.text and not chunk.restart and over:
                # More text than was asked for: the server ignores max_new_tokens and
                # could stream on for ever. Keep what was asked for.
                finish = "length"
                break
            if chunk.prompt_tokens is not None:
                prompt_tokens = chunk.prompt_tokens
            if chunk.output_tokens is not None:
                reported = chunk.output_tokens
            if chunk.finish_reason:
                finish = chunk.finish_reason
            if chunk.restart:  # the backend retried: the text so far is void
                parts.clear()
                tokens = chars = 0
            if chunk.text or chunk.restart:
                if ttft is None and chunk.text:
                    ttft = time.monotonic() - started
                parts.append(chunk.text)
                chars += len(chunk.text)
                tokens += chunk.tokens if chunk.text else 0
                on_chunk(chunk)
    except asyncio.CancelledError:
        raise  # unfinished work is not stored; a resume redoes it
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
    finally:
        await _close(stream)
    return StreamRead(
        "".join(parts), reported if reported is not None else tokens, prompt_tokens, ttft,
        finish, error,
    )  # fmt: skip


async def _close(stream: object) -> None:
    """Close a backend's stream (an async generator): a request still running is aborted."""
    aclose = getattr(stream, "aclose", None)
    if aclose is not None:
        with contextlib.suppress(Exception):
            await aclose()
