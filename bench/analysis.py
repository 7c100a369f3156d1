"""Analysis speed on 1M and 10M synthetic generations: results pivot, A/B compare,
correlation.

Builds DuckDB files through SQL (INSERT ... SELECT from range()):

- 1M (`--scale 1m`, a few seconds to build):
  - `ab`: two checkpoints, one run each, 500K generations per run on the same 500K
    examples (10 tasks x 5 lengths x 10,000): the A/B comparison of two 500K-row runs.
  - `many`: 20 models x 50K examples = 1M generations: the correlation matrix.
- 10M (`--scale 10m`, 80 s to build on 2 quiet cores, 4 to 5 minutes when shared):
  - `ab`: two runs of 5M generations each on the same 5M examples (10 tasks x 5 lengths
    x 100,000): the A/B of two 5M-row runs, and the results pivot over 10M rows.

Eight tasks score pass/fail, two are graded in quarters; about 1 % of generations
fail and 2 % are unparsed. Ids are shaped like the engine's: 16 hex characters for
examples and generation keys, 32 for generation ids (uuid4().hex). The results pivot
(the model x task x length means of the heatmap and the CLI, via cell_scores, read from
the result_cells table of store migration 10) is timed on each file, beside it the same
pivot by the full query over results_core (as before migration 10) for the ratio, and
on the 1M `ab` file the pivot joining on text ids (as before store migration 5).
Targets (median of warm repeats): at 1M pivot 200 ms, compare 500 ms, correlation
500 ms; at 10M pivot 300 ms, compare 3 s. The A/B is timed in turn with its pairs query
alone and the query before it (`paired_scores(reference=True)`), best and median, so
that their ratio is taken in the same minutes of a shared machine. The files go under
--dir and are deleted at the end unless --keep. Peak memory is the process's maximum
resident set (DuckDB runs in it).

    python bench/analysis.py [--scale 1m 10m] [--repeat 3] [--dir /tmp/lctui-bench-analysis]
                             [--keep]
"""

from __future__ import annotations

import argparse
import re
import resource
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb

from lctui.analysis.compare import CHANGED_LIMIT, CHANGED_THRESHOLD, compare
from lctui.analysis.correlation import correlate
from lctui.store import Store, open_store
from lctui.store.derived import fill_derived
from lctui.store.read import cells, pairs
from lctui.store.result_cells import rebuild_result_cells

TASKS = 10
LENGTHS = (4096, 8192, 16384, 32768, 65536)
# Per scale: the median of warm repeats to stay under, in milliseconds.
TARGET_MS = {
    "1m": {"pivot": 200.0, "compare": 500.0, "correlation": 500.0},
    "10m": {"pivot": 300.0, "compare": 3000.0},
}

# Tasks 0-3 synthetic, 4-5 rag, 6-7 icl, 8-9 longqa (graded); 0-1 record a needle depth.
_EXAMPLES = f"""
    INSERT INTO examples (example_id, task, category, suite, length, seed, idx, tokenizer,
                          gold, max_new_tokens, prompt_tokens, depth, truncated)
    SELECT left(md5('e' || i), 16), 'task_' || (i % {TASKS}),
           CASE WHEN i % {TASKS} < 4 THEN 'synthetic' WHEN i % {TASKS} < 6 THEN 'rag'
                WHEN i % {TASKS} < 8 THEN 'icl' ELSE 'longqa' END,
           'bench', {list(LENGTHS)}[1 + (i // {TASKS}) % {len(LENGTHS)}], 0,
           i // ({TASKS} * {len(LENGTHS)}), 'o200k_base', '["x"]', 32,
           {list(LENGTHS)}[1 + (i // {TASKS}) % {len(LENGTHS)}],
           CASE WHEN i % {TASKS} < 2 THEN (i // ({TASKS} * {len(LENGTHS)})) % 11 * 10.0 END,
           false
    FROM range($examples) AS t(i)
"""
# p: chance of a pass, from the model's skill, the task and the length.
_GENERATIONS = """
    CREATE TEMP TABLE gen AS
    SELECT md5('g' || m || '-' || e.idx_all) AS generation_id, m, e.example_id, e.task, e.length,
           e.category,
           greatest(0.02, least(0.98, 0.55 + 0.02 * m - 0.03 * (hash(e.task) % 7)
                    - 0.04 * log2(e.length / 4096) + 0.1 * (random() - 0.5))) AS p,
           random() AS u, random() AS w
    FROM (SELECT *, row_number() OVER () - 1 AS idx_all FROM examples) AS e,
         range($models) AS t(m)
"""
_INSERTS = (
    """
    INSERT INTO generations (generation_id, gen_key, run_id, model_id, example_id,
        config_hash, status, output, prompt_tokens, output_tokens, ttft_s, latency_s,
        finish_reason, error, started_at, gen_hash, task, category, length)
    SELECT generation_id, left(generation_id, 16), $run_prefix || (m // $models_per_run),
           'model-' || m, example_id, 'c0', CASE WHEN w < 0.01 THEN 'error' ELSE 'ok' END,
           CASE WHEN w < 0.01 THEN NULL ELSE 'answer' END, length, 8, 0.1, 0.5, 'stop',
           CASE WHEN w < 0.01 THEN 'timeout' END, TIMESTAMP '2026-01-01' + INTERVAL (m) SECOND,
           md5_number(generation_id), task, category, length
    FROM gen
    """,
    """
    INSERT INTO scores (generation_id, scorer, metric, value, status, extracted, explanation,
                        scored_at, gen_hash)
    SELECT generation_id, 'bench', CASE WHEN category = 'longqa' THEN 'graded' ELSE 'pass' END,
           CASE WHEN w < 0.01 THEN NULL WHEN w < 0.03 THEN 0.0
                WHEN category = 'longqa' THEN least(1.0, round((p + u - 0.5) * 4) / 4)
                ELSE (u < p)::DOUBLE END,
           CASE WHEN w < 0.01 THEN 'error' WHEN w < 0.03 THEN 'unparsed' ELSE 'ok' END,
           '[]', '', TIMESTAMP '2026-01-02', md5_number(generation_id)
    FROM gen
    """,
    """
    INSERT INTO models (model_id, name, backend, created_at)
    SELECT 'model-' || m, $names[m + 1], 'bench', TIMESTAMP '2026-01-01' FROM range($models) t(m)
    """,
    """
    INSERT INTO runs (run_id, started_at, status)
    SELECT DISTINCT run_id, TIMESTAMP '2026-01-01', 'finished' FROM generations
    """,
)


