"""The record of a run that publishes its events, and the progress summary a viewer reads.

Every `lctui run` keeps `<run_id>.json` in `runs_dir()`: which process runs it, on which
host, on which database, with which command, where its log and its socket are, and its
status. The file is written whole and renamed into place, so a reader never sees half
of one. The run updates it when it starts, waits for its file (a detached run whose
file another process writes), plans, and ends; a process that dies with kill -9 leaves
it at `starting`, `waiting` or `running`, which readers (engine/attach.py) tell apart
from a live run by the process id and the socket.
"""

from __future__ import annotations

import json
import os
import shlex
import time
import uuid
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from lctui.core.paths import make_runs_dir, runs_dir
from lctui.core.private import open_private

# A record's statuses, in the one vocabulary of core/statuses.py (its readers import
# them from here too).
from lctui.core.statuses import CANCELLED as CANCELLED
from lctui.core.statuses import ENDED as ENDED_STATUSES
from lctui.core.statuses import FAILED as FAILED
from lctui.core.statuses import FINISHED as FINISHED
from lctui.core.statuses import KILLED as KILLED
from lctui.core.statuses import NOTHING_TO_DO as NOTHING_TO_DO
from lctui.core.statuses import RUNNING as RUNNING
from lctui.core.statuses import STARTING as STARTING
from lctui.core.statuses import WAITING as WAITING


def new_run_id() -> str:
    """A run id: the local start time, then 6 hex digits (sorts by start time)."""
    return time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


@dataclass(frozen=True)
class RunRecord:
    """One publishing run, as `<run_id>.json` holds it."""

    run_id: str
    pid: int
    host: str
    db: str
    argv: tuple[str, ...]  # `lctui` arguments, as the command line gave them
    cwd: str  # where relative paths in `argv` are resolved
    started_at: float  # wall clock
    socket: str
    log: str | None = None  # the detached run's output; None for a run in a terminal
    status: str = STARTING
    ended_at: float | None = None
    to_do: int = 0  # generations the run planned to make
    done: int = 0
    errors: int = 0
    message: str | None = None  # why a run failed, or other last words
    # Output tokens per second over the time it generated, once it has ended (its mean).
    tokens_per_s: float | None = None

    @property
    def ended(self) -> bool:
        return self.status in ENDED_STATUSES or self.status == KILLED

    @property
    def command(self) -> str:
        """The command line, to show and to run again."""
        return " ".join(["lctui", *(shlex.quote(a) for a in self.argv)])

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["argv"] = list(self.argv)
        return data

    @classmethod
    def from_dict(cls, data: Any) -> RunRecord:
        """A record from its JSON form; ValueError naming what is wrong."""
        if not isinstance(data, dict):
            raise ValueError("a run record is a JSON object")
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}  # newer fields: ignored
        missing = {"run_id", "pid", "host", "db", "argv", "cwd", "started_at", "socket"}
        missing -= set(values)
        if missing:
            raise ValueError(f"a run record lacks {', '.join(sorted(missing))}")
        if not isinstance(values["argv"], list) or not all(
            isinstance(a, str) for a in values["argv"]
        ):
            raise ValueError("a run record's argv is a list of strings")
        values["argv"] = tuple(values["argv"])
        record = cls(**values)
        for name, kind in _TYPES.items():
            value = getattr(record, name)
            if not isinstance(value, kind) or isinstance(value, bool):
                raise ValueError(f"a run record's {name} is not a {kind}")
        return record

    def with_status(self, status: str, **changes: Any) -> RunRecord:
        ended = time.time() if status in ENDED_STATUSES else None
        return replace(self, status=status, ended_at=ended, **changes)


_TYPES: dict[str, Any] = {
    "run_id": str,
    "pid": int,
    "host": str,
    "db": str,
    "cwd": str,
    "started_at": (int, float),
    "socket": str,
    "status": str,
    "to_do": int,
    "done": int,
    "errors": int,
    "tokens_per_s": (int, float, type(None)),
}


def record_path(run_id: str, folder: Path | None = None) -> Path:
    return (folder or runs_dir()) / f"{run_id}.json"


def log_path(run_id: str, folder: Path | None = None) -> Path:
    return (folder or runs_dir()) / f"{run_id}.log"


def socket_path(run_id: str, folder: Path | None = None) -> Path:
    return (folder or runs_dir()) / f"{run_id}.sock"


def write_record(record: RunRecord) -> Path:
    """Write `record` to its file (mode 0600), whole: a temporary file renamed over it."""
    folder = make_runs_dir()
    path = record_path(record.run_id, folder)
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    with open_private(temporary) as out:
        json.dump(record.as_dict(), out, indent=1)
    os.replace(temporary, path)
    return path


def read_record(path: Path) -> RunRecord:
    """The record in `path`; OSError if it cannot be read, ValueError if it is not one."""
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"not JSON: {err}") from err
    return RunRecord.from_dict(data)


@dataclass(frozen=True)
class LiveProgress:
    """How far a live run is, as its publisher counts it: the first thing a viewer
    reads (`lctui runs` reads nothing else)."""

    to_do: int = 0  # generations the run has to make (those found stored taken out)
    skipped: int = 0  # found stored (resume)
    started: int = 0
    done: int = 0  # scored (ok or unparsed)
    errors: int = 0
    output_tokens: int = 0
    elapsed_s: float = 0.0  # since the run was planned
    # Over the last few seconds, and finished per second over the last minute; the
    # run's means once it has ended (core/measures.py).
    tokens_per_s: float | None = None
    examples_per_s: float | None = None
    paused: bool = False
    stalled: str | None = None  # the store's stall, said as StoreStalled.describe
    last_error: str | None = None
    viewers: int = 0
    planned: bool = False  # False while models load: nothing is counted yet

    @property
    def finished(self) -> int:
        return self.done + self.errors

    @property
    def remaining(self) -> int:
        return max(0, self.to_do - self.finished)

    @property
    def eta_s(self) -> float | None:
        """Seconds left at the recent rate of finished examples; None without one."""
        if not self.remaining:
            return 0.0 if self.planned else None
        if not self.examples_per_s:
            return None
        return self.remaining / self.examples_per_s

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> LiveProgress:
        if not isinstance(data, dict):
            raise ValueError("a progress summary is a JSON object")
        known = {f.name for f in fields(cls)}
        try:
            return cls(**{k: v for k, v in data.items() if k in known})
        except TypeError as err:
            raise ValueError(f"a progress summary is malformed: {err}") from err
