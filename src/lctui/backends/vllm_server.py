"""The `vllm-server` model kind: lctui starts vLLM's OpenAI-compatible server and uses it.

The server runs as a supervised subprocess on a free loopback port, in its own
process group behind a small guard process that stops it if lctui dies without
cleaning up. Its output goes to a log file under the data directory and into a
ring of recent lines for the TUI's log panel. Once /health answers, the model is
used through the `openai` backend; `close()` (or interpreter exit) stops the server.
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import contextlib
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import IO

from lctui.backends.embedded import EMBEDDED_PATH, embedded_checkpoint
from lctui.backends.fingerprint import checkpoint_identity
from lctui.backends.openai_backend import OpenAIBackend
from lctui.backends.resilience import (
    DEFAULT_CONCURRENCY,
    OpenAISettings,
    probe_servers,
    read_settings,
)
from lctui.backends.settings import vllm_params
from lctui.core.backend_settings import settings_of
from lctui.core.errors import BackendError, UserInputError
from lctui.core.hashing import stable_hash
from lctui.core.paths import data_dir
from lctui.core.private import open_private, prepare_output
from lctui.core.text import escape_unprintable
from lctui.core.types import ModelSpec

log = logging.getLogger(__name__)
START_TIMEOUT_S = 600.0  # a cold start on 2 CPU cores takes 30 s to 2 minutes
STOP_GRACE_S = 30.0
LOG_TAIL_LINES = 500
PROGRESS_EVERY_S = 15.0
# The settings of the server itself; the others are the openai client's.
_SERVER_PARAMS = frozenset(settings_of("vllm-server")) - frozenset(settings_of("openai"))
# Runs the server as its child and stops it when lctui (its parent) is gone, also
# after a SIGKILL that left no chance for atexit; SIGTERM is passed on.
_GUARD = """
import os, signal, subprocess, sys, time
parent = int(sys.argv[1])
child = subprocess.Popen(sys.argv[2:])
signal.signal(signal.SIGTERM, lambda *_: child.terminate())
while child.poll() is None:
    if os.getppid() != parent:
        child.terminate()
        try:
            child.wait(30)
        except subprocess.TimeoutExpired:
            child.kill()
        break
    time.sleep(1)
