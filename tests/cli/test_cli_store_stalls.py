"""A results file that cannot be written for a while, with real `lctui run`s of gold.

Another process holds the file; the filesystem fills up; the run is killed with
kill -9. Nothing finished is lost while the file refuses (it waits in memory and is
written once the file takes it), the run says why in its progress output and holds
new work once too much waits, and a killed run is not left `running`.

The runs build 8K-token examples (a few dozen a second), so they last long enough
to be stalled and killed; tapped_run.py logs what finished, and when.
"""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb
import pytest

from lctui.store import open_store, run_summary

ARGS = ["run", "--model", "gold", "--tasks", "synthetic", "--lengths", "8k", "--n", "300"]
TAPPED = Path(__file__).with_name("tapped_run.py")
HOLD_S = 20.0  # longer than the 15 s a shared store waits for a held file


class Run:
    """A tapped `lctui run` in the background, its output in a file."""

    def __init__(
        self,
        tmp_path: Path,
        db: Path,
        *,
        wrap: list[str] | None = None,
        preexec: Callable[[], None] | None = None,
    ) -> None:
        self.out = tmp_path / "out.txt"
        self.tap = tmp_path / "finished.txt"
        self.tap.touch()
        argv = [sys.executable, str(TAPPED), str(self.tap), *ARGS, "--db", str(db)]
        with self.out.open("w") as out:
            self.proc = subprocess.Popen(
                [*(wrap or []), *argv],
                stdout=out,
                stderr=subprocess.STDOUT,
                text=True,
                env={**os.environ, "COLUMNS": "300"},
                preexec_fn=preexec,
            )
        self.pid = self.proc.pid

    @property
    def text(self) -> str:
        return " ".join(self.out.read_text(errors="replace").split())

    def finished(self) -> dict[str, float]:
        """Generation id -> wall time it finished, as the tap logged them."""
        lines = self.tap.read_text().splitlines()
        return {g: float(t) for g, t in (line.split() for line in lines if line.count(" ") == 1)}

    def writes(self) -> list[tuple[float, float]]:
        """(start, end) wall times of the writes that stored rows."""
        lines = self.tap.read_text().splitlines()
        return [
            (float(a), float(b)) for _, a, b in (ln.split() for ln in lines if ln[:6] == "write ")
        ]

    def wait_for(self, needle: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if needle in self.text:
                return
            if self.proc.poll() is not None:
                pytest.fail(f"the run ended before saying {needle!r}: {self.text[-2000:]}")
            time.sleep(0.2)
        pytest.fail(f"the run did not say {needle!r} within {timeout} s: {self.text[-2000:]}")

    def kill_9(self) -> float:
        assert self.proc.poll() is None, f"the run ended before the kill: {self.text[-2000:]}"
        killed_at = time.time()
        os.kill(self.pid, signal.SIGKILL)
        self.proc.wait(timeout=60)
        return killed_at

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=60)


@pytest.fixture
def runs() -> Iterator[list[Run]]:
    started: list[Run] = []
    yield started
    for run in started:
        run.stop()


def _wait_for_rows(db: Path, run: Run, count: int) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and run.proc.poll() is None:
        if len(run.finished()) >= count and db.exists():
            return
        time.sleep(0.2)
    pytest.fail(f"the run did not finish {count} generations in time: {run.text[-2000:]}")


