"""Attaching to a published run from another process, and listing the runs there are.

`AttachedRun.connect(socket)` reads the run's `Hello`; `read_replay` the events that
rebuild the run so far, and iterating it then gives its live events (core/events.py;
without `read_replay` the replay comes first), until the run ends, drops the viewer,
or vanishes (`ended_by` says which). `pause`, `resume` and `cancel` ask the run
to act; a run serving as many viewers as it will refuses the connection
(`ViewerRefused`, with words to print). `live_runs` reads the records in the runs
folder, newest first, and says `killed` of one whose process is gone although its
record was never closed (its stale socket is removed then); `current_record` reads one
record again.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import platform
from collections.abc import AsyncIterator
from pathlib import Path

from lctui.core.errors import UserInputError
from lctui.core.events import Event, RunFinished
from lctui.core.paths import runs_dir
from lctui.core.run_record import (
    KILLED,
    LiveProgress,
    RunRecord,
    read_record,
    record_path,
    write_record,
)
from lctui.core.wire import (
    Dropped,
    Hello,
    Refused,
    ReplayDone,
    WireError,
    decode_message,
    encode_control,
)
from lctui.engine import local_socket

CONNECT_TIMEOUT_S = 5.0
# How the connection of an AttachedRun ended.
RUN_ENDED, DROPPED, LOST = "run ended", "dropped", "lost"


class ViewerRefused(ConnectionError):
    """The run does not serve this viewer now (it serves as many as it will); the
    message says so and what to do."""


class AttachedRun:
    """A viewer's connection to a running run (see the module's docstring)."""

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, hello: Hello
    ) -> None:
        self._reader = reader
        self._writer = writer
        self.record: RunRecord = hello.record
        self.progress: LiveProgress = hello.progress
        self.replayed = asyncio.Event()  # set once the replay is over
        self.ended_by: str | None = None  # RUN_ENDED, DROPPED or LOST once over
        self.dropped_reason: str | None = None
        self._finished = False  # RunFinished was read

    @classmethod
    async def connect(cls, socket: str | Path, timeout: float = CONNECT_TIMEOUT_S) -> AttachedRun:
        """Connect and read the run's hello; OSError when no run answers there,
        ViewerRefused (an OSError) when it does not serve one more viewer."""
        reader, writer = await asyncio.wait_for(local_socket.connect(Path(socket)), timeout)
        try:
            line = await asyncio.wait_for(reader.readline(), timeout)
            hello = decode_message(line) if line else None
            if isinstance(hello, Refused):
                raise ViewerRefused(f"the run refused this viewer: {hello.reason}")
            if not isinstance(hello, Hello):
                raise ConnectionError(f"{socket} did not greet as a run does")
        except (asyncio.TimeoutError, WireError, ValueError) as err:
            writer.close()
            raise ConnectionError(f"{socket} did not answer as a run does: {err}") from err
        except BaseException:
            writer.close()
            raise
        return cls(reader, writer, hello)

    async def __aenter__(self) -> AttachedRun:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def __aiter__(self) -> AsyncIterator[Event]:
        return self._events()

    async def read_replay(self) -> list[Event]:
        """The events that bring a viewer to the run's present state, read at once;
        iterating afterwards gives the live ones. Empty when the connection ended."""
        events: list[Event] = []
        if self.replayed.is_set():
            return events
        async for event in self._events(until_replayed=True):
            events.append(event)
        return events

    async def _events(self, until_replayed: bool = False) -> AsyncIterator[Event]:
        while True:
            try:
                line = await self._reader.readline()
            except (ConnectionError, OSError, ValueError):
                line = b""
            if not line:
                self.ended_by = RUN_ENDED if self._finished else LOST
                return
            try:
                message = decode_message(line)
            except WireError:
                continue  # a line of a newer lctui: skipped, not fatal
            if isinstance(message, ReplayDone):
                self.replayed.set()
                if until_replayed:
                    return
            elif isinstance(message, Dropped | Refused):
                self.ended_by, self.dropped_reason = DROPPED, message.reason
                return
            elif isinstance(message, Hello):
                continue
            else:
                self._finished = self._finished or isinstance(message, RunFinished)
                yield message

    async def pause(self) -> None:
        await self._send("pause")

    async def resume(self) -> None:
        await self._send("resume")

    async def cancel(self) -> None:
        """Ask the run to stop: it keeps everything finished, as Ctrl-C does."""
        await self._send("cancel")

    async def _send(self, op: str) -> None:
        self._writer.write(encode_control(op))
        await self._writer.drain()

    async def close(self) -> None:
        self._writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await self._writer.wait_closed()


def live_runs(*, ended: bool = True) -> list[RunRecord]:
    """The runs recorded in the runs folder, newest first (`ended=False`: only those not
    ended). A record of this host whose process is gone and which was never closed is
    marked `killed` (in its file too), and its socket removed."""
    where = runs_dir()
    records: list[RunRecord] = []
    for path in sorted(where.glob("*.json")) if where.is_dir() else []:
        try:
            record = _checked(read_record(path))
        except (OSError, ValueError):
            continue  # half-removed, or not ours: not a run to list
        if ended or not record.ended:
            records.append(record)
    return sorted(records, key=lambda r: r.started_at, reverse=True)


def current_record(record: RunRecord) -> RunRecord:
    """`record` as its file says now (marked `killed` as `live_runs` marks it); when
    its file cannot be read (removed), `record` itself, killed if its process is gone."""
    try:
        return _checked(read_record(record_path(record.run_id, Path(record.socket).parent)))
    except (OSError, ValueError):
        return _checked(record, keep=False)


def _checked(record: RunRecord, keep: bool = True) -> RunRecord:
    """`killed`, if its process on this host is gone without having ended it (`keep`:
    said in its file too, and its stale socket removed)."""
    if not record.ended and record.host == platform.node() and not pid_alive(record.pid):
        record = record.with_status(KILLED)
        if keep:
            local_socket.remove(Path(record.socket))
            with contextlib.suppress(OSError):
                write_record(record)
    return record


def pid_alive(pid: int) -> bool:
    """Whether process `pid` runs (a zombie, dead but not yet reaped, does not)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: alive, though not this run's
    with contextlib.suppress(OSError, IndexError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    return True


def find_run(name: str | None, records: list[RunRecord]) -> RunRecord:
    """The run `name` names among `records` (an id, a unique prefix, or its last six
    characters); without a name, the only one not ended. UserInputError otherwise."""
    if name is None:
        going = [r for r in records if not r.ended]
        if len(going) == 1:
            return going[0]
        if not going:
            raise UserInputError(
                "no run is going; `lctui runs` lists recent runs, `lctui run --detach ...` "
                "starts one"
            )
        raise UserInputError(
            f"{len(going)} runs are going: name one ({', '.join(r.run_id for r in going)})"
        )
    exact = [r for r in records if r.run_id == name]
    if exact:
        return exact[0]
    matches = [r for r in records if r.run_id.startswith(name) or r.run_id.endswith(name)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise UserInputError(f"no run {name!r} in {runs_dir()}; `lctui runs` lists them")
    raise UserInputError(
        f"{name!r} names {len(matches)} runs: {', '.join(r.run_id for r in matches[:5])}"
    )
