"""FakeServerIgnoringMaxTokens: an OpenAI-compatible loopback server that never stops talking.

A real server honours max_tokens, so it cannot show what the engine does with one
that does not (issue 17.6). This one serves GET /v1/models and streams
POST /v1/chat/completions as server-sent events, one word per event, ignoring
max_tokens, until the client hangs up (or a ceiling far above any test's cap). It
records what it was asked for and whether the client aborted the stream.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "endless"
CEILING = 20_000  # events per request; the engine must stop reading long before
WINDOW = 32_768


class FakeServerIgnoringMaxTokens:
    """Runs in a thread; `requests` lists (max tokens asked, events sent, aborted)."""

    def __init__(self, pause_s: float = 0.0005) -> None:
        self.pause_s = pause_s
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"  # the body ends when the connection closes

            def log_message(self, *args: object) -> None:
                return None

            def do_GET(self) -> None:
                body = {
                    "object": "list",
                    "data": [
                        {
                            "id": MODEL,
                            "object": "model",
                            "owned_by": "fake",
                            "max_model_len": WINDOW,
                        }
                    ],
                }
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                asked = json.loads(self.rfile.read(length) or b"{}")
                record: dict[str, Any] = {
                    "max_tokens": asked.get("max_completion_tokens", asked.get("max_tokens")),
                    "sent": 0,
                    "aborted": False,
                }
                with server._lock:
                    server.requests.append(record)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                try:
                    for i in range(CEILING):
                        self.wfile.write(_event(f"word{i} "))
                        self.wfile.flush()
                        record["sent"] = i + 1
                        time.sleep(server.pause_s)
                    self.wfile.write(_event("", finish="length") + b"data: [DONE]\n\n")
                except (BrokenPipeError, ConnectionResetError):
                    record["aborted"] = True

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> FakeServerIgnoringMaxTokens:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def _event(text: str, finish: str | None = None) -> bytes:
    chunk = {
        "id": "fake",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": MODEL,
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}],
    }
    return f"data: {json.dumps(chunk)}\n\n".encode()
