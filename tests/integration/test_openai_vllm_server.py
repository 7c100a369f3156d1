"""The openai backend against a real vLLM server on loopback serving SmolLM2.

One server per session (tests/integration/conftest.py); faults that a real server
cannot produce on demand go through the FaultInjectingProxy in front of it. The
test that kills the server runs last, and restarts it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest

from helpers.fault_proxy import FaultInjectingProxy
from helpers.serving import (
    API_KEY,
    KEY_ENV,
    SERVED_NAME,
    LoopbackServer,
    checkpoint,
    start_test_server,
)
from lctui.backends import load_backend
from lctui.backends.openai_backend import OpenAIBackend, load_openai
from lctui.cli import main
from lctui.core.events import ChunkReceived, Event, ExampleScored, ServersReported
from lctui.core.types import GenerationConfig, ModelSpec, Request
from lctui.engine import Engine, RunOutcome, RunRequest
from lctui.store import open_store
from lctui.tasks import select_tasks

pytestmark = [pytest.mark.slow, pytest.mark.model]
MODEL = "smol-api"


def _spec(server: LoopbackServer | FaultInjectingProxy, **params: Any) -> ModelSpec:
    # The checkpoint's path gives the backend its tokenizer, for exact prompt budgets.
    return ModelSpec(
        MODEL,
        "openai",
        path=checkpoint(),
        params={
            "base_url": server.base_url,
            "model": SERVED_NAME,
            "api_key_env": KEY_ENV,
            **params,
        },
    )


def _config(tmp_path: Path, base_url: str, **params: Any) -> Path:
    settings: dict[str, Any] = {"backend": "openai", "path": checkpoint(), "base_url": base_url}
    settings["model"] = SERVED_NAME
    settings.update({"api_key_env": KEY_ENV, **params})
    body = "".join(f"{k} = {_toml(v)}\n" for k, v in settings.items())
    path = tmp_path / "lctui.toml"
    path.write_text(f"[models.{MODEL}]\n{body}", encoding="utf-8")
    return path


def _toml(value: Any) -> str:
    return f'"{value}"' if isinstance(value, str) else str(value)


def _cli_args(config: Path, db: Path, n: int = 2) -> list[str]:
    return [
        "run", "--config", str(config), "--model", MODEL, "--tasks", "niah_single_1,vt",
        "--lengths", "1k", "--n", str(n), "--db", str(db),
    ]  # fmt: skip


def _engine_run(
    db: Path, spec: ModelSpec, sink: Callable[[Event], None], n: int = 2
) -> tuple[RunOutcome, list[OpenAIBackend]]:
    """A run through the engine, keeping the loaded backend for inspection."""
    loaded: list[OpenAIBackend] = []

    def loader(model: ModelSpec, tokenizer: str | None) -> Any:
        backend = load_backend(model, tokenizer)
        assert isinstance(backend, OpenAIBackend)
        loaded.append(backend)
        return backend

    request = RunRequest(models=[spec], tasks=select_tasks("niah_single_1,vt"), lengths=[1024], n=n)
    store = open_store(db)
    try:
        return asyncio.run(Engine(store, loader, sink).run(request)), loaded
    finally:
        store.close()


def _statuses(db: Path) -> list[tuple[str, str | None]]:
    """Per generation key, the status of its latest attempt (what a resume looks at)."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(
            "SELECT arg_max(status, started_at), arg_max(error, started_at) FROM generations "
            "GROUP BY gen_key"
        ).fetchall()
    finally:
        con.close()


