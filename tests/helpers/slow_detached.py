"""A real `lctui run`, detached, whose every model is a slowed gold STAND-IN: for tests
that must act on a run of another process while it goes (attach, pause, cancel).

Run as a program (what `start_slow_detached` starts through `spawn_detached`):

    python tests/helpers/slow_detached.py --delay 0.05 --words 20 -- run --model gold ...

The stand-in streams `--words` filler words, one chunk every `--delay` seconds, then
the gold answer (so every example still scores 1.0), `--streams` requests at a time.
Everything else is lctui's own: the CLI, the engine, the store, the publisher.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from lctui.backends.gold import GoldBackend
from lctui.core.run_record import RunRecord
from lctui.core.types import Chunk, ModelSpec, Request


class SlowStandIn(GoldBackend):
    def __init__(self, delay: float, words: int, streams: int) -> None:
        super().__init__()
        self.delay = delay
        self.words = words
        self.max_concurrency = streams

    async def stream(self, request: Request) -> AsyncIterator[Chunk]:
        for i in range(self.words):
            await asyncio.sleep(self.delay)
            yield Chunk(f" w{i}", tokens=1, prompt_tokens=1 if i == 0 else None)
        async for chunk in super().stream(request):
            yield chunk


def start_slow_detached(
    argv: Sequence[str], db: Path, *, delay: float, words: int, streams: int = 2
) -> RunRecord:
    """`lctui ARGV --db DB` detached with the stand-in; returns once it listens."""
    from lctui.engine.attach import pid_alive
    from lctui.engine.detach import spawn_detached

    program = [sys.executable, str(Path(__file__).resolve()), "--delay", str(delay)]
    program += ["--words", str(words), "--streams", str(streams), "--"]
    record = spawn_detached([*argv, "--db", str(db)], db, program=program)
    deadline = time.monotonic() + 60
    while not Path(record.socket).exists():
        assert time.monotonic() < deadline and pid_alive(record.pid), (
            f"the run did not start: {Path(record.log or '').read_text(errors='replace')}"
        )
        time.sleep(0.05)
    return record


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=0.05)
    parser.add_argument("--words", type=int, default=20)
    parser.add_argument("--streams", type=int, default=2)
    parser.add_argument("lctui", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    rest = args.lctui[1:] if args.lctui[:1] == ["--"] else args.lctui
    from lctui.cli import main as lctui_main
    from lctui.cli import run as run_command

    def load(spec: ModelSpec, tokenizer: Any) -> SlowStandIn:
        return SlowStandIn(args.delay, args.words, args.streams)

    run_command.load_backend = load  # type: ignore[assignment]
    return lctui_main(rest)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
