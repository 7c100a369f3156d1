"""Runs whose process is gone: `running` in the file, `interrupted` in fact.

A run killed with `kill -9`, or one whose last write failed (a full disk), cannot
record its end. The next read-write open of the file marks such runs `interrupted`
(mark_interrupted_runs), and readers that cannot write show them so (status_now).
A run is taken as still going when its process is alive (same host, recorded pid),
or, for runs without a pid (older files, other hosts), when some process holds the
file's writer claim (store/db.py::WriterClaim).
"""

from __future__ import annotations

import os
import platform

import duckdb

from lctui.core.statuses import INTERRUPTED


def process_alive(pid: int) -> bool:
    """Whether a process with this id exists (signal 0 checks without sending)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, under another user
        return True
    except OSError:
        return False
    return True


def may_be_running(host: str | None, pid: int | None, *, claim_held: bool) -> bool:
    """Whether the process of a run marked running may still be going."""
    if pid is not None and host == platform.node():
        return pid == os.getpid() or process_alive(pid)
    return claim_held


def status_now(status: str, host: str | None, pid: int | None, *, claim_held: bool) -> str:
    """A run's status as a reader should show it: `interrupted` for a `running` run
    whose process is gone."""
    if status == "running" and not may_be_running(host, pid, claim_held=claim_held):
        return INTERRUPTED
    return status


def mark_interrupted_runs(con: duckdb.DuckDBPyConnection, *, claim_held: bool) -> list[str]:
    """Mark the runs left `running` by a process that is gone; return their ids.

    Called with the file open read-write (so no other process writes it outside a
    writer claim); `claim_held` says whether another process holds that claim.
    Interrupted runs keep finished_at NULL: when they stopped is not known.
    """
    rows = con.execute("SELECT run_id, host, pid FROM runs WHERE status = 'running'").fetchall()
    gone = [
        run_id for run_id, host, pid in rows if not may_be_running(host, pid, claim_held=claim_held)
    ]
    if gone:
        con.execute(
            "UPDATE runs SET status = ? WHERE status = 'running' AND list_contains(?, run_id)",
            [INTERRUPTED, gone],
        )
    return gone
