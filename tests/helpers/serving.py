"""A real vLLM OpenAI-compatible server serving SmolLM2 on loopback, for tests.

Starting one takes 30 s to 2 minutes on 2 CPU cores, so a test session starts it
once (`vllm_server` fixture in tests/integration/conftest.py, or `start_test_server`
directly). It requires an API key, so the wrong-key path is real too.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from lctui.backends.vllm_server import ServerProcess, free_port

SERVED_NAME = "smollm2-test"
API_KEY = "lctui-test-key-5f0c"
KEY_ENV = "LCTUI_TEST_VLLM_KEY"
# The CPU build reserves a fraction of all RAM for the KV cache by default, which
# fails on a shared 2-core box; 1 GiB holds 40K+ tokens of SmolLM2. Eager mode skips
# torch.compile: ready in about 2 minutes on 2 busy cores instead of 6.
CPU_SERVER_ARGS = [
    "--kv-cache-memory-bytes", str(1 << 30), "--max-num-seqs", "32", "--enforce-eager",
]  # fmt: skip
MAX_MODEL_LEN = 4096


def checkpoint() -> str:
    from lctui.backends.embedded import embedded_checkpoint

    return str(embedded_checkpoint())


class LoopbackServer:
    """The server process plus what tests need to reach it; restartable on its port."""

    def __init__(self, log_dir: Path, *, api_key: str | None = API_KEY) -> None:
        self.port = free_port()
        self.api_key = api_key
        self.log_dir = log_dir
        self.process: ServerProcess | None = None
        self.starts = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def command(self) -> list[str]:
        command = [
            sys.executable, "-m", "vllm.entrypoints.openai.api_server",
            "--model", checkpoint(), "--served-model-name", SERVED_NAME,
            "--host", "127.0.0.1", "--port", str(self.port),
            "--max-model-len", str(MAX_MODEL_LEN), *CPU_SERVER_ARGS,
            # Request log lines (prompts cut short) show when a request was aborted.
            "--enable-log-requests", "--max-log-len", "80",
        ]  # fmt: skip
        return command + (["--api-key", self.api_key] if self.api_key else [])

    def start(self, timeout_s: float = 600.0) -> float:
        self.starts += 1
        log = self.log_dir / f"vllm-test-server-{self.port}-{self.starts}.log"
        self.process = ServerProcess(f"test-server-{self.port}", self.command(), log)
        self.process.start()
        try:
            return self.process.wait_ready(f"http://127.0.0.1:{self.port}", timeout_s)
        except BaseException:
            self.process.stop()
            raise

    def kill(self) -> None:
        """SIGKILL the whole server (as a crash would), leaving the port free."""
        assert self.process is not None and self.process.pid is not None
        os.killpg(self.process.pid, 9)
        self.process.stop()

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()


def start_test_server(log_dir: Path) -> LoopbackServer:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ[KEY_ENV] = API_KEY
    server = LoopbackServer(log_dir)
    server.start()
    return server
