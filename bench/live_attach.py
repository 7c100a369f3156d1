"""Watching a detached run while it streams: the viewer's key-to-render latency and frame
rate, and what 0, 1 and 4 viewers cost the run's throughput.

SYNTHETIC LOAD: each phase is a real detached `lctui run` (the CLI, engine, store and
publisher unchanged) whose model is bench/paced_run.py's zero-cost STAND-IN: 16 streams
at 2,000 tokens/s in all, one token per chunk, 128 tokens per generation (RULER's
needle tasks at 4K, their max_new_tokens), so the grid and the focus list move too.

VIEWER: the plain-terminal client, `lctui attach` (cli/attach.py's AttachView, run here
in-process, drawing with rich to a pseudo-terminal whose other end this bench reads
and discards). The TUI's own attach (issue 14, item 1) is not merged on this branch,
so this measures the plain client. `f` (focus the next generation, which redraws at
once) is written to its key pipe every 100 ms; latency runs from the write to the end
of the frame drawn after the key was handled. Frames per second count every frame
(rich's 10 Hz refresh and the frames keys cause).

Phases, the same work each: 0 viewers; 1 viewer (the measured client); 4 viewers
(`lctui attach` processes, output discarded); `--repeat` rounds of the three, medians
compared (the latency is the last round's). Throughput: output tokens per second
between the first request's start and the last generation's end, read from the run's
own file (`run_model_stats`: what `lctui stats` prints).

    python bench/live_attach.py [--n 60] [--rate 2000] [--streams 16] [--repeat 2]

Targets: key-to-render p95 under 50 ms; throughput with viewers at least 0.98 of none.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import pty
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

from rich.console import Console

from lctui.cli.attach import AttachView, follow
from lctui.core.run_record import RunRecord
from paced_run import CpuSampler, start_paced_run, throughput, wait_for_end

TASKS = "niah_single_1,niah_single_2,niah_multikey_1,niah_multivalue"
KEY_EVERY_S = 0.1
TARGET_MS = 50.0
TARGET_RATIO = 0.98


class MeasuredView(AttachView):
    """AttachView that notes when keys were pressed and frames drawn."""

    def __init__(self, console: Console) -> None:
        super().__init__(console, live=True)
        self.pressed: deque[float] = deque()
        self.latencies: list[float] = []
        self.frames: list[float] = []

    def start(self, attached: Any) -> None:
        super().start(attached)
        display = self._display
        if display is not None and not hasattr(display, "measured"):
            draw = display.refresh

            def refresh() -> None:
                draw()
                self.frames.append(time.perf_counter())

            display.refresh = refresh  # type: ignore[method-assign]
            display.measured = True  # type: ignore[attr-defined]

    def key(self, char: str) -> None:
        super().key(char)  # draws the frame the key changed
        if self.pressed:
            self.latencies.append(time.perf_counter() - self.pressed.popleft())


def press_keys(view: MeasuredView, fd: int, stop: threading.Event) -> None:
    while not stop.wait(KEY_EVERY_S):
        view.pressed.append(time.perf_counter())
        os.write(fd, b"f")


def drain(fd: int) -> None:
    with open(fd, "rb", buffering=0) as terminal:
        while True:
            try:
                if not terminal.read(1 << 16):
                    return
            except OSError:
                return


def watched_phase(record: RunRecord) -> MeasuredView:
    master, slave = pty.openpty()
    threading.Thread(target=drain, args=(master,), daemon=True).start()
    screen = open(slave, "w", encoding="utf-8")  # noqa: SIM115 - closed below
    console = Console(file=screen, force_terminal=True, width=120, height=40)
    view = MeasuredView(console)
    keys_r, keys_w = os.pipe()
    stop = threading.Event()
    presser = threading.Thread(target=press_keys, args=(view, keys_w, stop))
    presser.start()
    try:
        asyncio.run(follow(record, view, wait=False, key_fd=keys_r))
    finally:
        stop.set()
        presser.join()
        view.stop()
        screen.close()
        os.close(keys_r)
        os.close(keys_w)
    return view


def phase(
    folder: Path, args: argparse.Namespace, viewers: int, round_: int
) -> tuple[float, MeasuredView | None]:
    db = folder / f"r{round_}v{viewers}.duckdb"
    argv = ["run", "--model", "gold", "--tasks", TASKS, "--lengths", "4k", "--n", str(args.n)]
    record = start_paced_run(argv, db, rate=args.rate, streams=args.streams, tokens=200)
    sampler = CpuSampler(record.pid)
    view = None
    children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    own_before = time.process_time()
    if viewers == 1:
        view = watched_phase(record)
    else:
        others = [
            subprocess.Popen(
                [sys.executable, "-m", "lctui", "attach", record.run_id, "--no-wait"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for _ in range(viewers)
        ]
        for other in others:
            other.wait()
    viewer_cpu = time.process_time() - own_before if viewers == 1 else 0.0
    wait_for_end(record)
    sampler.join()
    run_cpu = sampler.seconds
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    if viewers > 1:
        viewer_cpu = (children.ru_utime + children.ru_stime) - (
            children_before.ru_utime + children_before.ru_stime
        )
    done = throughput(record)
    rate = done.tokens_per_s
    print(
        f"  {viewers} viewer(s): {rate:,.0f} tok/s ({done.generations} generations in "
        f"{done.wall_s:.1f} s); "
        f"the run's CPU {run_cpu:.1f} s, the viewers' {viewer_cpu:.1f} s"
    )
    return rate, view


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=60, help="examples per task (4 tasks)")
    parser.add_argument("--rate", type=float, default=2000.0)
    parser.add_argument("--streams", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=2, help="rounds of the three phases")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="lctui-live-"))
    os.environ.setdefault("LCTUI_DATA_DIR", str(folder / "data"))
    print(
        f"detached runs of a zero-cost stand-in: {args.streams} streams at {args.rate:,.0f} "
        f"tok/s, {4 * args.n} generations each; {os.cpu_count()} CPU(s), load "
        + " ".join(f"{x:.1f}" for x in os.getloadavg())
    )
    # Phases interleaved and repeated: the machine's own drift falls on all alike.
    rates: dict[int, list[float]] = {0: [], 1: [], 4: []}
    view: MeasuredView | None = None
    for round_ in range(args.repeat):
        for viewers in (0, 1, 4):
            rate, measured = phase(folder, args, viewers, round_)
            rates[viewers].append(rate)
            view = measured or view
    assert view is not None
    latencies = sorted(1000 * s for s in view.latencies)
    p95 = latencies[int(0.95 * (len(latencies) - 1))] if latencies else float("nan")
    frames = view.frames
    fps = (len(frames) - 1) / (frames[-1] - frames[0]) if len(frames) > 1 else 0.0
    print(
        f"viewer (lctui attach, plain client): key-to-render p50 "
        f"{statistics.median(latencies):.1f} ms, p95 {p95:.1f} ms, max {latencies[-1]:.1f} ms "
        f"over {len(latencies)} keys (target p95 < {TARGET_MS:.0f} ms); {fps:.1f} frames/s"
    )
    median = {v: statistics.median(r) for v, r in rates.items()}
    ratios = {v: median[v] / median[0] for v in (1, 4)}
    spread = (max(rates[0]) - min(rates[0])) / median[0]
    print(
        f"median tok/s: none {median[0]:,.0f}, 1 viewer {median[1]:,.0f}, 4 viewers "
        f"{median[4]:,.0f} (the runs without a viewer spread {100 * spread:.1f} %)"
    )
    print(
        "throughput ratio to no viewer: "
        + ", ".join(f"{v} viewer(s) {r:.3f}" for v, r in ratios.items())
        + f" (target >= {TARGET_RATIO})"
    )
    ok = p95 < TARGET_MS and all(r >= TARGET_RATIO for r in ratios.values())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