# The pivot as it was before store migration 5: scores joined on the text generation
# id and the task and length read from the examples table (the naive way).
_TEXT_JOIN_PIVOT = f"""
    SELECT model, e.task, e.length, {cells.CELL_AGGREGATES}
    FROM (
        SELECT coalesce(m.name, g.model_id) AS model, g.example_id,
               coalesce(s.status, g.status) AS status, s.value AS score,
               coalesce(m.reference, false) AS reference
        FROM generations AS g
        LEFT JOIN models AS m ON m.model_id = g.model_id
        LEFT JOIN scores AS s
            ON s.generation_id = g.generation_id AND s.latest AND s.scorer <> 'judge'
        WHERE g.latest
    ) AS g
    LEFT JOIN examples AS e ON e.example_id = g.example_id
    GROUP BY ALL
"""


def text_join_pivot(store: Any) -> object:
    cur = store.cursor()
    try:
        return cur.execute(_TEXT_JOIN_PIVOT).fetchall()
    finally:
        cur.close()


def build(path: Path, models: int, examples: int, names: list[str], runs: int) -> float:
    """A results file of `models` x `examples` generations; returns seconds taken."""
    path.unlink(missing_ok=True)
    start = time.perf_counter()
    open_store(path).close()  # schema and views
    con = duckdb.connect(str(path))
    try:
        con.execute("SELECT setseed(0.42)")
        con.execute(_EXAMPLES, {"examples": examples})
        con.execute(_GENERATIONS, {"models": models})
        params: dict[str, Any] = {
            "run_prefix": "run-",
            "models_per_run": max(1, models // runs),
            "models": models,
            "names": names,
        }
        for sql in _INSERTS:
            used = set(re.findall(r"\$(\w+)", sql))
            con.execute(sql, {k: v for k, v in params.items() if k in used})
        # The derived columns (store/derived.py) came with the rows, as the writer's
        # derived_select computes them; fill_derived then only checks for gaps. The
        # rows came around the writer, so result_cells is computed once, as migration
        # 10 does for an older file.
        fill_derived(con)
        rebuild_result_cells(con)
        con.execute("CHECKPOINT")
    finally:
        con.close()
    return time.perf_counter() - start


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """(first call, median of `repeat` further calls) in milliseconds."""
    t0 = time.perf_counter()
    fn()
    first = (time.perf_counter() - t0) * 1000
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return first, statistics.median(times)


def alternated(
    fns: dict[str, Callable[[], object]], repeat: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Milliseconds of `repeat` calls of each of `fns`, taken in turn (one call of each
    first, untimed), so that a ratio between them is taken in the same minutes of a
    shared machine: (wall-clock times, CPU times of this process, all its threads)."""
    for fn in fns.values():
        fn()
    wall: dict[str, list[float]] = {name: [] for name in fns}
    cpu: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            c0, t0 = time.process_time(), time.perf_counter()
            fn()
            wall[name].append((time.perf_counter() - t0) * 1000)
            cpu[name].append((time.process_time() - c0) * 1000)
    return wall, cpu


def report(
    scale: str, name: str, what: str, first: float, warm: float, *, label: str = "first"
) -> tuple[float, float]:
    target = TARGET_MS[scale][name]
    print(
        f"{what:<46} {label:<5} {first:7.0f} ms  warm {warm:7.0f} ms  target {target:5.0f} ms  "
        f"warm/target {warm / target:5.2f}"
    )
    return first, warm


def peak_memory() -> str:
    """The process's maximum resident set so far (DuckDB runs in this process)."""
    kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    return f"peak memory {kib / 1024**2:.1f} GiB"


def bench_ab(ab: Path, scale: str, per_cell: int, repeat: int) -> None:
    """Two runs of one checkpoint each on the same examples: the pivot and the A/B."""
    examples = TASKS * len(LENGTHS) * per_cell
    rows = f"{2 * examples / 1e6:g}M rows"
    took = build(ab, 2, examples, ["ckpt-a", "ckpt-b"], runs=2)
    print(f"built {ab}: 2 runs x {examples:,} generations in {took:.1f} s")
    with open_store(ab, read_only=True) as store:
        _, ours = report(scale, "pivot", f"results pivot (cell_scores), {rows}", *timed(
            lambda: cells.cell_scores(store), repeat))  # fmt: skip
        _, full = timed(lambda: cells.cell_scores(store, through_views=True), repeat)
        print(f"{'  same pivot by the full query (results_core)':<46} warm {full:7.0f} ms  "
              f"full/ours {full / ours:5.2f}")  # fmt: skip
        if scale == "1m":  # the text-join pivot takes seconds at 10M and says nothing new
            _, naive = timed(lambda: text_join_pivot(store), repeat)
            print(f"{'  same pivot joining on text ids':<46} warm {naive:7.0f} ms  "
                  f"text/ours {naive / ours:5.2f}")  # fmt: skip
        bench_compare(store, scale, repeat)


def bench_compare(store: Store, scale: str, repeat: int) -> None:
    """compare() of the two runs, and its pairs query beside the query before it
    (pairs.paired_scores(reference=True)), taken in turn: best and median of each."""
    result = compare(store, "run:run-0", "run:run-1")
    n = sum(c.n for c in result.cells)
    sides = (pairs.SideKey(("model-0",), "run-0"), pairs.SideKey(("model-1",), "run-1"))

    def query(reference: bool) -> Callable[[], object]:
        return lambda: pairs.paired_scores(
            store, *sides, threshold=CHANGED_THRESHOLD, limit=CHANGED_LIMIT, reference=reference
        )

    times, cpu = alternated(
        {
            "compare": lambda: compare(store, "run:run-0", "run:run-1"),
            "query": query(False),
            "before": query(True),
        },
        repeat,
    )
    best = {name: min(t) for name, t in times.items()}
    median = {name: statistics.median(t) for name, t in times.items()}
    report(scale, "compare", f"A/B run:run-0 vs run:run-1 ({n:,} pairs)", best["compare"],
           median["compare"], label="best")  # fmt: skip
    for name, what in (("query", "  its pairs query"), ("before", "  the pairs query before")):
        print(f"{what:<46} best  {best[name]:7.0f} ms  median {median[name]:7.0f} ms  "
              f"CPU {statistics.median(cpu[name]):7.0f} ms")  # fmt: skip
    print(f"{'  before/now (same minutes)':<46} best  {best['before'] / best['query']:7.2f}     "
          f"median {median['before'] / median['query']:7.2f}")  # fmt: skip


def bench_many(many: Path, scale: str, per_cell: int, repeat: int) -> None:
    """20 models on the same examples: the pivot and the correlation matrix."""
    examples = TASKS * len(LENGTHS) * per_cell
    names = [f"model-{m:02d}" for m in range(20)]
    took = build(many, 20, examples, names, runs=1)
    print(f"built {many}: 20 models x {examples:,} generations in {took:.1f} s")
    with open_store(many, read_only=True) as store:
        report(scale, "pivot", f"results pivot (cell_scores), {20 * examples / 1e6:g}M rows",
               *timed(lambda: cells.cell_scores(store), repeat))  # fmt: skip
        report(scale, "correlation", "correlation by task, all lengths", *timed(
            lambda: correlate(store), repeat))  # fmt: skip
        report(scale, "correlation", "correlation by category @ 64k", *timed(
            lambda: correlate(store, by="category", length=65536), repeat))  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scale", nargs="+", choices=sorted(TARGET_MS), default=["1m", "10m"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", default="/tmp/lctui-bench-analysis")
    parser.add_argument("--keep", action="store_true", help="keep the DuckDB files built")
    args = parser.parse_args()
    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    built: list[Path] = []  # listed before they are built, so a failed build goes too
    try:
        for scale in args.scale:
            print(f"-- {scale} generations")
            built.append(folder / f"ab-{scale}.duckdb")
            bench_ab(built[-1], scale, 10_000 if scale == "1m" else 100_000, args.repeat)
            if scale == "1m":
                built.append(folder / f"many-{scale}.duckdb")
                bench_many(built[-1], scale, 1_000, args.repeat)
            print(peak_memory())
    finally:
        if not args.keep:
            for path in built:
                path.unlink(missing_ok=True)
                path.with_name(path.name + ".wal").unlink(missing_ok=True)


if __name__ == "__main__":
    main()
