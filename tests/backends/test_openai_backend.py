"""The openai backend's policy pieces (limiter, backoff, Retry-After, round-robin) and settings.

The policy is tested with an injected random source; load-time errors against a
port nobody listens on are real. Tests against a real vLLM server live in
tests/integration/test_openai_vllm_server.py.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from helpers.fake_openai_server import FakeOpenAIServer
from lctui.backends.openai_backend import OpenAIBackend, load_openai
from lctui.backends.resilience import (
    AdaptiveLimiter,
    Backoff,
    RoundRobin,
    ServerInfo,
    normalise_url,
    read_settings,
    redact,
    retry_after_seconds,
)
from lctui.backends.vllm_server import (
    ServerProcess,
    group_alive,
    load_vllm_server,
    running_servers,
)
from lctui.core.errors import BackendError, UserInputError
from lctui.core.types import GenerationConfig, ModelSpec
from lctui.tasks import select_tasks


def test_limiter_halves_once_per_burst_of_429s_and_recovers() -> None:
    async def scenario() -> None:
        limiter = AdaptiveLimiter(16, recover_after=4)
        tickets = []
        for _ in range(16):
            async with limiter.slot() as ticket:
                tickets.append(ticket)
        # All 16 were admitted in one epoch: their 429s are one signal.
        for ticket in tickets:
            limiter.throttled(ticket)
        assert limiter.limit == 8
        async with limiter.slot() as ticket:
            limiter.throttled(ticket)
        assert limiter.limit == 4
        for _ in range(4 * 12):
            async with limiter.slot():
                limiter.succeeded()
        assert limiter.limit == 16  # +1 per 4 successes, capped at the maximum

    asyncio.run(scenario())


def test_limiter_never_drops_below_one() -> None:
    async def scenario() -> None:
        limiter = AdaptiveLimiter(3)
        for _ in range(10):
            async with limiter.slot() as ticket:
                limiter.throttled(ticket)
        assert limiter.limit == 1

    asyncio.run(scenario())


def test_limiter_gates_the_requests_in_flight() -> None:
    async def scenario() -> int:
        limiter = AdaptiveLimiter(8)
        limiter.limit = 2  # as after two cuts

        async def request() -> None:
            async with limiter.slot():
                await asyncio.sleep(0.01)

        await asyncio.gather(*(request() for _ in range(10)))
        return limiter.peak_in_flight

    assert asyncio.run(scenario()) == 2


def test_backoff_is_exponential_with_full_jitter_and_a_cap() -> None:
    top = Backoff(base_s=0.5, cap_s=10.0, rand=lambda: 1.0)
    assert [top.delay(n) for n in range(6)] == [0.5, 1.0, 2.0, 4.0, 8.0, 10.0]
    assert Backoff(rand=lambda: 0.0).delay(5) == 0.0
    half = Backoff(base_s=1.0, cap_s=100.0, rand=lambda: 0.5)
    assert half.delay(3) == 4.0


def test_backoff_waits_at_least_what_retry_after_asks() -> None:
    backoff = Backoff(base_s=0.5, rand=lambda: 0.1)
    assert backoff.delay(0, retry_after_s=3.0) == 3.0
    assert backoff.delay(0, retry_after_s=10_000.0) == 120.0  # capped
    assert Backoff(base_s=100.0, cap_s=100.0, rand=lambda: 1.0).delay(0, 3.0) == 100.0


def test_retry_after_reads_seconds_milliseconds_and_dates() -> None:
    assert retry_after_seconds({"Retry-After": "7"}) == 7.0
    assert retry_after_seconds({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    date = email.utils.formatdate(1_000_030.0, usegmt=True)
    assert retry_after_seconds({"Retry-After": date}, now=lambda: 1_000_000.0) == 30.0
    assert retry_after_seconds({"Retry-After": "soon"}) is None
    assert retry_after_seconds({}) is None


def test_round_robin_visits_every_url_in_turn_and_keeps_failed_ones() -> None:
    urls = RoundRobin(["a", "b", "c"])
    assert [urls.pick() for _ in range(7)] == [0, 1, 2, 0, 1, 2, 0]


def test_urls_are_normalised_and_keys_redacted() -> None:
    assert normalise_url("http://127.0.0.1:8000") == "http://127.0.0.1:8000/v1"
    assert normalise_url("https://api.example.com/v1/") == "https://api.example.com/v1"
    assert normalise_url("https://x.ai/api/v1") == "https://x.ai/api/v1"
    with pytest.raises(UserInputError, match="not an http"):
        normalise_url("127.0.0.1:8000")
    assert redact("bad key sk-123 here", "sk-123") == "bad key *** here"


def test_settings_are_checked_with_messages_that_say_what_to_do() -> None:
    with pytest.raises(UserInputError, match="needs base_url"):
        read_settings(ModelSpec("m", "openai"))
    with pytest.raises(UserInputError, match=r"unknown setting.*dtype"):
        read_settings(ModelSpec("m", "openai", params={"base_url": "http://h", "dtype": "x"}))
    settings = read_settings(
        ModelSpec("m", "openai", params={"base_url": ["http://a:1", "http://b:2/v1"]})
    )
    assert settings.base_urls == ("http://a:1/v1", "http://b:2/v1")
    assert settings.model == "m" and settings.endpoint == "chat"
    assert settings.max_retries == 5 and settings.max_concurrency == 16


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_unreachable_server_is_one_clear_line() -> None:
    port = _closed_port()
    spec = ModelSpec("m", "openai", params={"base_url": f"http://127.0.0.1:{port}"})
    with pytest.raises(BackendError) as err:
        load_openai(spec)
    message = str(err.value)
    assert message == (
        f"cannot reach http://127.0.0.1:{port}/v1: connection refused; is the server running?"
    )


class FakeModelListServer(ThreadingHTTPServer):
    """A loopback server whose GET /v1/models lists `ids` (nothing else): no real server
    lists the API key as a model id on demand, a misconfigured proxy might."""

    def __init__(self, ids: list[str]) -> None:
        listing = json.dumps({"object": "list", "data": [{"id": i} for i in ids]}).encode()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                found = self.path.rstrip("/") == "/v1/models"
                self.send_response(200 if found else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(listing) if found else 0))
                self.end_headers()
                if found:
                    self.wfile.write(listing)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)

    def __enter__(self) -> FakeModelListServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()


def test_a_model_list_holding_the_key_is_masked_in_the_message_with_fake_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    key = "sk-listed-key-4711"
    monkeypatch.setenv("LCTUI_UNIT_KEY", key)
    with FakeModelListServer(["llama-8b", key]) as server:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        params = {"base_url": url, "api_key_env": "LCTUI_UNIT_KEY", "model": "mistral-7b"}
        with pytest.raises(BackendError) as err:
            load_openai(ModelSpec("m", "openai", params=params))
    message = str(err.value)
    assert key not in message
    assert f"server {url}/v1 serves llama-8b, ***; not mistral-7b." in message


def test_a_rate_limited_model_list_says_the_server_is_rate_limiting_with_fake_server() -> None:
    """A 429 storm on GET /models is a fault a real server cannot make on demand."""
    with FakeOpenAIServer("m", ["hi"], models_status=429) as server:
        spec = ModelSpec("m", "openai", params={"base_url": server.base_url})
        with pytest.raises(BackendError) as err:
            load_openai(spec)
    message = str(err.value)
    assert "rate-limiting" in message
    assert "Retry-After 7 s" in message
    assert "OpenAI-compatible" not in message


# -- the vllm-server kind's supervision, with real (small) child processes --------------


def test_a_server_that_exits_while_starting_shows_its_last_lines(tmp_path: Path) -> None:
    script = "print('loading'); print('ValueError: not enough memory'); raise SystemExit(3)"
    process = ServerProcess("m", [sys.executable, "-c", script], tmp_path / "m.log")
    process.start()
    try:
        with pytest.raises(BackendError) as err:
            process.wait_ready(f"http://127.0.0.1:{_closed_port()}", timeout_s=30)
    finally:
        process.stop()
    message = str(err.value)
    assert "exited with code 3 while starting" in message
    assert "ValueError: not enough memory" in message and str(tmp_path / "m.log") in message
    assert "m" not in running_servers()


def test_stop_ends_the_whole_process_group(tmp_path: Path) -> None:
    # The "server" starts a grandchild, as vLLM starts its engine core.
    script = (
        "import subprocess, sys, time\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "print('ready', flush=True); time.sleep(60)\n"
    )
    process = ServerProcess("m", [sys.executable, "-c", script], tmp_path / "m.log")
    process.start()
    assert process.pid is not None and running_servers()["m"] is process
    deadline = time.monotonic() + 10
    while "ready" not in process.lines() and time.monotonic() < deadline:
        time.sleep(0.05)
    started = time.monotonic()
    process.stop()
    assert time.monotonic() - started < 10  # SIGTERM sufficed, no grace period wait
    assert not group_alive(process.pid)
    assert "m" not in running_servers()


def test_the_server_stops_when_lctui_is_killed(tmp_path: Path) -> None:
    """SIGKILL leaves no chance for atexit: the guard notices its parent is gone."""
    pid_file = tmp_path / "server.pid"
    parent = (
        "import os, sys, time\n"
        "from pathlib import Path\n"
        "from lctui.backends.vllm_server import ServerProcess\n"
        f"p = ServerProcess('m', [sys.executable, '-c', 'import time; time.sleep(60)'], "
        f"Path({str(tmp_path / 'm.log')!r}))\n"
        "p.start()\n"
        f"Path({str(pid_file)!r}).write_text(str(p.pid))\n"
        "time.sleep(60)\n"
    )
    lctui = subprocess.Popen([sys.executable, "-c", parent])
    try:
        deadline = time.monotonic() + 30
        while not pid_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        group = int(pid_file.read_text())
        assert group_alive(group)
    finally:
        lctui.kill()
        lctui.wait()
    deadline = time.monotonic() + 10
    while group_alive(group) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not group_alive(group)


def test_vllm_server_settings_are_checked_before_anything_starts() -> None:
    spec = ModelSpec("m", "vllm-server", path="/x", params={"base_url": "http://h", "dtype": "x"})
    with pytest.raises(UserInputError) as err:
        load_vllm_server(spec)
    assert "unknown setting(s) base_url, dtype" in str(err.value)
    assert "gpu_memory_utilization" in str(err.value) and not running_servers()


# -- how requests are framed, without a server ---------------------------------------------


def _backend(info: ServerInfo, monkeypatch: pytest.MonkeyPatch, **params: Any) -> OpenAIBackend:
    monkeypatch.setenv("LCTUI_UNIT_KEY", "sk-secret-123")
    spec = ModelSpec(
        "m", "openai", params={"base_url": "http://h:1", "api_key_env": "LCTUI_UNIT_KEY", **params}
    )
    return OpenAIBackend("m", read_settings(spec), info)


def _example(backend: OpenAIBackend) -> Any:
    task = select_tasks("niah_single_1")[0]
    return task.generate(1024, 0, 0, backend.tokenizer)


def test_a_vllm_server_continues_the_answer_prefix_others_get_it_appended(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    vllm = _backend(ServerInfo(("m",), 8192, True), monkeypatch)
    example = _example(vllm)
    config = GenerationConfig(max_new_tokens=16)
    prefilled = vllm.build_request(example, config)
    assert [m["role"] for m in prefilled.messages] == ["user", "assistant"]
    assert prefilled.messages[1]["content"] == example.answer_prefix
    other = _backend(ServerInfo(("m",), None, False), monkeypatch)
    appended = other.build_request(example, config)
    assert appended.messages == (
        {"role": "user", "content": f"{example.user_text}\n\n{example.answer_prefix}"},
    )
    assert appended.prompt == appended.prompt_head + example.user_text + appended.prompt_tail
    assert other.max_context == 131072 and other.max_context_source == "assumed"
    assert vllm.max_context == 8192
    # Without a local tokenizer the budget is approximate: the example still fits it.
    assert example.prompt_tokens <= 1024 - config.max_new_tokens


def test_the_fingerprint_names_servers_and_model_never_the_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    info = ServerInfo(("m",), None, True)
    one = _backend(info, monkeypatch)
    assert one.fingerprint == _backend(info, monkeypatch).fingerprint
    monkeypatch.setenv("LCTUI_UNIT_KEY", "another-key")
    assert OpenAIBackend("m", one.settings, info).fingerprint == one.fingerprint
    assert _backend(info, monkeypatch, endpoint="completions").fingerprint != one.fingerprint
    assert _backend(info, monkeypatch, model="other").fingerprint != one.fingerprint
    assert "sk-secret-123" not in one.fingerprint
    with pytest.raises(UserInputError, match="needs endpoint = 'completions'"):
        _backend(info, monkeypatch, prompt_format="plain")
