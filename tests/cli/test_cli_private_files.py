"""Other users on the machine: the data folder is created 0700 and what lctui writes in
it 0600 (database, write-ahead log, writer claim, exports, run records, TUI state)
whatever the umask, and an existing folder open to others is reported once.

Real processes under umask 022 (the common default, which gives 0755 and 0644), real
files, modes read with os.stat.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from lctui.store import open_store
from lctui.tui.state.ui_state import remember

GOLD = ["run", "--model", "gold", "--tasks", "niah_single_1", "--lengths", "1k", "--n", "1"]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def lctui(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LCTUI_DATA_DIR": str(data), "COLUMNS": "200"}
    env.pop("LCTUI_DB", None)
    return subprocess.run(
        [sys.executable, "-m", "lctui", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        umask=0o022,
    )


@pytest.fixture
def umask_022() -> Iterator[None]:
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


def test_a_new_data_folder_is_0700_and_every_file_lctui_writes_in_it_0600(
    tmp_path: Path,
) -> None:
    data = tmp_path / "share" / "lctui"
    ran = lctui(data, *GOLD)
    assert ran.returncode == 0, ran.stderr
    exported = lctui(data, "export-report")
    assert exported.returncode == 0, exported.stderr
    assert mode(data) == 0o700
    files = [p for p in data.rglob("*") if p.is_file()]
    names = {p.relative_to(data).parts[0] for p in files}
    assert {"lctui.duckdb", "runs", "exports"} <= names
    assert {str(p.relative_to(data)): oct(mode(p)) for p in files} == {
        str(p.relative_to(data)): oct(0o600) for p in files
    }
    folders = [p for p in data.rglob("*") if p.is_dir()]
    assert {str(p): oct(mode(p)) for p in folders} == {str(p): oct(0o700) for p in folders}
    assert "open to other users" not in ran.stderr + exported.stderr


def test_the_write_ahead_log_and_the_claim_of_a_new_database_are_0600(
    tmp_path: Path, umask_022: None
) -> None:
    db = tmp_path / "results.duckdb"
    with open_store(db, shared=True) as store:
        store.start_run("r1", {"argv": ["run"]})  # written at once
        wal = db.with_name(db.name + ".wal")
        claim = db.with_name(db.name + ".writer")
        assert wal.exists() and claim.exists()  # a shared store checkpoints only at close
        assert (oct(mode(db)), oct(mode(wal)), oct(mode(claim))) == (oct(0o600),) * 3
        # A checkpoint removes the log; the next write makes it anew, private again.
        store.checkpoint()
        store.finish_run("r1", "finished")
        assert wal.exists() and oct(mode(wal)) == oct(0o600)


def test_a_database_placed_elsewhere_keeps_its_mode_and_its_log_follows_it(
    tmp_path: Path, umask_022: None
) -> None:
    db = tmp_path / "team.duckdb"
    open_store(db).close()
    db.chmod(0o640)  # shared with a group on purpose
    with open_store(db, shared=True) as store:
        store.start_run("r1", {"argv": ["run"]})
        wal = db.with_name(db.name + ".wal")
        assert (oct(mode(db)), oct(mode(wal))) == (oct(0o640), oct(0o640))


def test_tui_state_files_are_0600(tmp_path: Path, umask_022: None) -> None:
    remember("theme", "x")
    state = Path(os.environ["LCTUI_DATA_DIR"]) / "tui-state.json"
    assert json.loads(state.read_text()) == {"theme": "x"}
    assert (oct(mode(state.parent)), oct(mode(state))) == (oct(0o700), oct(0o600))


def test_an_existing_data_folder_open_to_others_is_reported_once_and_left_as_it_is(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    data.chmod(0o755)
    ran = lctui(data, *GOLD)
    assert ran.returncode == 0, ran.stderr
    assert ran.stderr.count("open to other users") == 1
    assert f"chmod -R go= {data}" in ran.stderr
    assert mode(data) == 0o755  # the user's folder: told, not changed
    assert mode(data / "lctui.duckdb") == 0o600
    data.chmod(0o700)
    quiet = lctui(data, "runs")
    assert quiet.returncode == 0, quiet.stderr
    assert "open to other users" not in quiet.stderr
