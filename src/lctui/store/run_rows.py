"""The statements that write a run's row: its start and its end (store/writer.py runs
them, each on the connection of the write it belongs to)."""

from __future__ import annotations

import datetime as dt
import os
import platform
import time
from collections.abc import Mapping
from typing import Any

from lctui import __version__
from lctui.store import rows

Statement = tuple[str, list[Any]]


def utc(epoch_s: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(epoch_s, tz=dt.timezone.utc).replace(tzinfo=None)


def start_row(run_id: str, command: Mapping[str, Any]) -> Statement:
    """The run running, from now, under this process (a resumed run's row too)."""
    return (
        "INSERT INTO runs (run_id, started_at, status, command, lctui_version, host, pid) "
        "VALUES (?, ?, 'running', ?, ?, ?, ?) "
        "ON CONFLICT (run_id) DO UPDATE SET status = 'running', finished_at = NULL, "
        "host = excluded.host, pid = excluded.pid",
        [
            run_id,
            utc(time.time()),
            rows.to_json(dict(command)),
            __version__,
            platform.node(),
            os.getpid(),
        ],
    )


def end_row(run_id: str, status: str, notes: Mapping[str, Any] | None = None) -> Statement:
    """The run's final status, and `notes` merged into its command (JSON merge patch)."""
    if not notes:
        return (
            "UPDATE runs SET status = ?, finished_at = ? WHERE run_id = ?",
            [status, utc(time.time()), run_id],
        )
    return (
        "UPDATE runs SET status = ?, finished_at = ?, "
        "command = json_merge_patch(coalesce(command, '{}'::JSON), ?::JSON) WHERE run_id = ?",
        [status, utc(time.time()), rows.to_json(dict(notes)), run_id],
    )
