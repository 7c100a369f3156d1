"""One run spread over two OpenAI-compatible servers: the engine tells its sink each
server's share of the requests, its answers, errors and latency as they change
(`ServersReported`), the live screen's state keeps them, and the run's record keeps
the final shares. The servers are fake (tests/helpers/fake_openai_server.py) because a
slow server and refusals on given requests are what no real server gives on demand;
tests/integration/test_openai_vllm_server.py runs a real one."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path

import duckdb

from helpers.fake_openai_server import FakeOpenAIServer
from lctui.backends import load_backend
from lctui.core.events import Event, ServersReported
from lctui.core.types import ModelSpec
from lctui.engine import Engine, RunRequest
from lctui.store import open_store
from lctui.tasks import select_tasks
from lctui.tui.state.run_progress import RunState
from lctui.tui.state.server_shares import server_lines, server_rows

CHUNKS = ["The special ", "number is ", "42", "."]
SLOW_CHUNK_S = 0.15  # the slow server's pause before each of its 4 chunks


def test_each_servers_share_errors_and_latency_are_told_and_kept(tmp_path: Path) -> None:
    with (
        FakeOpenAIServer("m", CHUNKS) as fast,
        FakeOpenAIServer("m", CHUNKS, fail=[1, 2], chunk_delay_s=SLOW_CHUNK_S) as slow,
    ):
        spec = ModelSpec(
            "spread",
            "openai",
            params={"base_url": [fast.base_url, slow.base_url], "model": "m", "max_retries": 0},
        )
        request = RunRequest(
            models=[spec], tasks=select_tasks("niah_single_1"), lengths=[1024], n=6
        )
        events: list[Event] = []
        store = open_store(tmp_path / "spread.duckdb")
        try:
            outcome = asyncio.run(Engine(store, load_backend, events.append).run(request))
        finally:
            store.close()
    # Round-robin: three requests each; the slow server refused its first two (HTTP 400).
    assert (outcome.done, outcome.errors) == (4, 2)
    reports = [e for e in events if isinstance(e, ServersReported)]
    assert reports and all(e.model == "spread" for e in reports)
    a, b = reports[-1].servers
    assert (a.url, b.url) == (fast.base_url, slow.base_url)
    assert (a.requests, a.ok, a.errors, a.in_flight) == (3, 3, 0, 0)
    assert (b.requests, b.ok, b.errors, b.in_flight) == (3, 1, 2, 0)
    assert b.last_error is not None and "refused the request (400): bad request" in b.last_error
    assert a.latency_s is not None and b.latency_s is not None
    assert b.latency_s > 3 * SLOW_CHUNK_S > a.latency_s
    assert a.ttft_s is not None and b.ttft_s is not None and b.ttft_s > a.ttft_s

    state = RunState(["spread"], ["niah_single_1"], [1024])
    for event in events:
        state.apply(0.0, event)
    rows = server_rows(state.servers)
    assert [(r.server, r.share, r.errors) for r in rows] == [
        (f"127.0.0.1:{fast.port}", 0.5, 0),
        (f"127.0.0.1:{slow.port}", 0.5, 2),
    ]
    assert server_lines(rows, 200)[1].startswith(f"127.0.0.1:{slow.port}  50% 3 req 2 err lat ")
    both = server_lines([*rows, replace(rows[0], model="other")], 200)
    assert both[0].startswith(f"spread 127.0.0.1:{fast.port}  50% 3 req 0 err lat ")

    con = duckdb.connect(str(tmp_path / "spread.duckdb"), read_only=True)
    (command,) = con.execute("SELECT command FROM runs").fetchone() or (None,)
    con.close()
    kept = json.loads(command)["servers"]["spread"]
    assert [s["url"] for s in kept] == [fast.base_url, slow.base_url]
    assert [(s["requests"], s["ok"], s["errors"]) for s in kept] == [(3, 3, 0), (3, 1, 2)]
