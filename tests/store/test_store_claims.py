"""The writer claim (`<db>.writer`) of shared files, and runs whose process is gone.

The claim file is removed when its holder lets go, without ever letting two
processes hold it at once; runs left `running` by a dead process read `interrupted`
and are marked so by the next read-write open.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb
import pytest

from helpers.store_factories import SRC
from lctui.core.errors import StoreError
from lctui.store import list_runs, open_store, run_summary
from lctui.store.claim import WriterClaim, writer_active
from lctui.store.schema import MIGRATIONS


def test_the_claim_file_is_removed_when_the_store_closes(db_path: Path) -> None:
    claim = WriterClaim.path(db_path)
    store = open_store(db_path, shared=True)
    assert claim.exists() and writer_active(db_path)
    with pytest.raises(StoreError, match="being written by another lctui process"):
        open_store(db_path, shared=True)
    store.close()
    assert not claim.exists()
    assert not writer_active(db_path)
    assert not claim.exists(), "checking for a writer must not create the claim file"
    open_store(db_path, shared=True).close()  # and it can be claimed again
    assert not claim.exists()


def test_a_claim_left_by_a_killed_process_is_taken_over(db_path: Path) -> None:
    claim = WriterClaim.path(db_path)
    db_path.parent.mkdir(parents=True)
    claim.touch()  # what kill -9 leaves: the file, unlocked
    assert not writer_active(db_path)
    open_store(db_path, shared=True).close()
    assert not claim.exists()


_CONTENDER = """
    import os, sys, time
    from pathlib import Path
    from lctui.core.errors import StoreError
    from lctui.store.claim import WriterClaim
    file, marker = Path(sys.argv[1]), Path(sys.argv[2])
    taken = refused = 0
    for _ in range(int(sys.argv[3])):
        try:
            claim = WriterClaim.take(file)
        except StoreError:
            refused += 1
            continue
        # Holding the claim: nobody else may, so creating the marker must succeed.
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        os.close(fd)
        os.unlink(marker)
        claim.release()
        taken += 1
    print(taken, refused)
