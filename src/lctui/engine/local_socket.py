"""Unix sockets at paths of any length: a run's socket in the data folder, for its viewers.

A socket address holds about 100 bytes of path (108 on Linux, 104 on macOS), and a data
folder deep in a home or a temporary directory can be longer. On Linux a long path is
reached through `/proc/self/fd/N/NAME`, N an open descriptor of its folder: the socket
file is still made (and found) at the path itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

# Bytes of path an address takes on every platform lctui runs on, its end byte included.
MAX_PATH_BYTES = 100
# Longest line a run or a viewer reads: a generation's whole output travels in one.
LINE_LIMIT = 16 * 1024 * 1024

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@contextlib.contextmanager
def reachable(path: Path) -> Iterator[str]:
    """A name of `path` short enough for a socket address, valid inside the block."""
    if len(os.fsencode(path)) < MAX_PATH_BYTES:
        yield str(path)
        return
    if not Path("/proc/self/fd").is_dir():
        raise OSError(
            errno.ENAMETOOLONG,
            f"the socket path {path} is too long for this system (at most "
            f"{MAX_PATH_BYTES - 1} bytes); set LCTUI_DATA_DIR to a shorter folder",
        )
    folder = os.open(path.parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        yield f"/proc/self/fd/{folder}/{path.name}"
    finally:
        os.close(folder)


async def listen(path: Path, handler: Handler, limit: int = LINE_LIMIT) -> asyncio.AbstractServer:
    """A server on the Unix socket `path`, readable and writable by the user only (its
    folder should be too: the mode is set just after the socket is made); `limit`: the
    longest line its handlers read."""
    with reachable(path) as name:
        server = await asyncio.start_unix_server(handler, path=name, limit=limit)
    os.chmod(path, 0o600)
    return server


async def connect(path: Path) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection to the Unix socket `path`; OSError when nothing listens there."""
    with reachable(path) as name:
        return await asyncio.open_unix_connection(name, limit=LINE_LIMIT)


def remove(path: Path) -> None:
    """Remove a socket file, if it is still there."""
    with contextlib.suppress(OSError):
        if path.is_socket():
            path.unlink()