def _stored(db: Path) -> tuple[set[str], int, int, int]:
    """Generation ids stored, rows, distinct keys, and results that scored 1.0."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        ids = {r[0] for r in con.execute("SELECT generation_id FROM generations").fetchall()}
        counts = con.execute("SELECT count(*), count(DISTINCT gen_key) FROM generations")
        rows, keys = counts.fetchone() or (0, 0)
        scored = con.execute("SELECT count(*) FROM results WHERE score = 1.0").fetchone()
        assert scored is not None
        perfect = scored[0]
    finally:
        con.close()
    return ids, rows, keys, perfect


def _hold(db: Path, seconds: float) -> subprocess.Popen[str]:
    """Another process that opens the file read-write (between the run's writes) and
    keeps it for `seconds`; it prints "held" once it has it."""
    code = f"""
        import time, duckdb
        while True:
            try:
                con = duckdb.connect({str(db)!r})
                break
            except duckdb.Error:
                time.sleep(0.005)
        print("held", flush=True)
        time.sleep({seconds})
        con.close()
    """
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


@pytest.mark.slow
def test_a_file_held_by_another_process_loses_nothing_and_the_run_says_so(
    tmp_path: Path, runs: list[Run]
) -> None:
    db = tmp_path / "held.duckdb"
    run = Run(tmp_path, db)
    runs.append(run)
    _wait_for_rows(db, run, 50)
    holder = _hold(db, HOLD_S)
    try:
        held_at = time.time()
        run.wait_for("store stalled", timeout=60)
        assert holder.wait(timeout=60) == 0
        released_at = time.time()
    finally:
        holder.kill()
        holder.wait()
    run.wait_for("store recovered", timeout=60)
    time.sleep(6)  # a few writes at the usual pace
    killed_at = run.kill_9()

    text = run.text
    assert f"in use by another process (PID {holder.pid})" in text
    finished = run.finished()
    stored, rows, keys, perfect = _stored(db)
    assert rows == keys == perfect == len(stored)  # no duplicates, every one intact
    assert stored <= set(finished)
    during_hold = [g for g, at in finished.items() if held_at < at < held_at + HOLD_S]
    assert len(during_hold) > 20, "the run should have gone on while the file was held"
    assert all(g in stored for g in during_hold), "what finished during the stall is stored"
    # A write stores everything that finished before it started. After the stall the
    # writes went on as before, so what the kill lost finished after the last one began.
    since = [start for start, end in run.writes() if start > released_at and end < killed_at]
    assert len(since) >= 2, "writes should go on after the file was released"
    lost = [g for g, at in finished.items() if at < max(since) and g not in stored]
    assert not lost, f"{len(lost)} generation(s) finished before the last write are lost"


@pytest.mark.slow
def test_a_run_killed_with_kill_9_is_interrupted_not_running(
    tmp_path: Path, runs: list[Run]
) -> None:
    db = tmp_path / "killed.duckdb"
    run = Run(tmp_path, db)
    runs.append(run)
    _wait_for_rows(db, run, 30)
    run.kill_9()
    with open_store(db, read_only=True) as store:  # readers show it before any write
        summary = run_summary(store)
        assert summary is not None and summary.status == "interrupted"
    report = subprocess.run(
        [sys.executable, "-m", "lctui", "export-report", "--db", str(db), "--out", "-"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Status interrupted" in report.stdout, report.stdout + report.stderr
    assert _run_rows(db) == [("running", None)]  # nothing was written by the readers
    open_store(db).close()  # the next read-write open records it
    assert _run_rows(db) == [("interrupted", None)]


def _run_rows(db: Path) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("SELECT status, finished_at FROM runs").fetchall()
    finally:
        con.close()


# -- a filesystem that fills up -----------------------------------------------------------

DISK_BYTES = 24 * 1024 * 1024


def _tmpfs_usable(tmp_path: Path) -> bool:
    """Whether this machine lets an unprivileged user namespace mount a tmpfs."""
    if shutil.which("unshare") is None:
        return False
    probe = tmp_path / "probe"
    probe.mkdir()
    done = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c",
         f"mount -t tmpfs -o size=64k tmpfs '{probe}'"],
        capture_output=True,
        timeout=30,
    )  # fmt: skip
    return done.returncode == 0


# The run in a mount namespace of its own, on a small tmpfs; once the run has ended
# (killed), the shell copies the database out, since the tmpfs goes with it.
_IN_TMPFS = """
mnt=$1; keep=$2; shift 2
mount -t tmpfs -o size={size} tmpfs "$mnt" || exit 97
"$@" &
echo "lctui pid $!"
wait $!
cp "$mnt"/full.duckdb* "$keep"/
"""


def _limit_file_size() -> None:
    """In the child: files may not grow past DISK_BYTES; writes past it fail with EFBIG
    ("File too large") instead of killing the process."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (DISK_BYTES, DISK_BYTES))


@pytest.mark.slow
@pytest.mark.parametrize("disk", ["tmpfs", "file_size_limit"])
def test_a_full_disk_is_reported_the_run_pauses_and_what_was_written_stays(
    tmp_path: Path, runs: list[Run], disk: str
) -> None:
    if disk == "tmpfs":
        if not _tmpfs_usable(tmp_path):
            pytest.skip("no user namespaces with mounts here (the file size limit case runs)")
        mnt, kept = tmp_path / "disk", tmp_path / "kept"
        mnt.mkdir()
        kept.mkdir()
        script = _IN_TMPFS.format(size=DISK_BYTES)
        wrap = ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script, "sh"]
        run = Run(tmp_path, mnt / "full.duckdb", wrap=[*wrap, str(mnt), str(kept)])
        db, error = kept / "full.duckdb", "No space left on device"
        run.wait_for("lctui pid", timeout=30)
        run.pid = int(run.text.split("lctui pid ")[1].split()[0])
    else:
        db, error = tmp_path / "full.duckdb", "File too large"
        run = Run(tmp_path, db, preexec=_limit_file_size)
    runs.append(run)
    run.wait_for(error, timeout=120)
    run.wait_for("new work paused", timeout=120)
    time.sleep(1)  # requests running at the pause finish
    held = len(run.finished())
    time.sleep(3)
    assert len(run.finished()) == held, "no new request starts while the file refuses"
    run.kill_9()
    run.proc.wait(timeout=60)

    text = run.text
    assert "store stalled" in text and "no transaction is active" not in text
    stored, rows, keys, perfect = _stored(db)
    assert 0 < rows < held
    assert rows == keys == perfect == len(stored)
    assert stored <= set(run.finished())


@pytest.mark.slow
def test_ctrl_c_while_the_disk_is_full_says_how_many_results_are_lost(
    tmp_path: Path, runs: list[Run]
) -> None:
    db = tmp_path / "full.duckdb"
    run = Run(tmp_path, db, preexec=_limit_file_size)
    runs.append(run)
    run.wait_for("new work paused", timeout=120)
    run.proc.send_signal(signal.SIGINT)
    assert run.proc.wait(timeout=60) == 2
    text = run.text
    assert "could not be written and are lost" in text and "File too large" in text
    assert "Traceback" not in text
    lost = int(text.split("ended (cancelled) but ")[1].split()[0])
    stored, rows, keys, _ = _stored(db)
    assert lost > 0 and rows == keys == len(stored)
    assert len(run.finished()) == rows + lost
