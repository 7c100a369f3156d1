"""Live screen under a synthetic load: key-press-to-render latency and frame rate.

SYNTHETIC LOAD: no model runs. 16 concurrent streams emit ChunkReceived events into
the sink of a run of the app's run manager (its EventBuffer, exactly where the engine's
events go), shown in the live view (RunScreen), at a
total of 2,000 tokens/s, one token per chunk, each stream on its own asyncio task
and schedule; every 200 tokens a stream finishes (GenerationFinished, ExampleScored)
and starts the next example (ExampleStarted), so the grid and focus list move too.

Meanwhile `f` (focus the next example, which redraws the stream panel) is pressed
every 100 ms through the Pilot. Each press is fired as its own task so the cadence
holds: `Pilot.press` waits for the app to go idle afterwards, which never happens
under a constant load. Latency is measured from the press to the end of the next
screen refresh after the key's action ran; a refresh is `App._display`, wrapped to
also serialise the update to terminal escape codes, as a real terminal run would.

    python bench/tui_stream.py [--seconds 10] [--streams 16] [--rate 2000] [--size 120x40]

Target: 95th percentile latency under 50 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from textual.screen import Screen

from lctui.core.config import Config
from lctui.core.events import (
    CellKey,
    ChunkReceived,
    ExampleScored,
    ExampleStarted,
    GenerationFinished,
    RunFinished,
    RunPlanned,
)
from lctui.core.types import (
    Example,
    Generation,
    GenerationStatus,
    ModelSpec,
    Score,
    ScoreStatus,
)
from lctui.engine import RunOutcome, RunRequest
from lctui.tasks import select_tasks
from lctui.tui.app import LctuiApp
from lctui.tui.screens.run import RunScreen
from lctui.tui.state.run_manager import ManagedRun

TOKENS_PER_GENERATION = 200
TARGET_MS = 50.0
TASKS = "niah_single_1,niah_single_2,niah_multikey_1,vt"
LENGTHS = (4096, 8192, 16384, 32768)


def _example(task: str, length: int, index: int) -> Example:
    return Example(
        example_id=f"{task}-{length}-{index}",
        task=task,
        category="synthetic",
        suite="ruler",
        length=length,
        seed=0,
        index=index,
        tokenizer="synthetic",
        params={},
        preamble="",
        context="",
        question="What is the special magic number for synthetic-load?",
        answer_prefix="",
        gold=("1234567",),
        max_new_tokens=TOKENS_PER_GENERATION,
        prompt_tokens=length,
    )


def _generation(generation_id: str, example: Example, tokens: int) -> Generation:
    return Generation(
        generation_id=generation_id,
        gen_key=generation_id,
        run_id="synthetic",
        model_id="synthetic",
        example_id=example.example_id,
        config_hash="synthetic",
        status=GenerationStatus.OK,
        output="",
        prompt_tokens=example.prompt_tokens,
        output_tokens=tokens,
        ttft_s=0.1,
        latency_s=1.0,
        finish_reason="length",
        error=None,
        started_at=time.time(),
    )


class SyntheticRun(ManagedRun):
    """A run of the manager whose task feeds the synthetic load instead of the engine."""

    def __init__(self, request: RunRequest, streams: int, rate: float, seconds: float):
        super().__init__(request)
        self.streams = streams
        self.rate = rate
        self.seconds = seconds
        self.sent_tokens = 0
        self.load_started = time.monotonic()

    def _set_paused(self, paused: bool) -> None:
        pass  # the load is not paused in this bench

    async def _work(self) -> RunOutcome | None:
        assert self.request is not None
        cells = [
            CellKey("synthetic", t.name, n)
            for t in self.request.tasks
            for n in self.request.lengths
        ]
        per_stream = self.rate / self.streams
        total = int(self.seconds * per_stream / TOKENS_PER_GENERATION + 1) * self.streams
        planned = {cell: 0 for cell in cells}
        for i in range(total):
            planned[cells[i % len(cells)]] += 1
        self.buffer(RunPlanned("synthetic", planned, {}))
        end = time.monotonic() + self.seconds
        counter = iter(range(10**9))

        async def stream(offset: int) -> None:
            next_at = time.monotonic() + offset / self.rate  # staggered starts
            while time.monotonic() < end:
                index = next(counter)
                cell = cells[index % len(cells)]
                example = _example(cell.task, cell.length, index)
                generation_id = f"g{index}"
                self.buffer(ExampleStarted(cell, example, generation_id))
                for _ in range(TOKENS_PER_GENERATION):
                    next_at += 1 / per_stream
                    delay = next_at - time.monotonic()
                    if delay > 0:
                        await asyncio.sleep(delay)
                    self.buffer(ChunkReceived(cell, generation_id, "tok ", 1))
                    self.sent_tokens += 1
                generation = _generation(generation_id, example, TOKENS_PER_GENERATION)
                score = Score("synthetic", "m", 1.0, ScoreStatus.OK, (), "")
                self.buffer(GenerationFinished(cell, generation))
                self.buffer(ExampleScored(cell, generation, score))

        started = self.load_started = time.monotonic()
        await asyncio.gather(*(stream(i) for i in range(self.streams)))
        elapsed = time.monotonic() - started
        self.buffer(RunFinished("synthetic", self.state.done, 0, False, elapsed))
        return None


class TimedRunScreen(RunScreen):
    """The real live view, noting when each `f` was acted on."""

    def __init__(self, run: ManagedRun) -> None:
        super().__init__(run)
        self.handled: list[float] = []  # perf_counter when each `f` was acted on

    def action_next_focus(self) -> None:
        super().action_next_focus()
        self.handled.append(time.perf_counter())


def _blank_home(self: LctuiApp) -> None:
    """The results screen is not what is measured: start on a blank one."""
    self.push_screen(Screen())


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def bench(args: argparse.Namespace) -> int:
    width, height = (int(x) for x in args.size.split("x"))
    model = ModelSpec(name="synthetic", backend="gold", reference=True)
    request = RunRequest(models=[model], tasks=select_tasks(TASKS), lengths=LENGTHS, n=1)
    LctuiApp.action_show_results = _blank_home  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as tmp:
        app = LctuiApp(Path(tmp) / "bench.duckdb", Config(), import_samples=False)
        frames: list[float] = []
        display = app._display

        def timed_display(screen: Any, renderable: Any) -> None:
            display(screen, renderable)
            if renderable is None:
                return
            if hasattr(renderable, "render_segments"):
                renderable.render_segments(app.console)  # what a terminal write would cost
            frames.append(time.perf_counter())

        app._display = timed_display  # type: ignore[method-assign]
        async with app.run_test(size=(width, height)) as pilot:
            run = SyntheticRun(request, args.streams, args.rate, args.seconds)
            app.runs.add(run)  # held by the app's run manager, as a run of the engine is
            screen = TimedRunScreen(run)
            await app.push_screen(screen)
            await pilot.pause(0.5)  # let the streams get going
            presses: list[float] = []
            cpu0, wall0 = time.process_time(), time.perf_counter()
            frames_before = len(frames)
            pending: list[asyncio.Task[None]] = []
            next_press = time.perf_counter()
            while run.running and time.perf_counter() - wall0 < args.seconds - 1:
                next_press += 0.1
                presses.append(time.perf_counter())
                pending.append(asyncio.ensure_future(pilot.press("f")))
                await asyncio.sleep(max(0.0, next_press - time.perf_counter()))
            wall = time.perf_counter() - wall0
            cpu = time.process_time() - cpu0
            frame_count = len(frames) - frames_before
            await asyncio.sleep(0.3)
            for task in pending:
                task.cancel()
            latencies, to_action = [], []
            for pressed, handled in zip(presses, screen.handled, strict=False):
                after = next((f for f in frames if f >= handled), None)
                if after is not None:
                    latencies.append((after - pressed) * 1000)
                    to_action.append((handled - pressed) * 1000)
            tokens_per_s = run.sent_tokens / (time.monotonic() - run.load_started)
            run.cancel()
    p95 = _percentile(latencies, 0.95) if latencies else float("nan")
    print(f"synthetic load: {args.streams} streams, {args.rate:.0f} tok/s asked, ")
    print(f"  {tokens_per_s:.0f} tok/s delivered into the sink, terminal {width}x{height}")
    print(
        f"key f every 100 ms: {len(presses)} presses, {len(latencies)} measured; latency ms "
        f"p50 {statistics.median(latencies):.1f}  p95 {p95:.1f}  max {max(latencies):.1f}"
    )
    print(
        f"  of which press to action: p50 {statistics.median(to_action):.1f}  "
        f"p95 {_percentile(to_action, 0.95):.1f}"
    )
    print(f"frames: {frame_count / wall:.1f} per second; CPU {100 * cpu / wall:.0f}% of one core")
    verdict = "PASS" if p95 <= TARGET_MS else "FAIL"
    print(f"{verdict}: p95 {p95:.1f} ms against the {TARGET_MS:.0f} ms target")
    return 0 if verdict == "PASS" else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--streams", type=int, default=16)
    parser.add_argument("--rate", type=float, default=2000.0, help="total tokens per second")
    parser.add_argument("--size", default="120x40", help="terminal size, WIDTHxHEIGHT")
    return asyncio.run(bench(parser.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())
