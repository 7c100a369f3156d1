"""Prefix-aware scheduling on the in-process vLLM engine: grouped vs shuffled submission.

C long contexts (State of the Union prose with k needles each) get k questions each.
The same C*k requests run twice on one engine, each time from an empty prefix cache
and with the same number of requests in flight: grouped (a context's k questions back
to back, as lctui's plan orders examples that share a context) and shuffled (the
contexts interleaved). The KV cache is sized to hold only about two contexts, so in
the shuffled order a context is evicted before its next question comes. Prints the
total time of each order, their ratio, and the prefix-cache hit rate the engine
reports (prompt tokens found cached / prompt tokens looked up).

    python bench/prefix_cache.py [--contexts 4] [--questions 8] [--tokens 4096]
                                 [--concurrency 2] [--kv-contexts 2.5]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from lctui.backends.vllm_backend import EngineStats, VLLMBackend
from lctui.core.types import Example, GenerationConfig, Request
from lctui.suites.ruler.tasks.niah import needle_sentence, random_key, random_value
from lctui.tasks.corpora import sotu_sentences
from workers import stream_all

# SmolLM2-135M keeps 30 layers x 3 KV heads x 64 dims of K and V in bf16 per token.
KV_BYTES_PER_TOKEN = 2 * 30 * 3 * 64 * 2
ANSWER_TOKENS = 12


@dataclass(frozen=True)
class OrderResult:
    name: str
    seconds: float
    stats: EngineStats


def build_context(
    backend: VLLMBackend, rng: random.Random, tokens: int, keys: Sequence[str]
) -> tuple[str, list[str]]:
    """About `tokens` tokens of consecutive prose with one needle per key, evenly spread."""
    sentences = sotu_sentences()
    start = rng.randrange(len(sentences))
    window = [sentences[(start + i) % len(sentences)] for i in range(tokens // 8)]
    picked: list[str] = []
    total = 0
    for sentence, count in zip(window, backend.tokenizer.count_batch(window), strict=True):
        if total + count > tokens:
            break
        picked.append(sentence)
        total += count + 1  # the joining space
    values = [random_value(rng, "number") for _ in keys]
    step = len(picked) // (len(keys) + 1)
    for i, (key, value) in reversed(list(enumerate(zip(keys, values, strict=True)))):
        picked.insert((i + 1) * step, needle_sentence(key, value, "number"))
    return " ".join(picked), values


def build_requests(
    backend: VLLMBackend, contexts: int, questions: int, tokens: int
) -> list[list[Request]]:
    """Requests per context: k questions that share the context and differ at the end."""
    rng = random.Random(20240501)
    config = GenerationConfig(max_new_tokens=ANSWER_TOKENS)
    grouped: list[list[Request]] = []
    for c in range(contexts):
        keys = [random_key(rng, "word") for _ in range(questions)]
        context, _values = build_context(backend, rng, tokens, keys)
        group = []
        for q, key in enumerate(keys):
            question = f'\n\nWhat is the secret number tied to "{key}"? Answer with the number.'
            example = Example(
                example_id=f"bench-c{c}-q{q}",
                task="prefix_bench",
                category="synthetic",
                suite="bench",
                length=tokens,
                seed=0,
                index=q,
                tokenizer=backend.tokenizer.name,
                params={},
                preamble="Read the text below and answer the question after it.\n\n",
                context=context,
                question=question,
                answer_prefix="",
                gold=(),
                max_new_tokens=ANSWER_TOKENS,
                prompt_tokens=0,
            )
            group.append(backend.build_request(example, config))
        grouped.append(group)
    return grouped


async def run_order(
    backend: VLLMBackend, name: str, requests: Sequence[Request], concurrency: int
) -> OrderResult:
    """Run `requests` in order with `concurrency` workers, as the engine's runner does."""
    await backend.reset_prefix_cache()
    await asyncio.sleep(0.5)  # let the reset reach the scheduler before the first lookup
    before = backend.engine_stats()
    seconds = await stream_all(backend, requests, concurrency)
    await asyncio.sleep(0.5)  # the last step's stats arrive just after its output
    return OrderResult(name, seconds, backend.engine_stats().since(before))


async def bench(backend: VLLMBackend, groups: list[list[Request]], concurrency: int) -> None:
    grouped = [r for group in groups for r in group]
    shuffled = [group[q] for q in range(len(groups[0])) for group in groups]  # interleaved
    # A short warm-up so neither order pays for first-call costs.
    await run_order(backend, "warm-up", grouped[:1], 1)
    print(
        f"{'order':<9} {'seconds':>8} {'req/min':>8} {'looked up':>10} {'hits':>8} {'hit rate':>9}"
    )
    results = []
    for name, order in (("grouped", grouped), ("shuffled", shuffled)):
        r = await run_order(backend, name, order, concurrency)
        results.append(r)
        rate = r.stats.prefix_hit_rate
        print(
            f"{r.name:<9} {r.seconds:>8.1f} {len(order) / r.seconds * 60:>8.1f} "
            f"{r.stats.prefix_queries:>10} {r.stats.prefix_hits:>8} "
            f"{'n/a' if rate is None else f'{rate:.1%}':>9}",
            flush=True,
        )
    grouped_s, shuffled_s = results[0].seconds, results[1].seconds
    print(f"shuffled / grouped total time: {shuffled_s / grouped_s:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--contexts", type=int, default=4)
    parser.add_argument("--questions", type=int, default=8)
    parser.add_argument("--tokens", type=int, default=4096, help="tokens of prose per context")
    parser.add_argument("--concurrency", type=int, default=2, help="requests in flight")
    parser.add_argument(
        "--kv-contexts", type=float, default=2.5, help="KV cache size in contexts' worth"
    )
    args = parser.parse_args()
    from lctui.backends.embedded import embedded_checkpoint

    kv_bytes = int(args.kv_contexts * (args.tokens + 200) * KV_BYTES_PER_TOKEN)
    started = time.perf_counter()
    backend = VLLMBackend(
        embedded_checkpoint(),
        name="smollm2-vllm",
        kv_cache_memory_bytes=kv_bytes,
        # vLLM needs room for one request of max_model_len in the small cache.
        max_model_len=args.tokens + 512,
    )
    print(
        f"engine up in {time.perf_counter() - started:.0f} s; KV cache {kv_bytes / 2**20:.0f} MiB "
        f"(about {args.kv_contexts} contexts); {args.contexts} contexts x {args.questions} "
        f"questions of ~{args.tokens} tokens, {args.concurrency} in flight"
    )
    groups = build_requests(backend, args.contexts, args.questions, args.tokens)

    async def go() -> None:
        try:
            await bench(backend, groups, args.concurrency)
        finally:
            await backend.close()

    asyncio.run(go())


if __name__ == "__main__":  # vLLM starts its engine in processes that re-import __main__
    main()
