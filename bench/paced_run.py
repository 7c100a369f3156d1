"""A real `lctui run` whose every model is a STAND-IN that costs nothing: for the benches
of published runs (bench/live_attach.py, bench/engine_ceiling.py).

STAND-IN: no model runs. `PacedStandIn` streams `min(--tokens, max_new_tokens)` one-token
chunks per request, `--streams` requests at a time, each stream's token i due `i x
--streams / --rate` seconds after its request began, as a server sends them whatever
its reader does (so the run's throughput falls below the rate only when the engine
cannot keep up); `--rate 0` streams as fast as the event loop goes.
Everything else is lctui's own: the CLI, the engine, the store, the publisher. The
benches start it as a detached run (`start_paced_run`: `spawn_detached(..., program=...)`)
and read what it did from its process and its file (`CpuSampler`, `throughput`):

    python bench/paced_run.py --rate 2000 --streams 16 --tokens 200 -- run --model gold ...
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import threading
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lctui.backends.gold import GoldBackend
from lctui.cli import main
from lctui.cli import run as run_command
from lctui.core.run_record import RunRecord
from lctui.core.types import Chunk, ModelSpec, Request
from lctui.engine.attach import live_runs, pid_alive
from lctui.engine.detach import spawn_detached
from lctui.store import open_store
from lctui.store.read.accounting import run_model_usage


class PacedStandIn(GoldBackend):
    """Streams filler tokens at a set rate (see the module's docstring); the examples are
    built as for gold (its tokenizer), the prompt never read."""

    def __init__(self, rate: float, streams: int, tokens: int) -> None:
        super().__init__()
        self.max_concurrency = streams
        self.interval = streams / rate if rate > 0 else 0.0
        self.tokens = tokens

    async def stream(self, request: Request) -> AsyncIterator[Chunk]:
        count = min(self.tokens, request.config.max_new_tokens)
        loop = asyncio.get_running_loop()
        start = loop.time()
        for i in range(count):
            # Token i is due at a fixed time, as a server sends it: a reader that is late
            # finds it waiting and takes it at once; one that cannot keep up falls behind.
            wait = start + (i + 1) * self.interval - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            elif i % 16 == 0:
                await asyncio.sleep(0)  # as a network read would, now and then
            yield Chunk(" tok", tokens=1, prompt_tokens=1 if i == 0 else None)
        yield Chunk("", tokens=0, finish_reason="length")


def main_paced(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=2000.0, help="tokens/s, all streams")
    parser.add_argument("--streams", type=int, default=16)
    parser.add_argument("--tokens", type=int, default=200, help="tokens per generation")
    parser.add_argument("lctui", nargs=argparse.REMAINDER, help="-- then lctui's arguments")
    args = parser.parse_args(argv)
    rest = args.lctui[1:] if args.lctui[:1] == ["--"] else args.lctui

    def load(spec: ModelSpec, tokenizer: Any) -> PacedStandIn:
        return PacedStandIn(args.rate, args.streams, args.tokens)

    run_command.load_backend = load  # type: ignore[assignment]
    return main(rest)


# -- what the benches do with it ----------------------------------------------------------


def start_paced_run(
    argv: Sequence[str], db: Path, *, rate: float, streams: int, tokens: int
) -> RunRecord:
    """`lctui ARGV --db DB` detached, every model the stand-in; returns once it listens."""
    program = [sys.executable, str(Path(__file__).resolve()), "--rate", str(rate)]
    program += ["--streams", str(streams), "--tokens", str(tokens), "--"]
    record = spawn_detached([*argv, "--db", str(db)], db, program=program)
    deadline = time.monotonic() + 120
    while not Path(record.socket).exists():
        if time.monotonic() > deadline or not pid_alive(record.pid):
            raise SystemExit(f"the run did not start; see {record.log}")
        time.sleep(0.05)
    return record


class CpuSampler(threading.Thread):
    """Samples a process's CPU seconds until it ends (the last sample is its total,
    within the sampling interval)."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.seconds = 0.0
        self.start()

    def run(self) -> None:
        # A zombie (ended, not yet reaped by this process) still has its /proc entry.
        while pid_alive(self.pid) and (sample := cpu_seconds(self.pid)) is not None:
            self.seconds = sample
            time.sleep(0.05)


def cpu_seconds(pid: int) -> float | None:
    """User and system CPU seconds of process `pid` so far (Linux), None if gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_for_end(record: RunRecord) -> None:
    while pid_alive(record.pid):
        time.sleep(0.1)
    final = {r.run_id: r for r in live_runs()}[record.run_id]
    if final.status != "finished":
        raise SystemExit(f"the run ended {final.status}; see {record.log}")


@dataclass(frozen=True)
class Throughput:
    """What a run did per second of wall time (first request start to last end)."""

    tokens_per_s: float
    examples_per_s: float
    generations: int
    wall_s: float


def throughput(record: RunRecord) -> Throughput:
    """As the run's own file says it (`run_model_stats`, what `lctui stats` prints)."""
    with open_store(record.db, read_only=True) as store:
        (usage,) = run_model_usage(store, record.run_id)
    wall = usage.wall_s or float("nan")
    return Throughput(usage.output_tokens / wall, usage.generations / wall, usage.generations, wall)


if __name__ == "__main__":
    sys.exit(main_paced(sys.argv[1:]))
