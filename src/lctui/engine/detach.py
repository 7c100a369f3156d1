"""Starting a run that outlives its terminal: `lctui run --detach` (and the TUI's
"run in background").

The run is the same `lctui` command started again as a process of its own session
(setsid: no controlling terminal, so closing the terminal sends it no SIGHUP), reading
nothing (stdin from /dev/null), writing its output to `<run_id>.log` in the runs
folder. It learns its id and log from the environment (`RUN_ID_ENV`, `RUN_LOG_ENV`), so
its recorded command is the user's own, and publishes its events like any run.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from lctui.core.paths import make_runs_dir
from lctui.core.run_record import (
    RunRecord,
    log_path,
    new_run_id,
    record_path,
    socket_path,
    write_record,
)

RUN_ID_ENV = "LCTUI_RUN_ID"
RUN_LOG_ENV = "LCTUI_RUN_LOG"


def spawn_detached(
    argv: Sequence[str],
    db: Path,
    run_id: str | None = None,
    program: Sequence[str] | None = None,
) -> RunRecord:
    """Start `lctui ARGV` detached (see the module's docstring); its record at once.

    `argv` must not ask to detach again. `program`: what runs ARGV instead of this
    Python's `-m lctui` (the benches' stand-in model). The record is written here too, so the run is
    listed before the new process has imported anything; the run's own writes replace
    it (the first comes a second or more later, after Python has started).
    """
    run_id = run_id or new_run_id()
    folder = make_runs_dir()
    log = log_path(run_id, folder)
    env = {**os.environ, RUN_ID_ENV: run_id, RUN_LOG_ENV: str(log)}
    descriptor = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        process = subprocess.Popen(
            [*(program or (sys.executable, "-m", "lctui")), *argv],
            stdin=subprocess.DEVNULL,
            stdout=descriptor,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            close_fds=True,
            env=env,
        )
    finally:
        os.close(descriptor)
    record = RunRecord(
        run_id=run_id,
        pid=process.pid,
        host=platform.node(),
        db=str(Path(db).absolute()),
        argv=tuple(argv),
        cwd=os.getcwd(),
        started_at=time.time(),
        socket=str(socket_path(run_id, folder)),
        log=str(log),
    )
    if not record_path(run_id, folder).exists():  # the run has not written its own yet
        write_record(record)
    return record


def detached_identity() -> tuple[str | None, str | None]:
    """The run id and log a detached run was started with (None, None in a terminal);
    taken out of the environment, so that processes it starts do not inherit them."""
    return os.environ.pop(RUN_ID_ENV, None), os.environ.pop(RUN_LOG_ENV, None)
