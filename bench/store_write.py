"""Store write speed: 100K scored generations through the StoreWriter vs one Arrow insert.

Each scored generation is one generations row, one scores row and two rubric_points
rows (examples are shared, 50 generations each). The writer path is what the engine
does: add_example / add_generation / add_score with the default auto-flush and a
flush_if_due every 500 generations. The direct path converts the same objects to
Arrow once and inserts them in one transaction into another file. Temp files only.

    python bench/store_write.py [--n 100000] [--max-rows 4096]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from lctui.core.types import (
    Example,
    Generation,
    GenerationStatus,
    RubricPoint,
    Score,
    ScoreStatus,
    Span,
)
from lctui.store import StoreWriter, open_store, rows
from lctui.store.writer import DEFAULT_MAX_ROWS

WORDS = ("the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "seven", "wizards")


def _examples(n: int, rng: random.Random) -> list[Example]:
    out = []
    for i in range(n):
        context = " ".join(rng.choice(WORDS) for _ in range(700))  # about 4 KB
        out.append(
            Example(
                example_id=f"ex{i:06d}",
                task=("niah_single_1", "vt", "cwe", "qa_1")[i % 4],
                category="retrieval",
                suite="ruler",
                length=(4096, 8192, 16384, 32768)[i // 4 % 4],
                seed=rng.getrandbits(63),
                index=i,
                tokenizer="o200k_base",
                params={"num_needles": 1, "haystack": "essay"},
                preamble="Some special magic numbers are hidden in the text below.\n",
                context=context,
                question="\nWhat is the special magic number for tangible-fox?",
                answer_prefix="The special magic number for tangible-fox is",
                gold=(str(rng.randrange(10**6, 10**7)),),
                max_new_tokens=128,
                prompt_tokens=3960,
                template_overhead=14,
                depth=rng.random() * 100,
                spans=(Span(1000, 1050, "needle", "n0"),),
                metadata={"metric": "string_match_all"},
            )
        )
    return out


def _scored(
    n: int, examples: list[Example], rng: random.Random
) -> list[tuple[Example, Generation, Score]]:
    out = []
    now = time.time()
    for i in range(n):
        example = examples[i % len(examples)]
        failed = rng.random() < 0.01
        generation = Generation(
            generation_id=f"g{i:07d}",
            gen_key=f"k{i:07d}",
            run_id="bench",
            model_id=f"model-{i % 7}",
            example_id=example.example_id,
            config_hash="c0ffee",
            status=GenerationStatus.ERROR if failed else GenerationStatus.OK,
            output="" if failed else f" The special magic number is {example.gold[0]}.",
            prompt_tokens=3974,
            output_tokens=12,
            ttft_s=None if failed else rng.random(),
            latency_s=rng.random() * 4,
            finish_reason=None if failed else "stop",
            error="ReadTimeout: server did not answer" if failed else None,
            started_at=now + i * 0.01,
            prompt_head="<|im_start|>user\n",
            prompt_tail="<|im_end|>\n<|im_start|>assistant\nThe special magic number is",
        )
        value = 0.0 if failed else float(rng.random() < 0.7)
        score = Score(
            scorer="recall",
            metric="string_match_all",
            value=None if failed else value,
            status=ScoreStatus.ERROR if failed else ScoreStatus.OK,
            extracted=() if failed else (example.gold[0],),
            explanation="string_match_all = 1.00: found the requested value",
            points=(
                RubricPoint("all requested values present", 2.0, value, "found it", ("Recog",)),
                RubricPoint("no values not asked for", 1.0, 1.0, "none extra", ("Recog", "Fmt")),
            ),
            extras={"found": 1, "asked": 1},
        )
        out.append((example, generation, score))
    return out


CONFIG = {"max_new_tokens": 128, "temperature": 0.0, "top_p": 1.0, "stop": []}


def _through_writer(
    path: Path, items: list[tuple[Example, Generation, Score]], max_rows: int
) -> float:
    store = open_store(path)
    writer = StoreWriter(store.cursor(), where=str(path), max_rows=max_rows)
    started = time.perf_counter()
    for i, (example, generation, score) in enumerate(items):
        writer.add_example(example)
        writer.add_generation(generation, CONFIG)
        writer.add_score(generation.generation_id, score)
        if i % 500 == 0:
            writer.flush_if_due(1.0)
    writer.close()
    elapsed = time.perf_counter() - started
    store.close()
    return elapsed


def _direct(path: Path, items: list[tuple[Example, Generation, Score]]) -> tuple[float, float]:
    """Seconds to build the Arrow tables, and to insert them in one transaction."""
    store = open_store(path)
    started = time.perf_counter()
    seen: dict[str, Example] = {}
    table_rows: dict[str, list[rows.Row]] = {
        "examples": [], "generations": [], "scores": [], "rubric_points": []
    }  # fmt: skip
    config = rows.to_json(CONFIG)
    scored_at = rows.micros(time.time())
    for example, generation, score in items:
        if example.example_id not in seen:
            seen[example.example_id] = example
            table_rows["examples"].append(rows.example_row(example))
        gid = generation.generation_id
        table_rows["generations"].append(rows.generation_row(generation, config))
        table_rows["scores"].append(rows.score_row(gid, score, scored_at))
        table_rows["rubric_points"] += rows.point_rows(gid, score.scorer, scored_at, score.points)
    tables = {name: rows.to_arrow(name, rs) for name, rs in table_rows.items()}
    built = time.perf_counter()
    con = store.cursor()
    con.begin()
    for name, table in tables.items():
        con.register(f"src_{name}", table)
        con.execute(f"INSERT INTO {name} BY NAME SELECT * FROM src_{name}")
    con.commit()
    inserted = time.perf_counter()
    con.close()
    store.close()
    return built - started, inserted - built


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=100_000, help="scored generations")
    parser.add_argument(
        "--max-rows", type=int, default=DEFAULT_MAX_ROWS, help="writer auto-flush size"
    )
    args = parser.parse_args()
    rng = random.Random(7)
    examples = _examples(max(1, args.n // 50), rng)
    items = _scored(args.n, examples, rng)
    total = args.n * 4 + len(examples)
    print(
        f"{args.n:,} scored generations = {total:,} rows "
        f"({args.n:,} generations, {args.n:,} scores, {2 * args.n:,} rubric points, "
        f"{len(examples):,} examples)"
    )
    with tempfile.TemporaryDirectory(prefix="lctui-bench-") as tmp:
        writer_s = _through_writer(Path(tmp) / "writer.duckdb", items, args.max_rows)
        build_s, insert_s = _direct(Path(tmp) / "direct.duckdb", items)
    direct_s = build_s + insert_s
    print(
        f"StoreWriter (max_rows={args.max_rows}, flush_if_due): {writer_s:6.2f} s  "
        f"{args.n / writer_s:>10,.0f} scored generations/s  {total / writer_s:>10,.0f} rows/s"
    )
    print(
        f"direct Arrow, build + insert:        {direct_s:6.2f} s  "
        f"{args.n / direct_s:>10,.0f} scored generations/s  {total / direct_s:>10,.0f} rows/s"
    )
    print(
        f"direct Arrow, insert only:           {insert_s:6.2f} s  "
        f"{args.n / insert_s:>10,.0f} scored generations/s  {total / insert_s:>10,.0f} rows/s"
    )
    print(
        f"writer is {writer_s / direct_s:.1f}x slower than build + insert, "
        f"{writer_s / insert_s:.1f}x slower than the insert alone"
    )


if __name__ == "__main__":
    main()
