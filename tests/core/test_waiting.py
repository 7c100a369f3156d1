"""`within`: a time limit that never loses the caller's cancellation (Ctrl-C)."""

from __future__ import annotations

import asyncio

import pytest

from lctui.core.waiting import within


async def test_a_cancellation_as_the_work_finishes_is_not_lost() -> None:
    """asyncio.wait_for (before 3.12) returns the result here and the cancel is gone."""
    future = asyncio.get_running_loop().create_future()
    waiter = asyncio.ensure_future(within(future, 10))
    await asyncio.sleep(0)  # the waiter waits on the future
    future.set_result(1)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter


async def test_the_result_or_a_timeout_that_cancels_the_work() -> None:
    assert await within(asyncio.sleep(0, result="done"), 1) == "done"
    slow = asyncio.ensure_future(asyncio.sleep(10))
    with pytest.raises(asyncio.TimeoutError):
        await within(slow, 0.01)
    assert slow.cancelled()
