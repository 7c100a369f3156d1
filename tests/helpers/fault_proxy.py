"""FaultInjectingProxy: an HTTP proxy in front of a real server that injects scripted faults.

A real server cannot be asked to answer 429, to stall, or to cut a stream mid-way on
demand, so generation requests (POST .../completions) pass through this proxy, which
applies the next fault of its script to each; everything else passes untouched.

Faults: "429" (with Retry-After), "500", "slow" (stall `slow_s` before forwarding:
longer than the client's timeout), "drop" (relay the first four events of the stream,
then cut the connection), "malformed" (a non-JSON SSE data line after the third
event), None (pass through). vLLM's first event carries only the role, so "drop" and
"malformed" strike after some answer text went out, and the retry must restart it.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import Iterable

FAULTS = ("429", "500", "slow", "drop", "malformed")


class FaultInjectingProxy:
    """Runs its own event loop in a thread so sync and async tests can both use it."""

    def __init__(self, upstream_port: int, *, slow_s: float = 5.0, retry_after: str = "1") -> None:
        self.upstream_port = upstream_port
        self.slow_s = slow_s
        self.retry_after = retry_after
        self.port = 0
        self.injected: Counter[str] = Counter()
        self.passed = 0
        self._script: list[str | None] = []
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="fault-proxy", daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def script(self, faults: Iterable[str | None]) -> None:
        """Faults for the next generation requests, in order; then requests pass."""
        with self._lock:
            self._script = list(faults)

    def _next_fault(self) -> str | None:
        with self._lock:
            return self._script.pop(0) if self._script else None

    def __enter__(self) -> FaultInjectingProxy:
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", 0))
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()
        server.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while await self._one_request(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    async def _one_request(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        """Serve one request; False when the client connection should close."""
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        length = 0
        for line in lines[1:]:
            if line.lower().startswith("content-length:"):
                length = int(line.split(":", 1)[1])
        body = await reader.readexactly(length) if length else b""
        method, path = lines[0].split(" ")[:2]
        fault = self._next_fault() if method == "POST" and path.endswith("completions") else None
        if fault is None:
            self.passed += 1
        else:
            self.injected[fault] += 1
        if fault in ("429", "500"):
            payload = b'{"error": {"message": "injected fault", "type": "fault", "code": %s}}' % (
                fault.encode()
            )
            extra = f"Retry-After: {self.retry_after}\r\n" if fault == "429" else ""
            writer.write(
                f"HTTP/1.1 {fault} Injected\r\nContent-Type: application/json\r\n{extra}"
                f"Content-Length: {len(payload)}\r\n\r\n".encode()
                + payload
            )
            await writer.drain()
            return True
        if fault == "slow":
            await asyncio.sleep(self.slow_s)
        # Forward with Connection: close so the upstream answer ends at EOF or its last chunk.
        kept = [ln for ln in lines[1:] if ln and not ln.lower().startswith("connection:")]
        request = "\r\n".join([lines[0], *kept, "Connection: close", "", ""]).encode() + body
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        try:
            up_writer.write(request)
            await up_writer.drain()
            return await self._relay(up_reader, writer, fault)
        finally:
            up_writer.close()

    async def _relay(
        self, up: asyncio.StreamReader, writer: asyncio.StreamWriter, fault: str | None
    ) -> bool:
        head = await up.readuntil(b"\r\n\r\n")
        writer.write(head)
        if b"transfer-encoding: chunked" not in head.lower():
            writer.write(await up.read())
            await writer.drain()
            return False
        chunks = 0
        while True:
            size_line = await up.readuntil(b"\r\n")
            size = int(size_line.strip().split(b";")[0], 16)
            data = await up.readexactly(size + 2)
            if fault == "drop" and chunks == 4:
                # Cut mid-stream: no terminating chunk, the connection just ends.
                await writer.drain()
                writer.transport.abort()
                return False
            writer.write(size_line + data)
            chunks += 1
            if fault == "malformed" and chunks == 3:
                bad = b"data: {this is not json\n\n"
                writer.write(b"%x\r\n%s\r\n" % (len(bad), bad))
            await writer.drain()
            if size == 0:
                return False
