"""LIFBench prompt-set build speed at one length vs one tokenisation of all contexts.

Builds the 467-prompt set of one LIFBench length interval (the original's count per
length), spread over the 11 tasks round-robin so every expression and variable
sample recurs, and compares the total build time (fitting + verification) with one
o200k_base tokenisation of every final prompt text.

    python bench/lifbench_build.py [--length 120k] [--prompts 467]
"""

from __future__ import annotations

import argparse
import time

from lctui.core.lengths import format_length, parse_length
from lctui.tasks import select_tasks
from lctui.tasks.tokenizers import reference_tokenizer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--length", default="120k")
    parser.add_argument("--prompts", type=int, default=467)
    args = parser.parse_args()
    length = parse_length(args.length)
    tokenizer = reference_tokenizer("o200k_base")
    tasks = select_tasks("lifbench")
    plan = [(tasks[i % len(tasks)], i // len(tasks)) for i in range(args.prompts)]
    built_per_task: dict[str, float] = {}
    texts: list[str] = []
    t_all = time.perf_counter()
    for task, index in plan:
        t0 = time.perf_counter()
        example = task.generate(length, seed=0, index=index, tokenizer=tokenizer)
        built_per_task[task.name] = built_per_task.get(task.name, 0.0) + time.perf_counter() - t0
        texts.append(example.user_text)
    build = time.perf_counter() - t_all
    t0 = time.perf_counter()
    tokens = sum(tokenizer.count(text) for text in texts)
    tokenise = time.perf_counter() - t0
    print(f"{len(plan)} prompts at {format_length(length)} over {len(tasks)} tasks")
    for name, seconds in built_per_task.items():
        count = sum(1 for task, _ in plan if task.name == name)
        print(f"  {name:<34} {count:>4} prompts {seconds:>7.2f} s ({seconds / count:.3f} s each)")
    print(f"build all: {build:.1f} s; one tokenisation of all {tokens:,} tokens: {tokenise:.1f} s")
    print(f"ratio build / tokenise: {build / tokenise:.2f}x")


if __name__ == "__main__":
    main()
