"""Files only their owner may read: lctui's files hold every prompt and output, so the
data folder is created 0700 and what lctui writes in it 0600, whatever the umask (a
umask only narrows a mode, so files are opened with theirs and chmod-ed after).

An existing data folder open to others is left as the user made it (they may have
meant it) and reported once (`open_data_dir_warning`); a file lctui writes at a path
the user named outside the data folder gets the umask's mode like any other file.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import IO, Literal, overload

from lctui.core.paths import OTHERS, data_dir, make_data_dir, make_private_folder

PRIVATE_FILE = 0o600

_WARNED: set[Path] = set()


def in_data_dir(path: Path) -> bool:
    """Whether `path` is in the data folder (links resolved)."""
    try:
        return path.expanduser().resolve().is_relative_to(data_dir().resolve())
    except OSError:
        return False


def keep_private(path: Path) -> None:
    """`path` made 0600 if it exists and is ours to change (nothing otherwise)."""
    with contextlib.suppress(OSError):
        if path.stat().st_mode & 0o777 != PRIVATE_FILE:
            path.chmod(PRIVATE_FILE)


def copy_mode(source: Path, target: Path) -> None:
    """`target` given `source`'s permission bits, if both exist and it differs: the files
    DuckDB makes beside a database (its write-ahead log) are as open as the database."""
    with contextlib.suppress(OSError):
        mode = source.stat().st_mode & 0o777
        if target.stat().st_mode & 0o777 != mode:
            target.chmod(mode)


@overload
def open_private(
    path: Path, binary: Literal[False] = False, *, append: bool = False
) -> IO[str]: ...
@overload
def open_private(path: Path, binary: Literal[True], *, append: bool = False) -> IO[bytes]: ...
def open_private(path: Path, binary: bool = False, *, append: bool = False) -> IO[str] | IO[bytes]:
    """`path` opened for writing (truncated unless `append`), created or made 0600."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC)
    descriptor = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), PRIVATE_FILE)
    try:
        with contextlib.suppress(PermissionError):  # someone else's file: theirs to mind
            os.fchmod(descriptor, PRIVATE_FILE)
    except BaseException:
        os.close(descriptor)
        raise
    if binary:
        return os.fdopen(descriptor, "wb")
    return os.fdopen(descriptor, "w", encoding="utf-8")


def write_private(path: Path, data: str | bytes) -> None:
    """Write `data` to `path`, mode 0600."""
    if isinstance(data, bytes):
        with open_private(path, binary=True) as out:
            out.write(data)
    else:
        with open_private(path) as out:
            out.write(data)


def prepare_output(path: Path) -> bool:
    """Create the folder of a file lctui is about to write for the user (an export);
    True when the file should be private: it is in the data folder, whose folders are
    then made 0700. A path elsewhere gets its folders and mode as the umask has it."""
    path = path.expanduser()
    if not in_data_dir(path.parent) and not in_data_dir(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        return False
    root = make_data_dir().resolve()
    folder = root
    for part in path.parent.resolve().relative_to(root).parts:
        folder = make_private_folder(folder / part)
    return True


def write_output(path: Path, data: str | bytes) -> None:
    """Write a file for the user (an export): 0600 in the data folder, else as the umask
    has it; its folder created (`prepare_output`)."""
    path = path.expanduser()
    if prepare_output(path):
        write_private(path, data)
    elif isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8")


def open_data_dir_warning() -> str | None:
    """The warning about a data folder that other users may read, the first time it is
    asked for that folder in this process; None otherwise (missing, or private)."""
    folder = data_dir()
    try:
        mode = folder.stat().st_mode & 0o777
    except OSError:
        return None
    if not mode & OTHERS or folder in _WARNED:
        return None
    _WARNED.add(folder)
    return (
        f"the data folder {folder} is open to other users (mode {mode:04o}) and holds "
        f"every prompt and output lctui keeps; make it private: chmod -R go= {folder}"
    )
