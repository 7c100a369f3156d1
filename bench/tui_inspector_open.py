"""Inspector open time on a 128K-token prompt: push the screen, time the first paint.

Stores the gold model's answer to one niah_single_2 example at 128K tokens (o200k)
in a temp results file, then, in a headless app, times from `open_generation` to
the first paint of the prompt (PromptView.first_paint, taken in render_lines once
the text is loaded): the screen's compose and mount, the DuckDB read of the
generation in a thread, the span overlay, wrapping the first screen and painting
it. The rest of the prompt is wrapped afterwards in the background; that time is
printed too, and the process CPU time to the first paint, which varies less than
wall time when other work shares the CPU. Medians of `--repeat` opens.

    python bench/tui_inspector_open.py [--repeat 5] [--size 120x40]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import statistics
import tempfile
import time
from pathlib import Path

import duckdb

from lctui.cli import main as cli_main
from lctui.core.config import Config
from lctui.tui.app import LctuiApp
from lctui.tui.screens.inspector import InspectorScreen
from lctui.tui.widgets.prompt_view import PromptView

TARGET_MS = 300.0


def store_example(db: Path) -> str:
    """Run the gold model on one 128K example; return its generation id."""
    args = ["run", "--model", "gold", "--tasks", "niah_single_2", "--lengths", "128k"]
    with contextlib.redirect_stdout(io.StringIO()):
        code = cli_main([*args, "--n", "1", "--db", str(db)])
    if code != 0:
        raise SystemExit(f"lctui run failed with exit code {code}")
    with duckdb.connect(str(db), read_only=True) as con:
        row = con.execute("SELECT generation_id FROM generations LIMIT 1").fetchone()
    assert row is not None
    return str(row[0])


async def time_opens(db: Path, gid: str, repeat: int, size: tuple[int, int]) -> None:
    app = LctuiApp(db, Config(), import_samples=False)
    opens: list[float] = []
    cpu: list[float] = []
    wraps: list[float] = []
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        chars = lines = 0
        for _ in range(repeat):
            started, cpu_started = time.perf_counter(), time.process_time()
            app.open_generation(gid)
            while not (isinstance(app.screen, InspectorScreen) and app.screen.query(PromptView)):
                await asyncio.sleep(0.001)  # until the screen is composed
            view = app.screen.query_one(PromptView)
            while view.first_paint is None or not view.text:
                await asyncio.sleep(0.001)
            opens.append((view.first_paint - started) * 1000)
            cpu.append((time.process_time() - cpu_started) * 1000)
            while view.virtual_size.height != view.line_of(len(view.text) - 1) + 1:
                await asyncio.sleep(0.001)
            wraps.append((time.perf_counter() - started) * 1000)
            chars, lines = len(view.text), view.virtual_size.height
            app.pop_screen()
            await pilot.pause()
            await app.workers.wait_for_complete()
    median = statistics.median(opens)
    verdict = "ok" if median <= TARGET_MS else "OVER TARGET"
    print(f"prompt: {chars:,} characters, {lines:,} lines at {size[0]}x{size[1]}")
    print("first paint (ms): " + ", ".join(f"{t:.0f}" for t in opens))
    print(f"median first paint: {median:.0f} ms   target: {TARGET_MS:.0f} ms   {verdict}")
    print(f"median until fully wrapped: {statistics.median(wraps):.0f} ms")
    # CPU time (all threads) up to the first paint: steadier than wall time on a busy box.
    print(f"median CPU time to first paint: {statistics.median(cpu):.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--size", default="120x40", help="terminal size, COLSxROWS")
    args = parser.parse_args()
    cols, rows = (int(n) for n in args.size.lower().split("x"))
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.duckdb"
        built = time.perf_counter()
        gid = store_example(db)
        print(f"stored the 128K example and its gold answer in {time.perf_counter() - built:.1f} s")
        asyncio.run(time_opens(db, gid, args.repeat, (cols, rows)))


if __name__ == "__main__":
    main()
