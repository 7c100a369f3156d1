"""What the benches share: `concurrency` workers streaming a list of requests in order."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any

from lctui.core.types import Request


async def stream_all(backend: Any, requests: Sequence[Request], concurrency: int) -> float:
    """Stream every request to the end, `concurrency` at a time, in order; the seconds taken."""
    queue: asyncio.Queue[Request] = asyncio.Queue()
    for request in requests:
        queue.put_nowait(request)

    async def worker() -> None:
        while not queue.empty():
            request = queue.get_nowait()
            async for _ in backend.stream(request):
                pass

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return time.perf_counter() - started
