"""Watching a detached run while it streams: the viewer's key-to-render latency and frame
rate, and what 0, 1 and 4 viewers cost the run's throughput.

SYNTHETIC LOAD: each phase is a real detached `lctui run` (the CLI, engine, store and
publisher unchanged) whose model is bench/paced_run.py's zero-cost STAND-IN: 16 streams
at 2,000 tokens/s in all, one token per chunk, 128 tokens per generation (RULER's
needle tasks at 4K, their max_new_tokens), so the grid and the focus list move too.

VIEWERS, both measured the same way: `f` (focus the next generation, which redraws at
once) every 100 ms; latency runs from the key to the end of the frame drawn after the
key was handled; frames per second count every frame drawn.
- the plain-terminal client, `lctui attach` (cli/attach.py's AttachView, run here
  in-process, drawing with rich to a pseudo-terminal whose other end this bench reads
  and discards); the key is written to its key pipe. Its frames: rich's 10 Hz refresh
  and the frames keys cause.
- the TUI: the app (headless, through Textual's Pilot, `--size`, 120x40 by default)
  finds the run in the runs folder as a user's would, its live view attaches to it
  (tui/state/detached_run.py) and, half a second later (its first frames, the replay
  and the layout, aside), keys go through the Pilot; a frame is the app's screen
  update, serialised to the terminal's escape codes as a real terminal's would be (as
  bench/tui_stream.py measures the view of a run of the app's own process).

Phases, the same work each: 0 viewers; 1 viewer (the plain client); 1 viewer (the
TUI); 4 viewers (`lctui attach` processes, output discarded); `--repeat` rounds of the
four, medians compared (the latencies are the last round's). Throughput: output tokens
per second between the first request's start and the last generation's end, read
from the run's own file (`run_model_stats`: what `lctui stats` prints).

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
from textual.screen import Screen

from lctui.cli.attach import AttachView, follow
from lctui.core.config import Config
from lctui.core.run_record import RunRecord
from lctui.tui.app import LctuiApp
from lctui.tui.state.detached_run import DetachedRun
from paced_run import CpuSampler, start_paced_run, throughput, wait_for_end
from tui_stream import TimedRunScreen

TASKS = "niah_single_1,niah_single_2,niah_multikey_1,niah_multivalue"
KEY_EVERY_S = 0.1
TARGET_MS = 50.0
TARGET_RATIO = 0.98
PHASES = ("none", "attach", "tui", "4 attach")  # who watches, in each round
SETTLE_S = 0.5  # the TUI's first frames after attaching (the replay, the layout) aside


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


class TuiViewer:
    """The TUI watching the run: its keys' latencies and its frames (see the docstring)."""

    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.to_action: list[float] = []  # from the key to its action's end
        self.frames: list[float] = []


def tui_phase(record: RunRecord, size: tuple[int, int]) -> TuiViewer:
    return asyncio.run(_watch_in_tui(record, size))


async def _watch_in_tui(record: RunRecord, size: tuple[int, int]) -> TuiViewer:
    measured = TuiViewer()
    # The results screen is not what is measured: a blank home screen.
    LctuiApp.action_show_results = lambda self: self._switch(Screen())  # type: ignore[method-assign]
    app = LctuiApp(Path(record.db), Config(), import_samples=False)
    display = app._display

    def timed_display(screen: Any, renderable: Any) -> None:
        display(screen, renderable)
        if renderable is None:
            return
        if hasattr(renderable, "render_segments"):
            renderable.render_segments(app.console)  # what a terminal write would cost
        measured.frames.append(time.perf_counter())

    app._display = timed_display  # type: ignore[method-assign]
    async with app.run_test(size=size) as pilot:
        while (run := app.runs.find(record.run_id)) is None:  # the runs folder, read by the app
            await pilot.pause(0.05)
        assert isinstance(run, DetachedRun)
        screen = TimedRunScreen(run)
        await app.push_screen(screen)
        while run.running and not (run.attached and run.state.planned):
            await pilot.pause(0.05)
        await pilot.pause(SETTLE_S)  # the replay drawn, the grid laid out, as tui_stream.py
        presses: list[float] = []
        pending: list[asyncio.Task[None]] = []
        next_press = time.perf_counter()
        while run.running:
            next_press += KEY_EVERY_S
            presses.append(time.perf_counter())
            # Its own task: Pilot.press waits for the app to go idle, which it never is.
            pending.append(asyncio.ensure_future(pilot.press("f")))
            await asyncio.sleep(max(0.0, next_press - time.perf_counter()))
        for task in pending:
            task.cancel()
        frames = measured.frames
        for pressed, handled in zip(presses, screen.handled, strict=False):
            after = next((f for f in frames if f >= handled), None)
            if after is not None:
                measured.latencies.append(after - pressed)
                measured.to_action.append(handled - pressed)
    return measured


