"""Measure what lctui's own wording and filling change: models on lctui's RULER examples and on
RULER's own generated examples of the same tasks and length, scored the same way.

RULER's examples come from its own generators (scripts/parity/ruler_structure.py with
`--keep DIR` writes `{task}_{length}/validation.jsonl` there; they use the same
substitute essay haystack as lctui, so the haystack's own effect is not measured). Both
sides are rendered by lctui with each model's chat template and scored with
`string_match_all`, which equals RULER's on every row of tests/parity/ruler_metrics.jsonl.
Not run in CI: SmolLM2-135M on 11 tasks x 10 examples x 2 sides at 4K takes about
35 minutes on 2 CPU cores.

    PYTHONPATH=src python scripts/parity/ruler_effect.py --ruler-examples DIR \\
        --db /tmp/effect.duckdb --models smollm2-135m,gold [--length 4096] [--n 10]

RULER's QA tasks: `--tasks qa_1,qa_2 --data tests/fixtures/ruler_qa` with the examples
scripts/parity/ruler_qa_structure.py keeps (`--keep DIR`), scored with string_match_part.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import statistics
from collections import defaultdict
from pathlib import Path

from ruler_common import RULER_TASKS

from lctui.backends.registry import load_backend, resolve_model
from lctui.core.types import Example
from lctui.engine.plan import RunRequest
from lctui.engine.runner import Engine
from lctui.scoring.metrics import string_match_all, string_match_part
from lctui.store.db import open_store
from lctui.tasks.budget import TEMPLATE_ALLOWANCE
from lctui.tasks.datasets import DataSource
from lctui.tasks.registry import get_task, select_tasks

ORIGIN = "ruler-"  # example ids of RULER's examples start with this


def ruler_examples(folder: Path, length: int, n: int, names: list[str]) -> list[Example]:
    """RULER's generated rows as lctui examples: its whole input (instruction, context and
    question in its own words) is the context, its answer prefix the prefix."""
    out = []
    for name in names:
        task = get_task(name)
        lines = (folder / f"{name}_{length}" / "validation.jsonl").read_text().splitlines()
        for line in lines[:n]:
            row = json.loads(line)
            out.append(
                Example(
                    example_id=f"{ORIGIN}{name}-{row['index']}",
                    task=name,
                    category=task.category,
                    suite=task.suite,
                    length=length,
                    seed=0,
                    index=row["index"],
                    tokenizer="o200k_base",
                    params={},
                    preamble="",
                    context=row["input"],
                    question="",
                    answer_prefix=row["answer_prefix"].strip(),
                    gold=tuple(row["outputs"]),
                    max_new_tokens=task.answer_tokens(length),
                    prompt_tokens=row["length"],
                    template_overhead=TEMPLATE_ALLOWANCE,
                    metadata={"metric": task.metric, "scorer": "recall", "origin": "ruler"},
                )
            )
    return out


def run(db: Path, request: RunRequest) -> None:
    with open_store(db) as store:
        outcome = asyncio.run(Engine(store, load_backend, lambda event: None).run(request))
    print(f"{outcome.done} generations, {outcome.errors} errors", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ruler-examples", type=Path, required=True)
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--models", default="smollm2-135m,gold")
    parser.add_argument("--length", type=int, default=4096)
    parser.add_argument("--n", type=int, default=10)
    parser.add_argument("--tasks", default=",".join(RULER_TASKS))
    parser.add_argument("--data", type=Path, help="the data of tasks that read files")
    args = parser.parse_args()
    models = [resolve_model(name, {}) for name in args.models.split(",")]
    names = args.tasks.split(",")
    source = DataSource(folder=args.data.resolve()) if args.data else None
    tasks = [task.with_data(source) for task in select_tasks(args.tasks)]
    ours = RunRequest(
        models=models, tasks=tasks, lengths=[args.length], n=args.n, tokenizer="o200k_base"
    )
    run(args.db, ours)
    theirs = ruler_examples(args.ruler_examples, args.length, args.n, names)
    run(args.db, dataclasses.replace(ours, examples=theirs))
    golds = {e.example_id: e.gold for e in theirs}
    scores: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    with open_store(args.db, read_only=True) as store:
        rows = store.cursor().execute(
            "SELECT m.name, g.task, g.example_id, g.output, e.gold FROM generations g "
            "JOIN models m USING (model_id) JOIN examples e USING (example_id) "
            "WHERE g.status = 'ok'"
        )
        for model, task, example_id, output, gold in rows.fetchall():
            ours = not example_id.startswith(ORIGIN)
            answers = tuple(json.loads(gold)) if ours else golds[example_id]
            side = "lctui" if ours else "ruler"
            metric = (
                string_match_part
                if get_task(task).metric == "string_match_part"
                else string_match_all
            )
            scores[model, task, side].append(metric(output or "", answers))
    print("model | task | lctui | RULER's examples | n")
    for model in sorted({m for m, _, _ in scores}):
        means: dict[str, list[float]] = {"lctui": [], "ruler": []}
        for task in names:
            ours, theirs_ = scores[model, task, "lctui"], scores[model, task, "ruler"]
            if not ours or not theirs_:
                continue
            means["lctui"].append(statistics.mean(ours))
            means["ruler"].append(statistics.mean(theirs_))
            print(
                f"{model} | {task} | {means['lctui'][-1]:.3f} | {means['ruler'][-1]:.3f} | "
                f"{len(ours)}/{len(theirs_)}"
            )
        if means["lctui"]:
            print(
                f"{model} | mean | {statistics.mean(means['lctui']):.3f} | "
                f"{statistics.mean(means['ruler']):.3f} |"
            )


if __name__ == "__main__":
    main()
