"""CPU-bound steps of the engine off the event loop, within a time limit.

Scoring an output and reading a judge's reply are plain Python over text a model
wrote. On the event loop they stop everything else while they run: no chunk
streams, no flush writes. So they run in a thread, and the engine waits at most
SCORING_LIMIT_S for them; past it, the output is scored 0 (unparsed) with the
reason "scoring took longer than N s".

A Python thread cannot be killed. Past the limit the engine only stops waiting:
the thread runs on to its end and its result is dropped (it is a daemon thread, so
it does not keep the process alive at exit). And a thread running C code that does
not release the GIL, a regular-expression match or the JSON decoder, holds up the
event loop all the same. So the limit is only a safety net: the scorers and
parsers themselves are linear in the output (scoring/extract.py, json_text.py,
judge.py, lifeval_*.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from typing import TypeVar, cast

from lctui.core.waiting import within

T = TypeVar("T")

# Seconds one output's scoring (or one judge reply's reading) may take. Linear scorers
# need well under a second for a 128K-token output; this only catches a runaway.
SCORING_LIMIT_S = 30.0


async def run_in_thread(work: Callable[[], T], limit_s: float) -> T:
    """`work()` in a daemon thread; asyncio.TimeoutError when it runs past `limit_s`."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(result: T | None, error: Exception | None) -> None:
        if future.done():  # the waiter gave up (timed out or was cancelled)
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(cast(T, result))

    def run() -> None:
        try:
            result, error = work(), None
        except Exception as exc:
            result, error = None, exc
        # RuntimeError: the loop closed while the work ran on past its limit.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=run, name="lctui-offloop", daemon=True).start()
    return await within(future, limit_s)
