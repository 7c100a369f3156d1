"""Detached runs and their viewers as real processes: `lctui run --detach` in a terminal
that is then closed, `lctui runs`, `lctui attach` (watching, pausing, cancelling, Ctrl-C),
a viewer killed, a run killed with kill -9 and started again, its viewer following.

The runs are the gold model on RULER's synthetic tasks at 32K (building the examples
takes a few seconds a dozen, long enough to act while they go).
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import shlex
import signal
import subprocess
import termios
import time
from pathlib import Path

import pytest

from helpers.live_runs import (
    Viewer,
    lctui,
    records,
    run_id_in,
    stored_generations,
    wait_for_record,
    wait_until,
)
from lctui.core.run_record import CANCELLED, FINISHED, KILLED, RUNNING
from lctui.engine.attach import LOST, pid_alive
from lctui.engine.flushing import FLUSH_EVERY_S
from lctui.store.db import connect_waiting

ARGS = ["run", "--model", "gold", "--tasks", "synthetic", "--lengths", "32k"]
# What a kill -9 may lose: results finished since the flush before it began (one every
# FLUSH_EVERY_S), plus the time that flush takes on a busy 2-core machine.
LOSS_BOUND_S = FLUSH_EVERY_S + 1.0


def _detach(db: Path, n: int) -> str:
    done = subprocess.run(
        lctui(*ARGS, "--n", str(n), "--db", str(db), "--detach"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return run_id_in(done.stdout)


def _lctui(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        lctui(*args),
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COLUMNS": "200"},
    )


def _listed(run_id: str) -> dict[str, object]:
    listed = _lctui("runs", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    lines = {line["record"]["run_id"]: line for line in json.loads(listed.stdout)}
    return dict(lines[run_id])


def _read_until(fd: int, needle: bytes, timeout: float) -> bytes:
    seen = b""
    deadline = time.monotonic() + timeout
    while needle not in seen:
        assert time.monotonic() < deadline, f"no {needle!r} in {seen!r}"
        try:
            seen += os.read(fd, 4096)
        except OSError:
            break
    return seen


@pytest.mark.slow
def test_a_detached_run_outlives_its_closed_terminal_and_obeys_its_viewers(tmp_path: Path) -> None:
    db = tmp_path / "t.duckdb"
    master, slave = pty.openpty()
    command = shlex.join(lctui(*ARGS, "--n", "4", "--db", str(db), "--detach"))
    # A login shell's session: the pty is its controlling terminal.
    shell = subprocess.Popen(
        ["bash", "-c", f"{command}; exec sleep 120"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        start_new_session=True,
        preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),
    )
    os.close(slave)
    said = _read_until(master, b"list:", 60).decode(errors="replace")
    run_id = run_id_in(" ".join(said.split()))
    assert f"lctui attach {run_id}" in said
    os.close(master)  # the terminal goes away: its session is hung up
    assert shell.wait(timeout=30) == -signal.SIGHUP
    record = wait_for_record(run_id, lambda r: r.status == RUNNING, 60, "the run to plan")
    assert pid_alive(record.pid) and os.getsid(record.pid) == record.pid
    assert os.readlink(f"/proc/{record.pid}/fd/0") == "/dev/null"
    assert record.log is not None and "--detach" not in record.argv and record.db == str(db)
    assert Path(record.log).exists() and (Path(record.socket).stat().st_mode & 0o777) == 0o600

    paused = _lctui("attach", run_id, "--pause")
    assert paused.returncode == 0 and "paused" in paused.stdout, paused.stdout + paused.stderr
    listed = _listed(run_id)
    assert listed["status"] == "paused"
    progress = listed["progress"]
    assert isinstance(progress, dict) and progress["to_do"] == 48 and progress["paused"]
    resumed = _lctui("attach", run_id, "--resume")
    assert resumed.returncode == 0 and "resumed" in resumed.stdout, resumed.stdout

    record = wait_for_record(run_id, lambda r: r.status == FINISHED, 240, "the run to finish")
    assert (record.done, record.errors) == (48, 0)
    assert stored_generations(db) == (48, 48, 48)
    wait_until(lambda: not pid_alive(record.pid), 60, "the run's process to end")
    assert "Mean score" in Path(str(record.log)).read_text()
    assert not Path(record.socket).exists()


@pytest.mark.slow
def test_viewers_and_runs_killed_then_the_run_again_and_its_viewer_follows(
    tmp_path: Path,
) -> None:
    db = tmp_path / "k.duckdb"
    total = 12 * 10
    run_id = _detach(db, 10)
    record = wait_for_record(
        run_id, lambda r: r.status == RUNNING and Path(r.socket).exists(), 60, "the socket"
    )
    doomed_out, follower_out = tmp_path / "doomed.txt", tmp_path / "follower.txt"
    with doomed_out.open("w") as out:
        doomed = subprocess.Popen(lctui("attach", run_id), stdout=out, stderr=subprocess.STDOUT)
    with follower_out.open("w") as out:
        follower = subprocess.Popen(lctui("attach"), stdout=out, stderr=subprocess.STDOUT)
    viewer = Viewer(record.socket)
    wait_until(lambda: "attached to run" in doomed_out.read_text(), 60, "the viewer to attach")
    doomed.kill()
    doomed.wait()
    after = viewer.tally.done
    wait_until(lambda: viewer.tally.done >= after + 4, 120, "the run to go on")
    wait_until(lambda: stored_generations(db)[0] >= 8, 60, "rows to be written")
    killed_at = time.time()
    os.kill(record.pid, signal.SIGKILL)
    viewer.join(30)
    assert viewer.ended_by == LOST and viewer.tally.finished is None
    con = connect_waiting(db, read_only=True)
    stored = {r[0] for r in con.execute("SELECT generation_id FROM generations").fetchall()}
    con.close()
    assert 0 < len(stored) < total
    lost = {g: killed_at - at for g, at in viewer.scored_at.items() if g not in stored}
    assert all(age <= LOSS_BOUND_S for age in lost.values()), lost
    assert records()[run_id].status == KILLED and not Path(record.socket).exists()
    listed = _listed(run_id)
    assert listed["status"] == KILLED and "resumes" in str(listed["note"])
    wait_until(lambda: "waiting for a run" in follower_out.read_text(), 30, "the follower to wait")

    again = _detach(db, 10)  # the same command
    assert follower.wait(timeout=300) == 0, follower_out.read_text()
    said = " ".join(follower_out.read_text().split())
    assert "stopped answering" in said and f"attaching to run {again}" in said
    assert f"Run {again} finished: {total - len(stored)} done, 0 error(s)" in said
    pid = records()[again].pid
    wait_until(lambda: not pid_alive(pid), 60, "the run's process to end")
    assert stored_generations(db) == (total, total, total)


@pytest.mark.slow
def test_ctrl_c_detaches_the_viewer_and_cancel_stops_the_run_keeping_results(
    tmp_path: Path,
) -> None:
    db = tmp_path / "c.duckdb"
    # Long enough that the cancel comes before the end however slowly it is sent (12
    # synthetic tasks x 30: a loaded machine once saw 96 generations finish first).
    run_id = _detach(db, 30)
    record = wait_for_record(
        run_id, lambda r: r.status == RUNNING and Path(r.socket).exists(), 60, "the socket"
    )
    out_file = tmp_path / "viewer.txt"
    with out_file.open("w") as out:
        viewer = subprocess.Popen(
            lctui("attach", run_id[-6:]), stdout=out, stderr=subprocess.STDOUT
        )
    wait_until(lambda: "attached to run" in out_file.read_text(), 60, "the viewer to attach")
    viewer.send_signal(signal.SIGINT)
    assert viewer.wait(timeout=30) == 0
    assert f"Detached from run {run_id}; it goes on" in " ".join(out_file.read_text().split())
    assert records()[run_id].status == RUNNING and pid_alive(record.pid)
    wait_until(lambda: stored_generations(db)[0] >= 2, 120, "two stored generations")
    cancelled = _lctui("attach", run_id, "--cancel")
    assert cancelled.returncode == 0, cancelled.stderr
    record = wait_for_record(run_id, lambda r: r.status == CANCELLED, 120, "the cancel")
    rows, keys, perfect = stored_generations(db)
    # A generation written just as the cancel came is kept, though no longer counted.
    assert 2 <= record.done <= rows == keys == perfect < 12 * 30
    assert "Cancelled" in Path(str(record.log)).read_text()
    gone = _lctui("attach", run_id)
    assert gone.returncode == 2 and "has ended (cancelled)" in gone.stderr
