"""Opening a file fails with messages a user can act on; each case is provoked for real."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers.store_factories import SRC, start_python
from lctui.core.errors import StoreError
from lctui.store import open_store


@pytest.fixture
def holder(db_path: Path) -> Iterator[subprocess.Popen[str]]:
    """Another Python process that keeps the file open read-write until killed."""
    open_store(db_path).close()
    code = f"""
        import sys, time
        from lctui.store import open_store
        store = open_store({str(db_path)!r})
        print("open", flush=True)
        time.sleep(120)
    """
    proc = start_python(code, "open")
    yield proc
    proc.kill()
    proc.wait()
    assert proc.stdout is not None
    proc.stdout.close()


@pytest.mark.parametrize("read_only", [False, True])
def test_file_locked_by_another_process(
    db_path: Path, holder: subprocess.Popen[str], read_only: bool
) -> None:
    with pytest.raises(StoreError) as caught:
        open_store(db_path, read_only=read_only)
    message = str(caught.value)
    assert str(db_path) in message
    assert f"PID {holder.pid}" in message
    assert "DuckDB lets a process write a file only while no other has it open" in message
    assert "--db" in message
    assert "try again once that process has ended" in message


def test_lock_is_released_when_the_other_process_ends(
    db_path: Path, holder: subprocess.Popen[str]
) -> None:
    holder.kill()
    holder.wait()
    open_store(db_path, read_only=True).close()


def test_text_file_is_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "x.duckdb"
    path.write_text("id,score\n1,0.5\n" * 100)
    for read_only in (False, True):
        with pytest.raises(StoreError, match="is not a DuckDB database") as caught:
            open_store(path, read_only=read_only)
        assert str(path) in str(caught.value)
    assert path.read_text().startswith("id,score")  # left untouched


def test_read_only_open_of_a_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nowhere" / "missing.duckdb"
    with pytest.raises(StoreError, match=r"missing.duckdb does not exist, so there is no database"):
        open_store(path, read_only=True)
    assert not path.parent.exists()  # a read-only open creates nothing


def test_a_folder_is_not_a_database_file(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="is a folder"):
        open_store(tmp_path)


def test_in_memory_store_for_tests() -> None:
    with open_store(":memory:") as store:
        assert store.path is None
        assert store.cursor().execute("SELECT count(*) FROM results").fetchone() == (0,)


_PERMISSION_PROBE = textwrap.dedent(
    """
    import sys
    from lctui.core.errors import StoreError
    from lctui.store import open_store
    for path, read_only in ((sys.argv[1], False), (sys.argv[1], True), (sys.argv[2], False)):
        try:
            open_store(path, read_only=read_only).close()
            print("opened", path)
        except StoreError as err:
            print(err)
    """
)


def _permission_case(root: Path) -> tuple[Path, Path]:
    """A file with mode 000 and a new file inside a folder nobody may write."""
    root.chmod(0o755)
    locked_file = root / "locked.duckdb"
    open_store(locked_file).close()
    locked_file.chmod(0)
    shut = root / "shut"
    shut.mkdir(mode=0o555)
    return locked_file, shut / "sub" / "new.duckdb"


def _check_permission_messages(lines: list[str], locked: Path, new: Path) -> None:
    assert len(lines) == 3, lines
    assert lines[0].startswith(f"permission denied: cannot read and write {locked}")
    assert lines[1].startswith(f"permission denied: cannot read {locked}")
    assert f"cannot create the folder {new.parent}" in lines[2]
    assert all("--db" in line for line in lines)


def test_permission_denied(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        _permission_denied_dropped_to_nobody()
        return
    locked, new = _permission_case(tmp_path)
    lines = []
    for path, read_only in ((locked, False), (locked, True), (new, False)):
        with pytest.raises(StoreError) as caught:
            open_store(path, read_only=read_only)
        lines.append(str(caught.value))
    _check_permission_messages(lines, locked, new)


def _permission_denied_dropped_to_nobody() -> None:
    if shutil.which("setpriv") is None:
        pytest.fail("running as root, the permission test needs setpriv to drop to 'nobody'")
    # Root ignores file modes, so the probe runs as uid 65534 in a world-readable folder.
    root = Path(tempfile.mkdtemp(prefix="lctui-perm-"))
    try:
        locked, new = _permission_case(root)
        mode = stat.S_IMODE(SRC.stat().st_mode)
        if not mode & stat.S_IROTH:
            pytest.skip(f"{SRC} is not readable by other users, so 'nobody' cannot import lctui")
        result = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
             sys.executable, "-c", _PERMISSION_PROBE, str(locked), str(new)],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(SRC), "HOME": str(root)},
            timeout=60,
        )  # fmt: skip
        if result.returncode != 0 and "Permission denied" in result.stderr and not result.stdout:
            pytest.skip(f"'nobody' cannot run this Python: {result.stderr.strip()[-200:]}")
        assert result.returncode == 0, result.stderr
        _check_permission_messages(result.stdout.strip().splitlines(), locked, new)
    finally:
        shutil.rmtree(root)