"""


def test_claims_taken_and_released_by_racing_processes_are_never_held_twice(
    tmp_path: Path,
) -> None:
    file = tmp_path / "race.duckdb"
    marker = tmp_path / "held-by-someone"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(_CONTENDER), str(file), str(marker), "300"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(SRC)},
        )
        for _ in range(4)
    ]
    taken = 0
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err  # FileExistsError: two holders at once
        taken += int(out.split()[0])
    assert taken >= 300  # most takes succeed; a few may find it busy for too long
    assert not WriterClaim.path(file).exists()


def _v5_file(path: Path) -> None:
    """A file as lctui wrote it at schema 5, with a run its killed process left running."""
    con = duckdb.connect(str(path))
    con.begin()
    for migration in MIGRATIONS[:5]:
        migration.apply(con)
        con.execute(
            "INSERT INTO schema_version VALUES (?, ?)", [migration.version, dt.datetime(2026, 1, 1)]
        )
    con.execute(
        "INSERT INTO runs (run_id, started_at, status, host) VALUES "
        "('old-killed', TIMESTAMP '2026-01-01', 'running', 'elsewhere'), "
        "('old-done', TIMESTAMP '2026-01-01', 'finished', 'elsewhere')"
    )
    con.execute(
        "INSERT INTO generations (generation_id, gen_key, run_id, model_id, example_id, "
        "status, output, started_at) VALUES ('g1', 'k1', 'old-killed', 'm', 'e1', 'ok', "
        "'42', TIMESTAMP '2026-01-01')"
    )
    con.commit()
    con.close()


def test_migration_7_adds_repaired_flags_and_run_pids_and_marks_dead_runs(
    tmp_path: Path,
) -> None:
    path = tmp_path / "v5.duckdb"
    _v5_file(path)
    with open_store(path) as store:
        assert store.migrated_from == 5
        cur = store.cursor()
        assert cur.execute("SELECT output, repaired FROM generations").fetchall() == [("42", False)]
        for table in ("examples", "scores", "rubric_points"):
            names = {r[0] for r in cur.execute(f"DESCRIBE {table}").fetchall()}
            assert "repaired" in names, table
        runs = cur.execute("SELECT run_id, status, pid FROM runs ORDER BY 1").fetchall()
        # No pid, and no process holds the writer claim: nobody is running it.
        assert runs == [("old-done", "finished", None), ("old-killed", "interrupted", None)]


def test_a_run_of_a_dead_process_is_interrupted_and_a_resumed_one_runs_again(
    db_path: Path,
) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    with open_store(db_path) as store:
        store.start_run("mine", {})
        store.start_run("theirs", {})
    con = duckdb.connect(str(db_path))
    con.execute("UPDATE runs SET pid = ? WHERE run_id = 'theirs'", [dead.pid])
    con.close()
    with open_store(db_path, read_only=True) as reader:
        theirs, mine = run_summary(reader, "theirs"), run_summary(reader, "mine")
        assert theirs is not None and theirs.status == "interrupted"
        assert mine is not None and mine.status == "running"
    with open_store(db_path) as store:  # this process is alive: its run stays running
        statuses = dict(store.cursor().execute("SELECT run_id, status FROM runs").fetchall())
        assert statuses == {"mine": "running", "theirs": "interrupted"}
        store.start_run("theirs", {})  # resumed under the same id
        row = store.cursor().execute(
            "SELECT status, finished_at, pid FROM runs WHERE run_id = 'theirs'"
        )
        assert row.fetchone() == ("running", None, os.getpid())


def _run_ids(db: Path) -> set[str]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {row[0] for row in con.execute("SELECT run_id FROM runs").fetchall()}
    finally:
        con.close()


def test_a_store_hands_its_file_over_and_takes_it_back(db_path: Path) -> None:
    """What the TUI does around a run it starts in the background: it lets the run take
    the claim, reads on meanwhile, and writes again once the run has let go."""
    store = open_store(db_path, shared=True)
    store.start_run("run-1", {"argv": ["run"]})
    store.hand_over()
    assert store.read_only and not writer_active(db_path)
    with pytest.raises(StoreError, match="read-only"):
        store.start_run("run-x", {"argv": ["run"]})
    assert _run_ids(db_path) == {"run-1"}  # what it held was written first
    run = open_store(db_path, shared=True)  # the detached run
    run.start_run("run-2", {"argv": ["run"]})
    assert {r.run_id for r in list_runs(store)} == {"run-1", "run-2"}  # reads go on
    with pytest.raises(StoreError, match="being written by another lctui process"):
        store.take_back()
    assert store.read_only and store.claim is None
    run.close()
    store.take_back()
    assert not store.read_only and writer_active(db_path)
    store.start_run("run-3", {"argv": ["run"]})
    store.close()
    assert _run_ids(db_path) == {"run-1", "run-2", "run-3"}
    assert not writer_active(db_path)


def test_a_store_that_lends_its_file_holds_the_claim_only_while_it_writes(db_path: Path) -> None:
    """What the TUI does (`lend_when_idle`): idle, another process may take the file;
    each write of its own takes the claim back, or fails while another process writes."""
    store = open_store(db_path, shared=True)
    store.lend_when_idle()
    assert not writer_active(db_path) and not store.written_elsewhere()
    run = open_store(db_path, shared=True)  # a headless run, while the store is idle
    run.start_run("theirs", {"argv": ["run"]})
    assert store.written_elsewhere()
    with pytest.raises(StoreError, match="being written by another lctui process"):
        store.begin_writing()
    assert store.claim is None and not store.writes_going  # nothing left half taken
    assert {r.run_id for r in list_runs(store)} == {"theirs"}  # it reads on meanwhile
    run.close()
    assert not store.written_elsewhere()
    with store.writing():  # a run of its own
        assert writer_active(db_path) and not store.written_elsewhere()
        with store.writing():  # a re-score while the run writes
            store.start_run("mine", {"argv": ["run"]})
        assert writer_active(db_path) and store.writes_going  # the run still writes
        with pytest.raises(StoreError, match="being written by another lctui process"):
            open_store(db_path, shared=True)
        store.start_run("mine-too", {"argv": ["run"]})  # held by the writer until the end
    assert not writer_active(db_path) and not store.writes_going
    assert _run_ids(db_path) == {"theirs", "mine", "mine-too"}  # written before letting go
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.begin_writing()
    assert not writer_active(db_path)
