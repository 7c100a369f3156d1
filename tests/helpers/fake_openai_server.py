"""FakeOpenAIServer: a tiny OpenAI-compatible streaming server on loopback, written for
the tests, for answers no real server gives on demand.

It serves GET /v1/models (one model) and POST /v1/chat/completions as a stream of
server-sent events, one per chunk it is given, with the usage at the end. Text is
JSON-escaped as a server written in a UTF-16 language sends it: a lone surrogate
goes out as `\\ud800`, which a JSON parser turns back into a lone surrogate.
Requests named in `fail` (1-based) get HTTP 400 with `error_message` instead;
`chunk_delay_s` makes it a slow server (a pause before each chunk); `models_status`
makes GET /v1/models answer that status (429 with a Retry-After: a rate-limit storm).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterable, Sequence
from typing import Any

from aiohttp import web


class FakeOpenAIServer:
    """Runs its own event loop in a thread, so synchronous tests can use it."""

    def __init__(
        self,
        model: str,
        chunks: Sequence[str],
        *,
        fail: Iterable[int] = (),
        error_message: str = "bad request",
        max_model_len: int = 32768,
        chunk_delay_s: float = 0.0,
        models_status: int = 200,
    ) -> None:
        self.model = model
        self.chunks = list(chunks)
        self.fail = set(fail)
        self.error_message = error_message
        self.max_model_len = max_model_len
        self.chunk_delay_s = chunk_delay_s
        self.models_status = models_status
        self.requests = 0
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._serve, name="fake-openai", daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> FakeOpenAIServer:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the fake OpenAI server did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(self._main())

    async def _main(self) -> None:
        app = web.Application()
        app.router.add_get("/v1/models", self._models)
        app.router.add_post("/v1/chat/completions", self._chat)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert isinstance(server, asyncio.Server)
        self.port = server.sockets[0].getsockname()[1]
        self._stop = asyncio.Event()
        self._ready.set()
        await self._stop.wait()
        await runner.cleanup()

    async def _models(self, request: web.Request) -> web.Response:
        if self.models_status != 200:
            body = {"error": {"message": "Too many requests", "type": "rate_limit_exceeded"}}
            return web.json_response(body, status=self.models_status, headers={"Retry-After": "7"})
        entry: dict[str, object] = {"id": self.model, "object": "model", "owned_by": "fake"}
        entry["max_model_len"] = self.max_model_len
        return web.json_response({"object": "list", "data": [entry]})

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        await request.read()
        self.requests += 1
        if self.requests in self.fail:
            body = {"error": {"message": self.error_message, "type": "invalid_request"}}
            return web.Response(status=400, text=json.dumps(body), content_type="application/json")
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for text in self.chunks:
            if self.chunk_delay_s:
                await asyncio.sleep(self.chunk_delay_s)
            await response.write(self._event({"delta": {"content": text}, "finish_reason": None}))
        await response.write(self._event({"delta": {}, "finish_reason": "stop"}))
        usage = {"prompt_tokens": 100, "completion_tokens": len(self.chunks), "total_tokens": 0}
        await response.write(self._event(None, usage=usage))
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response

    def _event(self, choice: dict[str, Any] | None, usage: dict[str, int] | None = None) -> bytes:
        payload: dict[str, Any] = {
            "id": f"chatcmpl-{self.requests}",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": self.model,
            "choices": [] if choice is None else [{"index": 0, **choice}],
        }
        if usage is not None:
            payload["usage"] = usage
        # ensure_ascii (the default) writes a lone surrogate as \\udXXX, as UTF-16 servers do.
        return f"data: {json.dumps(payload)}\n\n".encode("ascii")
