"""Budget fitting speed: build 32K and 128K examples and compare with one tokenisation.

Prints, per task and length, the time to build an example (fitting + verification)
and the ratio to a single tokenisation of the final prompt text with the same
tokenizer. The target is a ratio of at most 2 for warm builds (unit counts cached
per tokenizer, as after the first example of a run). The first (cold) build also
pays for counting the corpus pieces once.

    python bench/budget_fit.py [--tokenizer o200k_base|smollm2] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

from lctui.core.protocols import Tokenizer
from lctui.tasks import get_task
from lctui.tasks.tokenizers import reference_tokenizer


def _tokenizer(name: str) -> Tokenizer:
    if name == "smollm2":
        from transformers import AutoTokenizer

        from lctui.backends.embedded import embedded_checkpoint
        from lctui.backends.hf_tokenizer import HFTokenizer

        return HFTokenizer(AutoTokenizer.from_pretrained(embedded_checkpoint()))
    return reference_tokenizer(name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tokenizer", default="o200k_base")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    tokenizer = _tokenizer(args.tokenizer)
    print(f"tokenizer {tokenizer.name}; {args.repeat} warm builds per cell (median)")
    print(
        f"{'task':<14} {'length':>7} {'cold ms':>8} {'warm ms':>8} {'1 tok ms':>9} "
        f"{'warm/tok':>9} {'cold/tok':>9}"
    )
    for name in ("niah_single_2", "json_kv"):
        task = get_task(name)
        for length in (32768, 131072):
            t0 = time.perf_counter()
            example = task.generate(length, seed=123, index=0, tokenizer=tokenizer)
            cold = time.perf_counter() - t0
            warm_times, tok_times = [], []
            for i in range(1, args.repeat + 1):
                t0 = time.perf_counter()
                example = task.generate(length, seed=123, index=i, tokenizer=tokenizer)
                warm_times.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                tokenizer.count(example.user_text)
                tok_times.append(time.perf_counter() - t0)
            warm, tok = statistics.median(warm_times), statistics.median(tok_times)
            print(
                f"{name:<14} {length:>7} {cold * 1e3:>8.0f} {warm * 1e3:>8.0f} "
                f"{tok * 1e3:>9.0f} {warm / tok:>9.2f} {cold / tok:>9.2f}"
            )


if __name__ == "__main__":
    main()
