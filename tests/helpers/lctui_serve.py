"""A real `lctui serve` process on a free loopback port, for the tests of the browser
view: started with its own data folder, its token read from the URL it prints."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Served:
    port: int
    token: str
    log: Path

    @property
    def url(self) -> str:
        """The URL `lctui serve` printed."""
        return f"http://127.0.0.1:{self.port}/?token={self.token}"

    def page(self, query: str = "") -> str:
        return f"http://127.0.0.1:{self.port}/{query}"

    def socket_url(self, token: str | None = None) -> str:
        path = "/ws" if token == "" else f"/ws/{self.token if token is None else token}"
        return f"ws://127.0.0.1:{self.port}{path}?width=80&height=24"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def lctui_serve(root: Path, *extra: str) -> Iterator[Served]:
    """`lctui serve` on a database in `root` (empty: the app imports the sample runs)."""
    port = free_port()
    log = root / "serve.log"  # a file, not a pipe: the server's access log never blocks it
    with log.open("w") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "lctui", "serve", "--port", str(port),
             "--db", str(root / "s.duckdb"), *extra],
            stdout=out, stderr=subprocess.STDOUT, text=True,
            env={**os.environ, "LCTUI_DATA_DIR": str(root)},
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                assert server.poll() is None, log.read_text()
                time.sleep(0.2)
        first = log.read_text().partition("\n")[0]
        found = re.search(rf"http://127\.0\.0\.1:{port}/\?token=(\S+)", first)
        assert found, f"no URL with a token in {first!r}"
        yield Served(port, found.group(1), log)
    finally:
        server.terminate()
        server.wait(timeout=10)