def phase(
    folder: Path, args: argparse.Namespace, watcher: str, round_: int
) -> tuple[float, MeasuredView | TuiViewer | None]:
    viewers = 4 if watcher == "4 attach" else int(watcher != "none")
    db = folder / f"r{round_}-{watcher.replace(' ', '')}.duckdb"
    argv = ["run", "--model", "gold", "--tasks", TASKS, "--lengths", "4k", "--n", str(args.n)]
    record = start_paced_run(argv, db, rate=args.rate, streams=args.streams, tokens=200)
    sampler = CpuSampler(record.pid)
    view: MeasuredView | TuiViewer | None = None
    children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    own_before = time.process_time()
    if watcher == "attach":
        view = watched_phase(record)
    elif watcher == "tui":
        width, height = (int(x) for x in args.size.split("x"))
        view = tui_phase(record, (width, height))
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
        f"  {watcher}: {rate:,.0f} tok/s ({done.generations} generations in "
        f"{done.wall_s:.1f} s); "
        f"the run's CPU {run_cpu:.1f} s, the viewers' {viewer_cpu:.1f} s"
    )
    return rate, view


def viewer_line(name: str, view: MeasuredView | TuiViewer) -> tuple[str, float]:
    """A viewer's key-to-render and frame rate in one line; its p95 (ms)."""
    latencies = sorted(1000 * s for s in view.latencies)
    if not latencies:
        return f"viewer ({name}): no key measured", float("nan")
    p95 = latencies[int(0.95 * (len(latencies) - 1))]
    frames = view.frames
    fps = (len(frames) - 1) / (frames[-1] - frames[0]) if len(frames) > 1 else 0.0
    return (
        f"viewer ({name}): key-to-render p50 {statistics.median(latencies):.1f} ms, p95 "
        f"{p95:.1f} ms, max {latencies[-1]:.1f} ms over {len(latencies)} keys (target p95 < "
        f"{TARGET_MS:.0f} ms); {fps:.1f} frames/s"
    ), p95


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=60, help="examples per task (4 tasks)")
    parser.add_argument("--rate", type=float, default=2000.0)
    parser.add_argument("--streams", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=2, help="rounds of the four phases")
    parser.add_argument("--size", default="120x40", help="the TUI's terminal, WIDTHxHEIGHT")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="lctui-live-"))
    os.environ.setdefault("LCTUI_DATA_DIR", str(folder / "data"))
    print(
        f"detached runs of a zero-cost stand-in: {args.streams} streams at {args.rate:,.0f} "
        f"tok/s, {4 * args.n} generations each; {os.cpu_count()} CPU(s), load "
        + " ".join(f"{x:.1f}" for x in os.getloadavg())
    )
    # Phases interleaved and repeated: the machine's own drift falls on all alike.
    rates: dict[str, list[float]] = {watcher: [] for watcher in PHASES}
    views: dict[str, MeasuredView | TuiViewer] = {}
    for round_ in range(args.repeat):
        for watcher in PHASES:
            rate, measured = phase(folder, args, watcher, round_)
            rates[watcher].append(rate)
            if measured is not None:
                views[watcher] = measured
    plain, plain_p95 = viewer_line("lctui attach, plain client", views["attach"])
    tui_view = views["tui"]
    tui, tui_p95 = viewer_line(f"the TUI's live view, {args.size}", tui_view)
    print(plain)
    print(tui)
    if isinstance(tui_view, TuiViewer) and tui_view.to_action:
        to_action = sorted(1000 * s for s in tui_view.to_action)
        print(
            f"  of which from the key to its action: p50 {statistics.median(to_action):.1f} ms, "
            f"p95 {to_action[int(0.95 * (len(to_action) - 1))]:.1f} ms"
        )
    median = {watcher: statistics.median(r) for watcher, r in rates.items()}
    ratios = {watcher: median[watcher] / median["none"] for watcher in PHASES[1:]}
    spread = (max(rates["none"]) - min(rates["none"])) / median["none"]
    print(
        "median tok/s: "
        + ", ".join(f"{watcher} {median[watcher]:,.0f}" for watcher in PHASES)
        + f" (the runs without a viewer spread {100 * spread:.1f} %)"
    )
    print(
        "throughput ratio to no viewer: "
        + ", ".join(f"{watcher} {r:.3f}" for watcher, r in ratios.items())
        + f" (target >= {TARGET_RATIO})"
    )
    latencies_ok = plain_p95 < TARGET_MS and tui_p95 < TARGET_MS
    ok = latencies_ok and all(r >= TARGET_RATIO for r in ratios.values())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
