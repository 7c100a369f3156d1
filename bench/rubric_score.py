"""LIFEval rubric scoring speed: responses scored per second, per task and length.

For every LIFBench task, builds a few examples at each length and scores four kinds
of response per example: the reference answer, a plausible wrong one (the model's
answer for another example of the task), a near miss (the reference with a character
changed) and garbage. Prints responses/s and the ratio of the time to score a
response to the time to tokenise its prompt once (the cheapest thing a run does with
every example): scoring must stay a small fraction of building.

Then the worst case of find_dup_text scoring (an answer of many distinct values, each
looked for in the prompt) against the naive way, at the largest length.

    python bench/rubric_score.py [--lengths 3k,120k] [--n 3]
"""

from __future__ import annotations

import argparse
import time

from lctui.backends.gold import reference_answer
from lctui.core.lengths import format_length, parse_lengths
from lctui.core.protocols import Tokenizer
from lctui.core.types import Example
from lctui.scoring import score_example
from lctui.scoring.substrings import occurring
from lctui.tasks import select_tasks
from lctui.tasks.tokenizers import reference_tokenizer


def near_miss(text: str) -> str:
    """The text with one character in its middle changed."""
    if not text:
        return "x"
    middle = len(text) // 2
    return text[:middle] + ("x" if text[middle] != "x" else "y") + text[middle + 1 :]


def responses(examples: list[Example]) -> list[tuple[Example, str]]:
    out = []
    for i, example in enumerate(examples):
        reference = reference_answer(example)
        other = reference_answer(examples[(i + 1) % len(examples)])
        garbage = "I am not sure what you are asking for."
        out += [(example, reference), (example, other), (example, near_miss(reference))]
        out.append((example, garbage))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lengths", default="3k,120k")
    parser.add_argument("--n", type=int, default=3, help="examples per task and length")
    args = parser.parse_args()
    tokenizer = reference_tokenizer("o200k_base")
    lengths = parse_lengths(args.lengths)
    print(f"{'task':<28} {'length':>6} {'resp/s':>9} {'ms/resp':>8} {'tok ms':>8} {'score/tok':>9}")
    total_n, total_s = 0, 0.0
    for task in select_tasks("lifbench"):
        for length in lengths:
            examples = [task.generate(length, 0, i, tokenizer) for i in range(args.n)]
            pairs = responses(examples)
            t0 = time.perf_counter()
            for example, text in pairs:
                score_example(example, text)
            elapsed = time.perf_counter() - t0
            t0 = time.perf_counter()
            for example in examples:
                tokenizer.count(example.user_text)
            tok = (time.perf_counter() - t0) / len(examples)
            per = elapsed / len(pairs)
            total_n, total_s = total_n + len(pairs), total_s + elapsed
            print(
                f"{task.name:<28} {format_length(length):>6} {1 / per:>9.0f} "
                f"{per * 1e3:>8.2f} {tok * 1e3:>8.2f} {per / tok:>9.3f}"
            )
    print(f"all: {total_n} responses in {total_s:.2f} s = {total_n / total_s:.0f} responses/s")
    value_lookup(tokenizer, max(lengths))


def value_lookup(tokenizer: Tokenizer, length: int) -> None:
    """find_dup_text's worst case: an answer listing many distinct values, each looked
    for in the prompt (the original's `value in prompt`). Ours hashes the prompt's
    windows once per value length; the naive way scans the prompt per value."""
    (task,) = select_tasks("lifbench_find_dup_text")
    prompt = task.generate(length, 0, 0, tokenizer).user_text
    values = [str(i) for i in range(100_000, 102_000)] + [f"id-{i:06d}" for i in range(2_000)]
    t0 = time.perf_counter()
    found = occurring(values, prompt)
    ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    naive = {v for v in values if v in prompt}
    slow = time.perf_counter() - t0
    assert found == naive, (len(found), len(naive))
    print(
        f"find_dup_text value lookup at {format_length(length)} ({len(values)} values, "
        f"{len(prompt)} characters of prompt): {ours * 1e3:.1f} ms vs {slow * 1e3:.1f} ms "
        f"scanning per value: {slow / ours:.1f}x"
    )


if __name__ == "__main__":
    main()
