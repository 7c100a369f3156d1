"""LIFBench prompt-set build speed at one length vs one tokenisation of all contexts.

Builds the 467-prompt set of one LIFBench length interval (the original's count per
length), spread over the 11 tasks round-robin so every expression and variable
sample recurs, and compares the total build time (fitting + verification) with one
o200k_base tokenisation of every final prompt text. The examples of a scenario share
their context (one per scenario, seed and length), so the first example of each
scenario pays for counting its stream and the others only assemble and verify; the
shared-prefix share is the smallest common character prefix of a scenario's prompts
as a share of the longer prompt (what a server's prefix cache can reuse).

    python bench/lifbench_build.py [--length 120k] [--prompts 467]
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

from lctui.core.lengths import format_length, parse_length
from lctui.suites.lifbench.tasks.shared import shared_prefix
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
    by_context: dict[str, list[str]] = defaultdict(list)
    t_all = time.perf_counter()
    for task, index in plan:
        t0 = time.perf_counter()
        example = task.generate(length, seed=0, index=index, tokenizer=tokenizer)
        built_per_task[task.name] = built_per_task.get(task.name, 0.0) + time.perf_counter() - t0
        texts.append(example.user_text)
        by_context[str(example.metadata["context_key"])].append(example.user_text)
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
    for key, prompts in by_context.items():
        print(
            f"  {key:<40} {len(prompts):>4} prompts, shared prefix >= {prefix_share(prompts):.1%}"
        )


def prefix_share(prompts: list[str]) -> float:
    """The smallest common character prefix of `prompts` with the first, over the longer."""
    first = prompts[0]
    shares = [shared_prefix(first, other) / max(len(first), len(other)) for other in prompts[1:]]
    return min(shares, default=1.0)


if __name__ == "__main__":
    main()
