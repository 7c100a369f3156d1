"""A real HTTP server on loopback serving a folder, standing in for a download site
(GitHub's raw files, the hub's resolve URL) in tests of `lctui data fetch`.

It is Python's own `http.server` in a thread: real requests, real responses, real
headers (Content-Length); only the address is not the real site's. `ranges=True` adds
answers to `Range: bytes=N-` requests (206 Partial Content), which the resumed
download of an archive sends; `served` counts the bytes sent, so a test can tell a
resumed download from a whole one.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


@dataclass
class Served:
    url: str  # the folder's address, ending in "/"
    sent: list[int] = field(default_factory=list)  # bytes of each file response

    @property
    def served(self) -> int:
        return sum(self.sent)


class _Handler(SimpleHTTPRequestHandler):
    ranges = False
    record: Served

    def log_message(self, format: str, *args: Any) -> None:  # quiet in test output
        return

    def do_GET(self) -> None:
        path = Path(self.translate_path(self.path))
        wanted = self.headers.get("Range", "")
        if self.ranges and wanted.startswith("bytes=") and path.is_file():
            start = int(wanted[len("bytes=") :].split("-", 1)[0])
            data = path.read_bytes()
            if start >= len(data):
                self.send_error(416)
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
            self.send_header("Content-Length", str(len(data) - start))
            self.end_headers()
            self.wfile.write(data[start:])
            self.record.sent.append(len(data) - start)
            return
        if path.is_file():
            self.record.sent.append(path.stat().st_size)
        super().do_GET()


@contextmanager
def serve_folder(folder: Path, *, ranges: bool = False) -> Iterator[Served]:
    """Serve `folder` at http://127.0.0.1:PORT/ until the block ends."""
    record = Served("")
    handler = type("Handler", (_Handler,), {"ranges": ranges, "record": record})
    server = ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(folder))
    )
    record.url = f"http://127.0.0.1:{server.server_address[1]}/"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield record
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
