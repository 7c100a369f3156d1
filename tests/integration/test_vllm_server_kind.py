"""The `vllm-server` model kind end to end: lctui starts a real vLLM server, uses it, stops it.

The first run loses its server mid-run (killed as a crash would): the examples left
are stored as errors at once, not after a minute of retries against a dead server.
The same command then starts a fresh server and finishes the rest.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
from pathlib import Path
from typing import Any

import duckdb
import pytest

from helpers.serving import CPU_SERVER_ARGS, checkpoint
from lctui.backends import load_backend
from lctui.backends.vllm_server import VLLMServerBackend, group_alive, running_servers
from lctui.cli import main
from lctui.core.config import load_config
from lctui.core.events import Event, ExampleScored
from lctui.core.types import ModelSpec
from lctui.engine import Engine, RunRequest
from lctui.store import open_store
from lctui.tasks import select_tasks

pytestmark = [pytest.mark.slow, pytest.mark.model]
MODEL = "smol-served"


def _write_config(tmp_path: Path) -> Path:
    args = ", ".join(f'"{a}"' for a in CPU_SERVER_ARGS)
    path = tmp_path / "lctui.toml"
    path.write_text(
        f'[models.{MODEL}]\nbackend = "vllm-server"\npath = "{checkpoint()}"\n'
        f"max_model_len = 4096\nmax_retries = 1\nserver_args = [{args}]\n",
        encoding="utf-8",
    )
    return path


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def test_lctui_starts_uses_and_stops_the_server_and_resumes_after_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _write_config(tmp_path)
    spec: ModelSpec = load_config(str(config)).models[MODEL]
    loaded: list[VLLMServerBackend] = []
    seen_log: list[str] = []

    def loader(model: ModelSpec, tokenizer: str | None) -> Any:
        backend = load_backend(model, tokenizer)
        assert isinstance(backend, VLLMServerBackend)
        loaded.append(backend)
        return backend

    def crash_after_first(event: Event) -> None:
        server = loaded[0].server
        if isinstance(event, ExampleScored) and server.exit_code() is None:
            seen_log.extend(loaded[0].log_lines())
            assert server.pid is not None
            os.killpg(server.pid, signal.SIGKILL)

    db = tmp_path / "served.duckdb"
    request = RunRequest(models=[spec], tasks=select_tasks("niah_single_1,vt"), lengths=[1024], n=2)
    store = open_store(db)
    try:
        outcome = asyncio.run(Engine(store, loader, crash_after_first).run(request))
    finally:
        store.close()
    assert outcome.done >= 1 and outcome.errors >= 1 and outcome.done + outcome.errors == 4
    server = loaded[0].server
    port = int(loaded[0].settings.base_urls[0].rsplit(":", 1)[1].split("/")[0])
    # Stopped and forgotten: no process of its group is left, nothing listens on its port.
    assert server.pid is not None and not group_alive(server.pid)
    assert not _listening(port) and MODEL not in running_servers()
    log = server.log_path.read_text(encoding="utf-8")
    assert server.log_path.parent.name == "servers" and "vLLM" in log
    assert any("/v1/chat/completions" in line for line in seen_log)
    con = duckdb.connect(str(db), read_only=True)
    errors = con.execute("SELECT error FROM generations WHERE status = 'error'").fetchall()
    con.close()
    assert len(errors) == outcome.errors
    assert all("exited" in str(e[0]) and str(server.log_path) in str(e[0]) for e in errors)

    # The same request through the CLI: a fresh server finishes what the crash left.
    args = ["run", "--config", str(config), "--model", MODEL, "--tasks", "niah_single_1,vt"]
    assert main([*args, "--lengths", "1k", "--n", "2", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert f"{outcome.errors} done, 0 error(s), {outcome.done} already stored" in out
    assert MODEL not in running_servers()
    logs = sorted(server.log_path.parent.glob(f"{MODEL}-*.log"))
    assert len(logs) == 2  # one per start, named by model, time and port
    assert not any(_listening(int(log.stem.rsplit("-", 1)[1])) for log in logs)
