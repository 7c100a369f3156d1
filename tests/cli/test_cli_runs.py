"""`lctui runs` and `lctui attach` on the runs folder's records, without a run going:
ended, killed (a real process that is gone, its real stale socket), malformed records,
and the errors that say what to do."""

from __future__ import annotations

import json
import os
import platform
import socket
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from lctui.cli import main
from lctui.core.paths import make_runs_dir
from lctui.core.run_record import (
    FINISHED,
    KILLED,
    RUNNING,
    RunRecord,
    new_run_id,
    read_record,
    record_path,
    socket_path,
    write_record,
)
from lctui.engine.local_socket import reachable
from lctui.store import open_store


def _gone_pid() -> int:
    """The id of a process that has ended (and been reaped)."""
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(done.stdout)


def _record(status: str, pid: int, db: str = "/data/a.duckdb") -> RunRecord:
    run_id = new_run_id()
    return RunRecord(
        run_id=run_id,
        pid=pid,
        host=platform.node(),
        db=db,
        argv=("run", "--model", "gold"),
        cwd="/",
        started_at=time.time() - 300,
        socket=str(socket_path(run_id)),
        status=status,
    )


def _stale_socket(path: Path) -> None:
    """A socket file nobody listens on any more, as a killed run leaves it (bound by a
    name short enough for an address: a pytest-xdist worker's folder is a level deeper)."""
    listener = socket.socket(socket.AF_UNIX)
    with reachable(path) as name:
        listener.bind(name)
    listener.close()


def test_a_run_whose_process_is_gone_is_listed_killed_and_its_socket_removed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    make_runs_dir()
    killed = _record(RUNNING, _gone_pid())
    write_record(killed)
    _stale_socket(Path(killed.socket))
    finished = replace(_record(FINISHED, _gone_pid()), done=7, to_do=7)
    write_record(finished)
    (make_runs_dir() / "not-a-record.json").write_text("{")
    assert main(["runs", "--format", "json"]) == 0
    listed = {line["record"]["run_id"]: line for line in json.loads(capsys.readouterr().out)}
    assert set(listed) == {killed.run_id, finished.run_id}
    assert listed[killed.run_id]["status"] == KILLED
    assert "the same command resumes it" in listed[killed.run_id]["note"]
    assert listed[finished.run_id]["status"] == FINISHED
    assert read_record(record_path(killed.run_id)).status == KILLED
    assert not Path(killed.socket).exists()
    assert main(["runs", "--format", "tsv"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].split("\t")[:3] == ["run", "status", "progress"]
    assert any(r.startswith(f"{finished.run_id}\tfinished\t7/7 (100%)") for r in rows)
    assert main(["runs", "--format", "json", "--db", "/elsewhere.duckdb"]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_attach_says_what_to_do_when_there_is_nothing_to_watch(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["attach"]) == 2
    assert "no run is going" in capsys.readouterr().err
    ended = replace(_record(FINISHED, _gone_pid()), done=3, to_do=3)
    write_record(ended)
    assert main(["attach", "nonesuch"]) == 2
    assert "no run 'nonesuch'" in capsys.readouterr().err
    assert main(["attach", ended.run_id[-6:]]) == 2
    assert f"run {ended.run_id} has ended (finished)" in capsys.readouterr().err
    assert main(["attach", ended.run_id, "--pause"]) == 2
    assert "has ended" in capsys.readouterr().err
    first, second = _record(RUNNING, _gone_pid()), _record(RUNNING, _gone_pid())
    for record in (first, second):
        write_record(replace(record, pid=_alive_pid()))
    assert main(["attach"]) == 2
    assert "2 runs are going: name one" in capsys.readouterr().err


def _alive_pid() -> int:
    return os.getpid()  # this test's own process: alive, and not a run


def test_detach_refuses_a_bad_command_before_starting_anything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "x.duckdb"
    assert main(["run", "--detach", "--model", "gold", "--tasks", "nope", "--db", str(db)]) == 2
    assert "nope" in capsys.readouterr().err
    assert (
        main(
            [
                "run",
                "--detach",
                "--model",
                "gold",
                "--tasks",
                "vt",
                "--lengths",
                "3q",
                "--db",
                str(db),
            ]
        )
        == 2
    )
    assert not list(make_runs_dir().glob("*.json")) and not db.exists()
    with open_store(db, shared=True):  # another process's run would hold it so
        assert main(["run", "--detach", "--model", "gold", "--tasks", "vt", "--db", str(db)]) == 2
    assert "is being written by another lctui process" in capsys.readouterr().err
    assert not list(make_runs_dir().glob("*.json"))
