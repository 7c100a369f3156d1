"""The real `lctui` command in a fresh process, its output going to a terminal of a given
size (a pseudo-terminal) or to a pipe, as a user's shell would run it."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from collections.abc import Sequence

ENTRY = "from lctui.main import entry; entry()"
_ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def run_in_terminal(args: Sequence[str], columns: int = 80, lines: int = 24) -> str:
    """What `lctui ARGS` prints at a `columns` x `lines` terminal, escapes removed."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
    env = {**os.environ, "COLUMNS": str(columns), "LINES": str(lines), "TERM": "xterm-256color"}
    process = subprocess.Popen(
        [sys.executable, "-c", ENTRY, *args], stdout=follower, stderr=follower, env=env
    )
    os.close(follower)
    chunks: list[bytes] = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed: the process is done writing
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert process.wait(timeout=120) == 0, b"".join(chunks).decode(errors="replace")
    text = b"".join(chunks).decode("utf-8", errors="replace").replace("\r\n", "\n")
    return _ESCAPES.sub("", text)


def run_piped(args: Sequence[str]) -> str:
    """What `lctui ARGS | cat` gets on its stdin."""
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, *args], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout
