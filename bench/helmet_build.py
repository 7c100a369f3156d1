"""HELMET RAG, re-ranking and ICL build speed at 128K vs one tokenisation of the final prompts.

Writes into a temporary folder laid out like HELMET's data release a KILT-format NQ
file: `--rows` rows (questions repeated once per gold depth, six depths as the dep6
files), each holding all passages of a synthetic `--passages` pool (about 150 o200k
tokens each, in a per-question order, the gold one at the row's depth); and an MS MARCO
re-ranking file: `--rows` rows (queries repeated three times as the dep3 files, in three
orders), each query with its own pool of such passages with integer ids, a tenth of
them graded 1-3; and the fixture demo files. Then it builds `--rows` examples of
kilt_nq and of msmarco_rerank at `--length` and compares each build time (fitting and
verification, passages counted once per tokenizer) with one o200k_base tokenisation of
every final prompt. Reading a file is timed apart (it happens once per run). The target
is a ratio of at most 2.

    python bench/helmet_build.py [--length 128k] [--rows 100] [--passages 1000]

ICL: a BANKING77-shaped pool (`--icl-train` invented train rows over 77 labels, as many
test rows) under `hub/PolyAI/banking77/`; `--rows` examples of icl_banking77 at
`--length`, each with its own balanced draw of demonstrations and label map, timed
against one tokenisation of their prompts the same way.

ALCE: an ASQA-format `alce/asqa_eval_gtr_top2000.json` of `--rows` questions, each with
its own `--alce-docs` retrieved documents (about 100 words each, as ALCE's Wikipedia
passages; no document shared between questions, as GTR's top 2000 of different
questions rarely are) and the fixture demonstrations; `--rows` examples of alce_asqa at
`--length`, timed against one tokenisation of their prompts the same way.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import tempfile
import time
from pathlib import Path

from lctui.core.lengths import format_length, parse_length
from lctui.tasks import get_task
from lctui.tasks.datasets import DataSource
from lctui.tasks.tokenizers import reference_tokenizer

FIXTURES = Path(__file__).parent.parent / "tests/fixtures/helmet"
DEMOS = FIXTURES / "kilt/nq-train-multikilt_1000_k3_dep6.jsonl"
RERANK_DEMOS = FIXTURES / "msmarco/test_reranking_data_k10_dep3.jsonl"
ALCE_DEMOS = FIXTURES / "prompts/asqa_revised.json"
DEPTHS = 6
RERANK_REPEATS = 3
WORDS = [
    "river",
    "valley",
    "council",
    "harbour",
    "market",
    "winter",
    "station",
    "bridge",
    "museum",
    "village",
    "county",
    "railway",
    "mill",
    "castle",
    "parish",
    "forest",
    "mountain",
    "treaty",
    "festival",
    "library",
    "garden",
    "tower",
    "island",
    "coast",
    "school",
    "chapel",
    "district",
    "founded",
    "built",
    "named",
    "opened",
    "closed",
    "rebuilt",
    "moved",
    "northern",
    "southern",
    "eastern",
    "western",
    "old",
    "new",
    "small",
    "large",
    "early",
    "late",
    "famous",
    "local",
]


def write_release(folder: Path, rows: int, passages: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    pool = [
        {
            "title": f"{rng.choice(WORDS).capitalize()} {rng.choice(WORDS)} {i}",
            "text": " ".join(rng.choices(WORDS, k=150)) + ".",
        }
        for i in range(passages - 1)
    ]
    (folder / "kilt").mkdir(parents=True)
    shutil.copy(DEMOS, folder / "kilt" / DEMOS.name)
    with (folder / "kilt" / "nq-dev-multikilt_1000_k1000_dep6.jsonl").open("w") as out:
        for row in range(rows):
            question, depth = divmod(row, DEPTHS)
            order = random.Random(question).sample(pool, len(pool))
            answer = f"Warden {question} of the cape"
            gold = {"title": "Cape", "text": f"The first keeper of the cape light was {answer}."}
            order.insert(round(depth / (DEPTHS - 1) * len(order)), gold)
            record = {
                "question": f"who kept the cape light first ({question})",
                "answers": [answer],
            }
            out.write(json.dumps({**record, "ctxs": order}) + "\n")


def write_rerank_release(folder: Path, rows: int, passages: int) -> None:
    (folder / "msmarco").mkdir(parents=True)
    shutil.copy(RERANK_DEMOS, folder / "msmarco" / RERANK_DEMOS.name)
    with (folder / "msmarco" / "test_reranking_data_k1000_dep3.jsonl").open("w") as out:
        for row in range(rows):
            query, repeat = divmod(row, RERANK_REPEATS)
            rng = random.Random(query)  # each query its own passages, as MS MARCO's top 1000
            pool = [
                {
                    "id": str(3_000_000 + query * passages + i),
                    "text": " ".join(rng.choices(WORDS, k=150)) + ".",
                    "label": rng.choice((1, 2, 3)) if rng.random() < 0.1 else 0,
                }
                for i in range(passages)
            ]
            order = random.Random(f"{query}-{repeat}").sample(pool, len(pool))
            record = {"qid": str(query), "query": f"which parish kept the old mill ({query})"}
            out.write(json.dumps({**record, "ctxs": order}) + "\n")


def write_icl_release(folder: Path, train: int, seed: int = 0) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = random.Random(seed)
    for split, count in (("train", train), ("test", train // 3)):
        texts = [
            f"{rng.choice(WORDS)} {' '.join(rng.choices(WORDS, k=rng.randint(4, 14)))} {i} ?"
            for i in range(count)
        ]
        table = pa.table({"text": texts, "label": [rng.randrange(77) for _ in range(count)]})
        path = folder / "hub/PolyAI/banking77/default" / split / "0000.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(table, path)


def write_alce_release(folder: Path, rows: int, docs: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    (folder / "alce").mkdir(parents=True)
    (folder / "prompts").mkdir(parents=True)
    shutil.copy(ALCE_DEMOS, folder / "prompts" / ALCE_DEMOS.name)
    records = []
    for row in range(rows):
        town = f"{rng.choice(WORDS).capitalize()}ton {row}"
        answer = f"{rng.choice(WORDS).capitalize()} river"
        ctxs = [
            {
                "id": str(row * docs + i),
                "title": f"{rng.choice(WORDS).capitalize()} {rng.choice(WORDS)} {row}-{i}",
                "text": " ".join(rng.choices(WORDS, k=100)) + ".",
            }
            for i in range(docs)
        ]
        ctxs[rng.randrange(docs)]["text"] += f" The {answer} runs through {town}."
        records.append(
            {
                "sample_id": f"bench-{row}",
                "question": f"Which river runs through {town}?",
                "qa_pairs": [
                    {"question": f"Which river runs through {town}?", "short_answers": [answer]}
                ],
                "docs": ctxs,
            }
        )
    (folder / "alce" / "asqa_eval_gtr_top2000.json").write_text(json.dumps(records))


def measure(task_name: str, folder: Path, rows: int, length: int, passages: int) -> None:
    """Build `rows` examples of the task from `folder` and print the ratio to tokenising."""
    tokenizer = reference_tokenizer("o200k_base")
    task = get_task(task_name).with_data(DataSource(folder=folder))
    t0 = time.perf_counter()
    task.data_problems()  # reads and parses the file once, as the first example would
    read = time.perf_counter() - t0
    t0 = time.perf_counter()
    examples = [task.generate(length, 0, i, tokenizer) for i in range(rows)]
    build = time.perf_counter() - t0
    texts = [e.user_text for e in examples]
    t0 = time.perf_counter()
    tokens = sum(tokenizer.count(text) for text in texts)
    tokenise = time.perf_counter() - t0
    unit = next(u for u in ("shots", "num_docs", "num_passages") if u in examples[0].metadata)
    shown = sorted(int(e.metadata[unit]) for e in examples)
    print(
        f"{rows} {task_name} prompts at {format_length(length)} from a {passages}-unit "
        f"pool (file read in {read:.1f} s)"
    )
    print(f"  {unit.replace('num_', '')} per prompt: {shown[0]}..{shown[-1]}")
    print(
        f"  build all: {build:.1f} s; one tokenisation of all {tokens:,} tokens: {tokenise:.1f} s"
    )
    print(f"  ratio build / tokenise: {build / tokenise:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--length", default="128k")
    parser.add_argument("--rows", type=int, default=100)
    parser.add_argument("--passages", type=int, default=1000)
    parser.add_argument("--icl-train", type=int, default=10_000)
    parser.add_argument("--alce-docs", type=int, default=2000)
    parser.add_argument(
        "--only", default="", help="comma-separated task names to measure (default: all)"
    )
    args = parser.parse_args()
    length = parse_length(args.length)
    with tempfile.TemporaryDirectory(prefix="lctui-helmet-bench-") as tmp:
        t0 = time.perf_counter()
        folder = Path(tmp)
        write_release(folder, args.rows, args.passages)
        write_rerank_release(folder, args.rows, args.passages)
        write_icl_release(folder, args.icl_train)
        write_alce_release(folder, args.rows, args.alce_docs)
        print(f"files written in {time.perf_counter() - t0:.1f} s")
        pools = {
            "kilt_nq": args.passages,
            "msmarco_rerank": args.passages,
            "icl_banking77": args.icl_train,
            "alce_asqa": args.alce_docs,
        }
        chosen = [name for name in args.only.split(",") if name] or list(pools)
        for name in chosen:
            measure(name, folder, args.rows, length, pools[name])


if __name__ == "__main__":
    main()
