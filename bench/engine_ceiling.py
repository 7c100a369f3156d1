"""The engine's ceiling: examples and tokens per second a run sustains when the model
costs nothing, 256 generations at a time, with a viewer attached and without.

ZERO-COST STAND-IN (bench/paced_run.py, `--rate 0`): no model runs; each request
streams 128 one-token chunks (niah_single_1's max_new_tokens) as fast as the event loop
goes, 256 requests at a time, about what a small model on one H100 serves. Everything
else is a real detached `lctui run`: examples built at 1K (o200k_base), scored, written
to DuckDB once a second, every event published. The viewer is `lctui attach` (the plain
client, output discarded), the TUI's own attach not being merged on this branch.

Examples and tokens per second are the run's own (`run_model_stats`: first request
start to last end), with the CPU seconds per 1,000 examples of the run and of the
viewer: on a machine with few cores the viewer's process competes with the run for
them, which the run's own CPU time separates from what publishing costs it.

    python bench/engine_ceiling.py [--n 3000] [--streams 256] [--repeat 2]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from paced_run import CpuSampler, Throughput, start_paced_run, throughput, wait_for_end

TOKENS = 128


def phase(folder: Path, args: argparse.Namespace, viewers: int, round_: int) -> Throughput:
    db = folder / f"r{round_}v{viewers}.duckdb"
    argv = ["run", "--model", "gold", "--tasks", "niah_single_1", "--lengths", "1k"]
    argv += ["--n", str(args.n), "--tokenizer", "o200k_base"]
    record = start_paced_run(argv, db, rate=0, streams=args.streams, tokens=TOKENS)
    sampler = CpuSampler(record.pid)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    watchers = [
        subprocess.Popen(
            [sys.executable, "-m", "lctui", "attach", record.run_id, "--no-wait"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(viewers)
    ]
    wait_for_end(record)
    for watcher in watchers:
        watcher.wait()
    sampler.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    viewer_cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    done = throughput(record)
    print(
        f"  {viewers} viewer(s): {done.examples_per_s:,.0f} examples/s, "
        f"{done.tokens_per_s:,.0f} tok/s ({done.generations} in {done.wall_s:.1f} s); "
        f"CPU per 1,000 examples: the run {1000 * sampler.seconds / done.generations:.2f} s, "
        f"the viewer {1000 * viewer_cpu / done.generations:.2f} s"
    )
    return done


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=3000, help="examples per run")
    parser.add_argument("--streams", type=int, default=256)
    parser.add_argument("--repeat", type=int, default=2, help="rounds of both phases")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="lctui-ceiling-"))
    os.environ.setdefault("LCTUI_DATA_DIR", str(folder / "data"))
    print(
        f"zero-cost stand-in, {args.streams} generations at a time, {TOKENS} tokens each, "
        f"{args.n} examples per run; {os.cpu_count()} CPU(s), load "
        + " ".join(f"{x:.1f}" for x in os.getloadavg())
    )
    runs: dict[int, list[Throughput]] = {0: [], 1: []}
    for round_ in range(args.repeat):
        for viewers in (0, 1):
            runs[viewers].append(phase(folder, args, viewers, round_))
    median = {v: statistics.median(t.examples_per_s for t in r) for v, r in runs.items()}
    tokens = {v: statistics.median(t.tokens_per_s for t in r) for v, r in runs.items()}
    print(
        f"ceiling (medians): {median[0]:,.0f} examples/s, {tokens[0]:,.0f} tok/s without a "
        f"viewer; {median[1]:,.0f} examples/s, {tokens[1]:,.0f} tok/s with one "
        f"(ratio {median[1] / median[0]:.3f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