sys.exit(child.wait())
"""

_running: dict[str, ServerProcess] = {}
_running_lock = threading.Lock()


def running_servers() -> dict[str, ServerProcess]:
    """The servers lctui started and has not stopped yet, by model name (for the TUI)."""
    with _running_lock:
        return dict(_running)


class ServerProcess:
    """One supervised server: start, wait for health, tail its log, stop."""

    def __init__(self, name: str, command: list[str], log_path: Path) -> None:
        self.name = name
        self.command = command
        self.log_path = log_path
        self._tail: collections.deque[str] = collections.deque(maxlen=LOG_TAIL_LINES)
        self.total_lines = 0  # lines ever seen: a reader of the tail knows what is new
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[str] | None = None
        self._reader: threading.Thread | None = None

    @property
    def pid(self) -> int | None:
        """The guard's pid, which is also the process group of guard and server."""
        return self._proc.pid if self._proc is not None else None

    def lines(self, last: int | None = None) -> list[str]:
        with self._lock:
            lines = list(self._tail)
        return lines[-last:] if last else lines

    def _note(self, line: str) -> None:
        with self._lock:
            self._tail.append(line)
            self.total_lines += 1

    def new_lines(self, seen: int) -> tuple[list[str], int]:
        """Lines after the first `seen` ones (those still held), and the new total."""
        with self._lock:
            fresh = min(self.total_lines - seen, len(self._tail))
            return (list(self._tail)[-fresh:] if fresh > 0 else []), self.total_lines

    def start(self) -> None:
        prepare_output(self.log_path)
        self._proc = subprocess.Popen(
            [sys.executable, "-c", _GUARD, str(os.getpid()), *self.command],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            start_new_session=True,  # its own process group: stopped as a whole
            # The server writes to its log file, not the terminal: INFO, even when an
            # in-process engine quietened vLLM for this process (VLLM_LOGGING_LEVEL).
            env={**os.environ, "VLLM_LOGGING_LEVEL": "INFO"},
        )
        atexit.register(self.stop)
        with _running_lock:
            _running[self.name] = self
        assert self._proc.stdout is not None
        self._reader = threading.Thread(
            target=self._read, args=(self._proc.stdout,), name=f"lctui-log-{self.name}", daemon=True
        )
        self._reader.start()

    def _read(self, stream: IO[str]) -> None:
        with open_private(self.log_path, append=True) as log:  # a server may log prompts
            for line in stream:
                log.write(line)
                log.flush()
                self._note(line.rstrip("\n"))

    def exit_code(self) -> int | None:
        return self._proc.poll() if self._proc is not None else None

    def check_alive(self) -> None:
        """Raise when the server has exited: retrying requests against it is pointless."""
        code = self.exit_code()
        if code is not None:
            raise BackendError(
                f"the vLLM server of {self.name} exited (code {code}); its log is "
                f"{self.log_path}. Run again to restart it (finished examples are kept)"
            )

    def wait_ready(self, base: str, timeout_s: float) -> float:
        """Poll /health until it answers 200; return the seconds it took."""
        start = time.monotonic()
        next_note = start + PROGRESS_EVERY_S
        while True:
            code = self.exit_code()
            if code is not None:
                if self._reader is not None:
                    self._reader.join(timeout=5)  # the last lines explain the exit
                tail = "\n".join(escape_unprintable(line) for line in self.lines(last=15))
                exited = BackendError(
                    f"the vLLM server of {escape_unprintable(self.name)} exited with code "
                    f"{code} while starting; the end of its log "
                    f"({escape_unprintable(str(self.log_path))}):\n{tail}"
                )
                exited.lines_kept = True
                raise exited
            if _healthy(base):
                return time.monotonic() - start
            now = time.monotonic()
            if now - start > timeout_s:
                raise BackendError(
                    f"the vLLM server of {self.name} did not become healthy within "
                    f"{timeout_s:.0f} s; its log is {self.log_path}"
                )
            if now >= next_note:
                self._note(f"lctui: waiting for the server to be ready ({now - start:.0f} s)")
                next_note = now + PROGRESS_EVERY_S
            time.sleep(0.5)

    def stop(self) -> None:
        """SIGTERM to the process group, then SIGKILL after a grace period. Idempotent."""
        proc = self._proc
        with _running_lock:
            if _running.get(self.name) is self:
                del _running[self.name]
        atexit.unregister(self.stop)
        if proc is None:
            return
        if proc.poll() is None:
            _signal_group(proc.pid, signal.SIGTERM)
            try:
                proc.wait(STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                _signal_group(proc.pid, signal.SIGKILL)
                proc.wait()
        # The server may outlive the guard by a moment (or a kill of the guard alone).
        _signal_group(proc.pid, signal.SIGKILL)
        deadline = time.monotonic() + 5
        while group_alive(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)  # killed processes linger until their new parent reaps them
        if self._reader is not None:
            self._reader.join(timeout=5)


def group_alive(pgid: int) -> bool:
    """Whether any process of the group still exists (zombies count until reaped)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _healthy(base: str) -> bool:
    try:
        with urllib.request.urlopen(base + "/health", timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError, ValueError):
        return False


def free_port() -> int:
    """A port free on loopback now (the server binds it a few seconds later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class VLLMServerBackend(OpenAIBackend):
    """The openai backend against a server it owns; closing it stops the server."""

    def __init__(
        self, name: str, settings: OpenAISettings, server: ServerProcess, fingerprint: str
    ) -> None:
        info = probe_servers(
            settings.base_urls, settings.model, settings.api_key, settings.api_key_env
        )
        super().__init__(
            name, settings, info, fingerprint=fingerprint, health_check=server.check_alive
        )
        self.server = server

    def log_lines(self, last: int | None = None) -> list[str]:
        return self.server.lines(last)

    async def close(self) -> None:
        try:
            await super().close()
        finally:
            await asyncio.to_thread(self.server.stop)


def server_command(spec: ModelSpec, checkpoint: str, served: str, port: int) -> list[str]:
    """The vLLM server command line for a spec (the module entry point works everywhere):
    the settings that are vLLM's own engine arguments become its flags, then server_args."""
    command = [
        sys.executable, "-m", "vllm.entrypoints.openai.api_server",
        "--model", checkpoint, "--served-model-name", served,
        "--host", "127.0.0.1", "--port", str(port),
    ]  # fmt: skip
    for key, value in vllm_params(spec).items():
        flag = "--" + key.replace("_", "-")
        if isinstance(value, bool):  # vLLM's boolean flags: --flag / --no-flag
            command.append(flag if value else "--no-" + flag.removeprefix("--"))
        else:
            command += [flag, str(value)]
    return command + list(spec.params.get("server_args", []))  # checked by load_vllm_server


def client_settings(spec: ModelSpec, source: str, served: str, url: str) -> OpenAISettings:
    """The openai client's settings for the server of `spec` at `url`: the spec's client
    keys, and by default enough requests in flight for every data-parallel replica."""
    client_params = {k: v for k, v in spec.params.items() if k not in _SERVER_PARAMS}
    client_params["model"] = served
    replicas = int(spec.params.get("data_parallel_size", 1))
    client_params.setdefault("max_concurrency", DEFAULT_CONCURRENCY * replicas)
    return read_settings(
        ModelSpec(spec.name, "vllm-server", source, client_params), base_urls=[url]
    )


def load_vllm_server(
    spec: ModelSpec, *, start_timeout_s: float = START_TIMEOUT_S
) -> VLLMServerBackend:
    """Start the server, wait until it is healthy, and return a backend using it. Blocking."""
    vllm_params(spec)  # every setting checked (the parallel sizes too) before anything starts
    if not all(isinstance(a, str) for a in spec.params.get("server_args", [])):
        raise UserInputError(f"model {spec.name!r}: server_args must be a list of strings")
    checkpoint = str(embedded_checkpoint()) if spec.path == EMBEDDED_PATH else spec.path
    local = Path(checkpoint).expanduser()
    source = str(local) if local.exists() else checkpoint  # a local path, or a hub id
    served = str(spec.params.get("model") or spec.name)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    settings = client_settings(spec, source, served, base + "/v1")
    command = server_command(spec, source, served, port)
    identity = checkpoint_identity(local) if local.exists() else checkpoint
    # Engine sizing (window, GPUs, memory) does not change answers; extra arguments may.
    fingerprint = stable_hash(
        "vllm-server",
        identity,
        settings.endpoint,
        settings.prompt_format,
        list(spec.params.get("server_args", [])),
    )
    stamp = time.strftime("%Y%m%d-%H%M%S")
    log_path = data_dir() / "servers" / f"{_slug(spec.name)}-{stamp}-{port}.log"
    server = ServerProcess(spec.name, command, log_path)
    log.info("starting the vLLM server of %s on port %d (log: %s)", spec.name, port, log_path)
    server.start()
    try:
        server.wait_ready(base, start_timeout_s)
        return VLLMServerBackend(spec.name, settings, server, fingerprint)
    except BaseException:
        server.stop()
        raise


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "model"
