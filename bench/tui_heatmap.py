"""Results screen speed: open the TUI on 100K stored generations until the heatmap shows.

Builds a temporary DuckDB file through `open_store` (so the schema and views are the
real ones) and fills it with SQL `INSERT ... SELECT ... FROM range(n)`: 4 models plus
the gold reference, 10 tasks, 6 lengths (4k-128k), needle depths on a 10 % grid, about
1 % errors and 2 % unparsed. Then, 5 times, starts the app headless (`run_test`) and
times it until the heatmap holds every cell, and separately the heatmap's SQL alone.

    python bench/tui_heatmap.py [--n 100000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from lctui.core.config import Config
from lctui.store import open_store
from lctui.store.derived import fill_derived
from lctui.store.result_cells import rebuild_result_cells

TARGET_MS = 500.0
MODELS = ("ckpt-a", "ckpt-b", "llama-8b", "qwen-7b", "gold")
TASKS = (
    "niah_single_1",
    "niah_single_2",
    "niah_single_3",
    "niah_multikey_1",
    "niah_multikey_2",
    "niah_multikey_3",
    "niah_multivalue",
    "niah_multiquery",
    "vt",
    "json_kv",
)
LENGTHS = tuple(4096 * 2**i for i in range(6))  # 4k .. 128k


def _sql_list(values: tuple[object, ...]) -> str:
    return "[" + ", ".join(repr(v) for v in values) + "]"


def build(path: Path, n: int) -> None:
    """Write `n` scored generations (n / len(MODELS) examples, one per model each)."""
    n_models = len(MODELS)
    n_examples = max(1, n // n_models)
    store = open_store(path)
    con = store.cursor()
    con.begin()
    con.execute(
        f"""
        INSERT INTO models (model_id, name, backend, reference, created_at)
        SELECT 'fp-' || i, {_sql_list(MODELS)}[i + 1], 'bench', i = {n_models - 1},
               TIMESTAMP '2025-01-01'
        FROM range({n_models}) AS t(i)
        """
    )
    con.execute(
        "INSERT INTO runs (run_id, started_at, status) "
        "VALUES ('bench', TIMESTAMP '2025-01-01', 'finished')"
    )
    # Example i: task i % 10, length (i // 10) % 6, then an index within the cell.
    con.execute(
        f"""
        INSERT INTO examples (example_id, task, category, suite, length, seed, idx,
                              tokenizer, prompt_tokens, depth, context, question, gold)
        SELECT 'ex-' || i,
               {_sql_list(TASKS)}[i % {len(TASKS)} + 1],
               'synthetic', 'ruler',
               {_sql_list(LENGTHS)}[(i // {len(TASKS)}) % {len(LENGTHS)} + 1],
               0,
               i // {len(TASKS) * len(LENGTHS)},
               'o200k_base',
               {_sql_list(LENGTHS)}[(i // {len(TASKS)}) % {len(LENGTHS)} + 1] - 64,
               (i // {len(TASKS) * len(LENGTHS)}) % 11 * 10 + (hash(i) % 100) / 100.0,
               'haystack ' || i, 'What is the special magic number?', '["1234567"]'
        FROM range({n_examples}) AS t(i)
        """
    )
    # Generation g: model g % 5 on example g // 5; scores fall with length (not gold).
    con.execute(
        f"""
        INSERT INTO generations (generation_id, gen_key, run_id, model_id, example_id,
                                 config_hash, status, output, prompt_tokens, output_tokens,
                                 ttft_s, latency_s, finish_reason, error, started_at)
        SELECT 'gen-' || g, 'key-' || g, 'bench', 'fp-' || (g % {n_models}),
               'ex-' || (g // {n_models}), 'cfg',
               CASE WHEN hash(g, 'err') % 100 = 0 THEN 'error' ELSE 'ok' END,
               'The special magic number is ' || (hash(g) % 10000000) || '.',
               4000, 12, 0.2, 1.5, 'stop',
               CASE WHEN hash(g, 'err') % 100 = 0 THEN 'ReadTimeout' END,
               TIMESTAMP '2025-01-01' + INTERVAL (g) MILLISECOND
        FROM range({n_examples * n_models}) AS t(g)
        """
    )
    con.execute(
        f"""
        INSERT INTO scores (generation_id, scorer, metric, value, status, explanation,
                            scored_at)
        SELECT g.generation_id, 'recall', 'string_match_all',
               CASE WHEN g.status = 'error' THEN NULL
                    WHEN hash(g.generation_id, 'unparsed') % 50 = 0 THEN 0.0
                    WHEN g.model_id = 'fp-{n_models - 1}' THEN 1.0
                    WHEN hash(g.generation_id) % 1000
                         < 1000 - 120 * log2(e.length / 4096) THEN 1.0
                    ELSE 0.0 END,
               CASE WHEN g.status = 'error' THEN 'error'
                    WHEN hash(g.generation_id, 'unparsed') % 50 = 0
                         AND g.model_id <> 'fp-{n_models - 1}' THEN 'unparsed'
                    ELSE 'ok' END,
               'bench', TIMESTAMP '2025-01-02'
        FROM generations AS g JOIN examples AS e USING (example_id)
        """
    )
    fill_derived(con)  # what the writer does after each flush
    rebuild_result_cells(con)  # and the pivot it keeps (store/result_cells.py)
    con.commit()
    con.close()
    store.close()


def time_query(path: Path) -> float:
    """Seconds for the heatmap's aggregate query alone, on a fresh connection."""
    from lctui.tui.state.heatmap_data import model_grid

    store = open_store(path, read_only=True)
    try:
        started = time.perf_counter()
        model_grid(store.cursor())
        return time.perf_counter() - started
    finally:
        store.close()


async def _painted(pilot: Any, started: float, cells: int) -> float:
    """Seconds since `started` when the current ResultsScreen shows all `cells` cells."""
    from lctui.tui.screens.results import ResultsScreen

    while True:
        screen = pilot.app.screen
        grid = screen.grid if isinstance(screen, ResultsScreen) else None
        if grid is not None and len(grid.grid.cells) >= cells:
            await pilot.pause()  # one more refresh: the cells are painted
            return time.perf_counter() - started
        if time.perf_counter() - started > 60:
            raise RuntimeError("the heatmap did not appear within 60 s")
        await asyncio.sleep(0.002)


async def time_screen(path: Path, cells: int) -> tuple[float, float]:
    """Seconds from starting the app to a painted heatmap of all `cells` cells, and
    from pushing a fresh results screen in the running app to the same."""
    from lctui.tui.app import LctuiApp
    from lctui.tui.screens.results import ResultsScreen

    started = time.perf_counter()
    app = LctuiApp(path, Config(), read_only=True, import_samples=False)
    async with app.run_test(size=(120, 40)) as pilot:
        launch = await _painted(pilot, started, cells)
        pushed = time.perf_counter()
        await app.push_screen(ResultsScreen())
        screen = await _painted(pilot, pushed, cells)
    return launch, screen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=100_000, help="stored generations")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lctui-bench-") as tmp:
        # The app remembers its theme in the data dir: keep that out of ~.
        os.environ["LCTUI_DATA_DIR"] = str(Path(tmp) / "data")
        path = Path(tmp) / "heatmap.duckdb"
        started = time.perf_counter()
        build(path, args.n)
        con = open_store(path, read_only=True)
        stored = con.cursor().execute("SELECT count(*) FROM results").fetchone()
        con.close()
        cells = len(MODELS) * len(TASKS) * len(LENGTHS)
        print(
            f"built {stored[0] if stored else 0:,} generations ({len(MODELS)} models x "
            f"{len(TASKS)} tasks x {len(LENGTHS)} lengths = {cells} cells) "
            f"in {time.perf_counter() - started:.1f} s"
        )
        queries = [time_query(path) for _ in range(args.repeat)]
        runs = [asyncio.run(time_screen(path, cells)) for _ in range(args.repeat)]
    query_ms = statistics.median(queries) * 1000
    launch_ms = statistics.median(r[0] for r in runs) * 1000
    screen_ms = statistics.median(r[1] for r in runs) * 1000
    verdict = "ok" if screen_ms <= TARGET_MS else "OVER TARGET"
    print(f"heatmap SQL alone:                 median {query_ms:7.1f} ms of {args.repeat}")
    print(
        f"results screen to heatmap painted: median {screen_ms:7.1f} ms of {args.repeat}  "
        f"(target {TARGET_MS:.0f} ms: {verdict})"
    )
    print(f"app start to heatmap painted:      median {launch_ms:7.1f} ms of {args.repeat}")


if __name__ == "__main__":
    main()