def _database_text(db: Path) -> str:
    """Every value of every table as text, to look for a leaked secret."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        tables = [r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()]
        return "\n".join(
            str(con.execute(f'SELECT * FROM "{table}"').fetchall()) for table in tables
        )
    finally:
        con.close()


async def _collect(backend: OpenAIBackend, prompt: str, max_new: int) -> dict[str, Any]:
    config = GenerationConfig(max_new_tokens=max_new)
    request = Request("x", config, prompt, messages=({"role": "user", "content": prompt},))
    started = time.monotonic()
    chunks = [c async for c in backend.stream(request)]
    return {"chunks": chunks, "start": started, "end": time.monotonic()}


def test_streams_with_usage_and_the_exact_prompt(vllm_test_server: LoopbackServer) -> None:
    backend = load_openai(_spec(vllm_test_server))
    task = select_tasks("niah_single_1")[0]
    example = task.generate(1024, 0, 0, backend.tokenizer)
    request = backend.build_request(example, GenerationConfig(max_new_tokens=24))

    async def go() -> list[Any]:
        try:
            return [c async for c in backend.stream(request)]
        finally:
            await backend.close()

    chunks = asyncio.run(go())
    assert backend.max_context == 4096 and backend.max_context_source == "server"
    # vLLM continues the prefilled answer prefix: the prompt it read is ours, token for token.
    assert request.messages[-1] == {"role": "assistant", "content": example.answer_prefix}
    final = chunks[-1]
    assert final.finish_reason in ("stop", "length") and final.text == ""
    assert final.prompt_tokens == backend.tokenizer.count(request.prompt)
    framing = backend.template_overhead(example.answer_prefix)
    assert final.prompt_tokens == backend.tokenizer.count(example.user_text) + framing
    texts = [c.text for c in chunks if c.text]
    assert len(texts) >= 2, "the answer must arrive in pieces, not at once"
    assert final.output_tokens is not None and 0 < final.output_tokens <= 24
    assert not any(c.restart for c in chunks)


def test_four_requests_run_concurrently(vllm_test_server: LoopbackServer) -> None:
    backend = load_openai(_spec(vllm_test_server))

    async def go() -> list[dict[str, Any]]:
        try:
            return await asyncio.gather(
                *(
                    _collect(backend, f"Write a long story about the number {i}.", 48)
                    for i in range(4)
                )
            )
        finally:
            await backend.close()

    results = asyncio.run(go())
    assert backend.limiter is None  # closed
    # All four were being answered at the same moment (the server batched them).
    assert max(r["start"] for r in results) < min(r["end"] for r in results)
    assert all(r["chunks"][-1].output_tokens for r in results)


def test_cancel_mid_stream_aborts_and_stores_nothing(
    vllm_test_server: LoopbackServer, tmp_path: Path
) -> None:
    db = tmp_path / "cancel.duckdb"
    assert vllm_test_server.process is not None
    seen = vllm_test_server.process.total_lines

    async def run_and_cancel() -> RunOutcome:
        first_chunk = asyncio.Event()

        def sink(event: Event) -> None:
            if isinstance(event, ChunkReceived) and event.text:
                first_chunk.set()

        store = open_store(db)
        spec = _spec(vllm_test_server, max_concurrency=1)
        # 128 answer tokens: still generating when the first one arrives and we cancel.
        request = RunRequest(models=[spec], tasks=select_tasks("niah_single_1"), lengths=[1024])
        try:
            task = asyncio.ensure_future(Engine(store, load_backend, sink).run(request))
            await asyncio.wait_for(first_chunk.wait(), 120)
            task.cancel()
            return await task
        finally:
            store.close()

    outcome = asyncio.run(run_and_cancel())
    assert outcome.cancelled
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM generations").fetchone() == (0,)
    con.close()
    # Closing the stream made the server abort the request (it did not run to the end).
    assert vllm_test_server.process is not None
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        new, _ = vllm_test_server.process.new_lines(seen)
        if any("aborted" in line.lower() for line in new):
            break
        time.sleep(0.2)
    assert any("aborted" in line.lower() for line in new), "the server must abort the request"


def test_cli_run_into_duckdb(
    vllm_test_server: LoopbackServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(tmp_path, vllm_test_server.base_url)
    db = tmp_path / "api.duckdb"
    assert main(_cli_args(config, db)) == 0
    assert "4 done, 0 error(s)" in capsys.readouterr().out
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute(
        "SELECT status, prompt_tokens, output_tokens, ttft_s, latency_s, output FROM generations"
    ).fetchall()
    con.close()
    assert len(rows) == 4
    for status, prompt_tokens, output_tokens, ttft, latency, output in rows:
        assert status == "ok" and 800 < prompt_tokens <= 1024 and output_tokens > 0
        # Time to first token counts from the first text; an empty answer (EOS at once) has none.
        assert (0 < ttft <= latency) if output else ttft is None
    assert any(row[3] is not None for row in rows)
    assert API_KEY not in _database_text(db)
    assert main(_cli_args(config, db)) == 0
    assert "Nothing to do" in capsys.readouterr().out


def test_a_storm_of_faults_ends_stored_and_a_resume_finishes(
    vllm_test_server: LoopbackServer, tmp_path: Path
) -> None:
    db = tmp_path / "storm.duckdb"
    events: list[Event] = []
    storm = ["429", "500", "slow", "drop", "malformed", "429", "drop", "500", "slow", "malformed"]
    with FaultInjectingProxy(vllm_test_server.port, slow_s=30.0) as proxy:
        proxy.script(storm)
        spec = _spec(proxy, timeout_s=25, max_retries=3, max_concurrency=4)
        outcome, _ = _engine_run(db, spec, events.append, n=3)
        assert sum(proxy.injected.values()) == len(storm)
        assert set(proxy.injected) == {"429", "500", "slow", "drop", "malformed"}
        assert outcome.done + outcome.errors == 6
        # A dropped or malformed stream that had sent text restarts its answer.
        restarts = [e for e in events if isinstance(e, ChunkReceived) and e.restart]
        assert restarts, "a retried stream must tell the consumer to drop its text"
        statuses = _statuses(db)
        assert len(statuses) == 6 and all(s in ("ok", "error") for s, _ in statuses)
        # Whatever failed for good is retried by the next run of the same request.
        again, _ = _engine_run(db, spec, events.append, n=3)
        assert again.done == outcome.errors and again.errors == 0
    assert all(status == "ok" for status, _ in _statuses(db))
    assert API_KEY not in _database_text(db)


def test_one_run_over_two_replicas_counts_each_servers_share(
    vllm_test_server: LoopbackServer, tmp_path: Path
) -> None:
    """Two real vLLM servers on loopback serve one run (the second starts here, 30 s to
    2 minutes on 2 cores), the second through a relay that answers 500 to two requests:
    each refused attempt is retried on the other replica, and each replica's share,
    answers, errors and latency are told while the run goes and kept on its record."""
    replica = start_test_server(tmp_path / "replica")
    events: list[Event] = []
    try:
        with FaultInjectingProxy(replica.port) as proxy:
            proxy.script(["500", "500"])
            spec = _spec(vllm_test_server, max_concurrency=2)
            urls = [vllm_test_server.base_url, proxy.base_url]
            spread = dataclasses.replace(spec, params={**spec.params, "base_url": urls})
            outcome, _ = _engine_run(tmp_path / "spread.duckdb", spread, events.append, n=3)
    finally:
        replica.stop()
    assert (outcome.done, outcome.errors) == (6, 0)
    first, second = [e for e in events if isinstance(e, ServersReported)][-1].servers
    assert (first.url, second.url) == (vllm_test_server.base_url, proxy.base_url)
    assert first.requests + second.requests == 8  # 6 answers and 2 retried attempts
    assert (first.errors, second.errors) == (0, 2)
    assert first.ok + second.ok == 6 and first.ok > 0 and second.ok > 0
    assert second.last_error is not None and "answered 500" in second.last_error
    assert first.latency_s is not None and second.latency_s is not None
    con = duckdb.connect(str(tmp_path / "spread.duckdb"), read_only=True)
    row = con.execute(f"SELECT json_extract(command, '$.servers.\"{MODEL}\"') FROM runs").fetchone()
    con.close()
    assert row is not None
    assert [(s["ok"], s["errors"]) for s in json.loads(row[0])] == [
        (first.ok, 0),
        (second.ok, 2),
    ]


def test_the_limiter_halves_on_429_and_recovers(vllm_test_server: LoopbackServer) -> None:
    with FaultInjectingProxy(vllm_test_server.port, retry_after="0") as proxy:
        backend = load_openai(_spec(proxy, max_concurrency=8))
        proxy.script(["429"] * 3)

        async def go() -> tuple[int, int]:
            try:
                await asyncio.gather(*(_collect(backend, f"Say {i}.", 4) for i in range(8)))
                assert backend.limiter is not None
                after_storm = backend.limiter.limit
                for _ in range(4):
                    await asyncio.gather(*(_collect(backend, "Hi.", 2) for _ in range(8)))
                return after_storm, backend.limiter.limit
            finally:
                await backend.close()

        after_storm, recovered = asyncio.run(go())
    assert proxy.injected["429"] == 3
    assert after_storm < 8
    assert recovered > after_storm


def test_wrong_api_key_is_one_clear_line(
    vllm_test_server: LoopbackServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(KEY_ENV, "not-the-key")
    config = _config(tmp_path, vllm_test_server.base_url)
    assert main(_cli_args(config, tmp_path / "k.duckdb")) == 2
    err = capsys.readouterr().err
    assert f"rejected the API key from ${KEY_ENV} (401)" in err
    assert "Traceback" not in err and "not-the-key" not in err
    assert len(err.strip().splitlines()) == 1


def test_a_model_the_server_lacks_is_named(
    vllm_test_server: LoopbackServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(tmp_path, vllm_test_server.base_url, model="llama-9000")
    assert main(_cli_args(config, tmp_path / "m.duckdb")) == 2
    err = capsys.readouterr().err
    assert f"serves {SERVED_NAME}; not llama-9000" in err and "Traceback" not in err


def test_server_killed_mid_run_then_resume_finishes(
    vllm_test_server: LoopbackServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Last in the module: it kills the shared server and starts it again."""
    db = tmp_path / "killed.duckdb"
    config = _config(tmp_path, vllm_test_server.base_url, max_retries=1, max_concurrency=1)
    spec = _spec(vllm_test_server, max_retries=1, max_concurrency=1)

    def kill_after_first(event: Event) -> None:
        process = vllm_test_server.process
        if isinstance(event, ExampleScored) and process and process.exit_code() is None:
            vllm_test_server.kill()

    outcome, _ = _engine_run(db, spec, kill_after_first)
    assert outcome.done >= 1 and outcome.errors >= 1
    errors = [e for s, e in _statuses(db) if s == "error"]
    assert errors and all("cannot reach" in str(e) for e in errors)
    vllm_test_server.start()
    assert main(_cli_args(config, db)) == 0
    assert f"{outcome.errors} done, 0 error(s), {outcome.done} already stored" in (
        capsys.readouterr().out
    )
    assert all(status == "ok" for status, _ in _statuses(db))
