"""Await with a time limit without losing a cancellation.

Before Python 3.12, `asyncio.wait_for` returns the result when it is cancelled just as
the awaited thing finishes, and the cancellation is lost: a Ctrl-C (or the TUI's
cancel) can then miss a worker, which goes on with the next item. `within` raises it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


async def within(awaitable: Awaitable[T], timeout_s: float) -> T:
    """The result of `awaitable`, or asyncio.TimeoutError (it is cancelled) after
    `timeout_s`; a cancellation of the caller always propagates (and cancels it)."""
    future = asyncio.ensure_future(awaitable)
    try:
        done, _ = await asyncio.wait({future}, timeout=timeout_s)
    except asyncio.CancelledError:
        future.cancel()
        raise
    if not done:
        future.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await future
        raise asyncio.TimeoutError
    return future.result()
