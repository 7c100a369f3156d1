"""The writer claim of a shared results file: which process may write it.

A shared store (store/db.py) holds its DuckDB file only while a query or a flush runs,
so DuckDB's own lock says nothing between flushes. The process that writes the file
holds `WriterClaim`, an advisory lock on `<db>.writer`, for as long as it may write;
`writer_active` tells others (the TUI opens such a file read-only, `lctui run --detach`
refuses it, a detached run waits its turn). The TUI holds the claim only while it writes
(`Store.lend_when_idle`), so that a headless run may write a file the TUI merely has open.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import IO

from lctui.core.errors import NotWritableError, StoreError


class WriterClaim:
    """An advisory lock on `<db>.writer` held by the process that writes a shared file.

    DuckDB's own lock is released between flushes of a shared store, so this is how
    another process (the TUI) knows a run is writing the file. The OS drops it when
    the process ends, even on kill -9 (the file then stays, unlocked, until the next
    claim). `release` removes the file while still holding the lock; a process that
    opened the old file just before and locks it once released finds that it is no
    longer the file at that path, and starts over with the new one (`take`).
    """

    def __init__(self, handle: IO[bytes], path: Path) -> None:
        self._handle = handle
        self._path = path

    @staticmethod
    def path(file: Path) -> Path:
        return file.with_name(file.name + ".writer")

    @classmethod
    def take(cls, file: Path) -> WriterClaim:
        path = cls.path(file)
        _check_writable_folder(file)
        # A reader checking the claim (writer_active) holds a shared lock for a moment.
        deadline = time.monotonic() + _TAKE_RETRY_S
        while True:
            try:
                handle = _open_claim(path, file)
            except OSError as err:
                raise NotWritableError(_cannot_write(path, err.strerror or str(err))) from err
            if _try_lock(handle):
                if _is_file_at(handle, path):
                    return cls(handle, path)
                handle.close()  # released and removed by its last holder meanwhile
                continue
            handle.close()
            if time.monotonic() >= deadline:
                raise StoreError(
                    f"{file} is being written by another lctui process (a run, or a TUI "
                    "open on it that runs or re-scores); wait for it to end, or pass --db to "
                    "use another file"
                )
            time.sleep(0.02)

    def release(self) -> None:
        if self._handle.closed:
            return
        try:
            if _is_file_at(self._handle, self._path):
                with contextlib.suppress(OSError):
                    self._path.unlink()  # still locked: nobody can hold this file now
        finally:
            self._handle.close()  # closing the descriptor drops the lock


_TAKE_RETRY_S = 0.25


def _open_claim(path: Path, file: Path) -> IO[bytes]:
    """The claim file, created as open as the database (0600 for a new one): whoever may
    read the database must be able to look at its claim (writer_active)."""
    try:
        mode = file.stat().st_mode & 0o666
    except OSError:
        mode = 0o600
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, mode)
    return os.fdopen(descriptor, "a+b")


def writer_active(file: Path) -> bool:
    """Whether a process holds the writer claim of `file` (a shared run is writing it).

    Never creates the claim file, and holds only a shared lock for a moment.
    """
    claim = WriterClaim.path(Path(file).expanduser())
    for _ in range(5):
        try:
            handle = claim.open("rb")
        except FileNotFoundError:
            return False
        with handle:
            if not _try_lock(handle, shared=True):
                return True
            if _is_file_at(handle, claim):
                return False
        # The file was replaced while we looked (released, then claimed anew): again.
    return True


def _is_file_at(handle: IO[bytes], path: Path) -> bool:
    """Whether the open file is still the one at `path` (not removed or replaced)."""
    try:
        on_disk = os.stat(path)
    except FileNotFoundError:
        return False
    opened = os.fstat(handle.fileno())
    return (opened.st_dev, opened.st_ino) == (on_disk.st_dev, on_disk.st_ino)


def _try_lock(handle: IO[bytes], shared: bool = False) -> bool:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no claim, no detection
        return True
    try:
        fcntl.flock(handle.fileno(), (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def _check_writable_folder(file: Path) -> None:
    """Refuse before a run starts, not at its first flush, a folder where DuckDB cannot
    write its journal (`<db>.wal`, created next to the file on every write).

    Only for the writer of a shared file (a headless run, the TUI): the TUI then opens
    the file read-only instead."""
    folder = file.parent
    if folder.is_dir() and not os.access(folder, os.W_OK | os.X_OK):
        raise NotWritableError(_cannot_write(folder, "Permission denied"))


def _cannot_write(where: Path, reason: str) -> str:
    """The message for a folder (or the run's claim file) that cannot be written."""
    return (
        f"cannot write {where} ({reason}): lctui writes the database's journal and claim "
        "files next to it; fix the folder's permissions, or pass --db with a path in a "
        "folder you can write (or open the file read-only)"
    )
