"""Running an Engine while its events are published, with viewers' controls wired in.

`run_published` is how `lctui run` runs (detached or not): the publisher listens on the
run's socket while the engine runs; a viewer's pause and resume go to the engine, and
its cancel (like SIGTERM) cancels the run as Ctrl-C does, keeping what finished. The
run's record ends as the run did: finished, cancelled, failed (with the error) or
nothing to do.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import platform
import signal
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from lctui.core.run_record import (
    CANCELLED,
    FAILED,
    NOTHING_TO_DO,
    RunRecord,
    new_run_id,
    socket_path,
)
from lctui.engine.plan import RunPlan, RunRequest
from lctui.engine.publish import EventPublisher
from lctui.engine.runner import Engine, RunOutcome
from lctui.store.db import MEMORY

# Signals that stop a published run as Ctrl-C does (SIGINT is asyncio.run's own).
STOP_SIGNALS = (signal.SIGTERM,)


def new_record(
    argv: Sequence[str], db: Path | str, run_id: str | None = None, log: str | None = None
) -> RunRecord:
    """The record of a run this process is about to make."""
    run_id = run_id or new_run_id()
    return RunRecord(
        run_id=run_id,
        pid=os.getpid(),
        host=platform.node(),
        db=str(db) if str(db) == MEMORY else str(Path(db).absolute()),
        argv=tuple(argv),
        cwd=os.getcwd(),
        started_at=time.time(),
        socket=str(socket_path(run_id)),
        log=log,
    )


async def run_published(
    engine: Engine,
    run: RunRequest | RunPlan,
    publisher: EventPublisher,
    say: Callable[[str], None] = lambda line: None,
) -> RunOutcome:
    """Run a request (or its plan) on `engine` (whose sink includes `publisher`) while
    publishing it.

    A socket that cannot be made is said (`say`) and the run goes on unpublished.
    """
    task = asyncio.ensure_future(engine.run(run, run_id=publisher.record.run_id))

    def control(op: str) -> None:
        if op == "pause":
            engine.pause()
        elif op == "resume":
            engine.resume()
        elif op == "cancel":
            task.cancel()

    publisher.control = control
    try:
        await publisher.start()
    except OSError as err:
        say(f"viewers cannot attach to this run: {err}")
        publisher.set_status(publisher.record.status, f"not published: {err}")
    loop = asyncio.get_running_loop()
    handled = []
    for signum in STOP_SIGNALS:
        with contextlib.suppress(ValueError, NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, task.cancel)  # the main thread only
            handled.append(signum)
    try:
        outcome = await task
    except asyncio.CancelledError:
        await publisher.close(CANCELLED)
        current = asyncio.current_task()
        if current is not None and getattr(current, "cancelling", lambda: 0)():
            raise  # Ctrl-C: asyncio.run says KeyboardInterrupt
        return RunOutcome(None, 0, 0, 0, 0, True)  # cancelled before the run had begun
    except BaseException as err:
        await publisher.close(FAILED, f"{type(err).__name__}: {err}")
        raise
    finally:
        for signum in handled:
            loop.remove_signal_handler(signum)
    ended = None  # a run that began says how it ended itself (RunFinished)
    if outcome.run_id is None:
        ended = CANCELLED if outcome.cancelled else NOTHING_TO_DO
    await publisher.close(ended)
    return outcome
