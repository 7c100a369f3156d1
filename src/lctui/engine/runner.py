"""The async engine: build examples, stream generations, score, persist, resume.

One `Engine.run` fans a RunRequest out over models; each model gets workers
bounded by its backend's concurrency. Examples are built in threads ahead of the
workers, generations stream into events, and every finished generation is written
with its score through the batched store writer (engine/flushing.py: retried while
the file cannot be written, new work held while too much waits). Cancelling the run
(Ctrl-C, or the TUI's cancel) aborts in-flight requests and keeps everything finished.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections import Counter
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from lctui.core.events import (
    CellKey,
    ChunkReceived,
    EventSink,
    ExampleFailed,
    ExampleScored,
    ExampleStarted,
    GenerationFinished,
    ItemsSkipped,
    RunFinished,
    RunPaused,
    RunPlanned,
    StoreRecovered,
    StoreStalled,
)
from lctui.core.measures import run_timing
from lctui.core.protocols import Backend
from lctui.core.run_record import new_run_id
from lctui.core.statuses import CANCELLED, FAILED, FINISHED
from lctui.core.types import (
    CHAT_FORMAT,
    FORMAT_USED,
    PLAIN_FORMAT,
    RUN_TIMING,
    Chunk,
    Example,
    Generation,
    GenerationStatus,
    ModelSpec,
    Score,
)
from lctui.engine import flushing
from lctui.engine.flushing import BacklogLimits, RunFlusher
from lctui.engine.follow_up import read_answer
from lctui.engine.judging import Judging
from lctui.engine.offloop import SCORING_LIMIT_S, run_in_thread
from lctui.engine.plan import RunPlan, RunRequest, WorkItem, plan_run
from lctui.engine.servers import ServerWatch
from lctui.engine.todo import TodoStream, longest_first
from lctui.scoring import error_score, score_example, score_failed_output
from lctui.store.writer import Backlog


class ResultStore(Protocol):
    """The part of the store the engine needs (see lctui.store)."""

    def stored_keys(self, keys: Sequence[str]) -> set[str]: ...

    def add_model(
        self, spec: ModelSpec, model_id: str, tokenizer: str, max_context: int
    ) -> None: ...

    def start_run(self, run_id: str, command: dict[str, object]) -> None: ...

    def finish_run(
        self, run_id: str, status: str, notes: Mapping[str, object] | None = None
    ) -> None: ...

    def add_example(self, example: Example) -> None: ...

    def add_generation(self, generation: Generation, config: dict[str, object]) -> None: ...

    def add_score(self, generation_id: str, score: Score) -> None: ...

    def add_reused(self, run_id: str, gen_keys: Sequence[str]) -> None: ...

    def flush(self, force: bool = False) -> int: ...

    def backlog(self) -> Backlog: ...


BackendLoader = Callable[[ModelSpec, "str | None"], Backend]


@dataclass
class RunOutcome:
    run_id: str | None  # None when there was nothing to do
    planned: int
    skipped: int
    done: int
    errors: int
    cancelled: bool


@dataclass
class _Model:
    spec: ModelSpec
    backend: Backend
    todo: TodoStream
    load_s: float = 0.0  # how long its backend took to load


class Engine:
    # How long one output's scoring may take before it is scored 0 (engine/offloop.py).
    scoring_limit_s: float = SCORING_LIMIT_S

    def __init__(
        self,
        store: ResultStore,
        load_backend: BackendLoader,
        sink: EventSink,
        *,
        backlog_limits: BacklogLimits | None = None,
    ) -> None:
        self._store = store
        self._load_backend = load_backend
        self._sink = sink
        self._limits = backlog_limits or flushing.BACKLOG_LIMITS
        self._flusher = RunFlusher(store, sink, self._limits)
        self._examples: dict[str, asyncio.Future[Example]] = {}
        self._uses: Counter[str] = Counter()  # work items still to read each cached example
        self._paused = asyncio.Event()
        self._paused.set()
        self._judging: Judging | None = None

    @property
    def paused(self) -> bool:
        return not self._paused.is_set()

    def pause(self) -> None:
        """Stop starting new requests (in-flight ones finish); says so (RunPaused)."""
        if not self.paused:
            self._paused.clear()
            self._sink(RunPaused(True))

    def resume(self) -> None:
        if self.paused:
            self._paused.set()
            self._sink(RunPaused(False))

    async def run(self, run: RunRequest | RunPlan, *, run_id: str | None = None) -> RunOutcome:
        """Run a request to its end (or until cancelled), planned once (`plan_run`)
        unless its caller has planned it. `run_id`: the id to give the run, when its
        caller has already named it (a published run's record); a new one otherwise.
        A run with nothing to do takes none (RunOutcome.run_id None)."""
        plan = run if isinstance(run, RunPlan) else plan_run(run)
        request = plan.request
        self._judging = (
            Judging(request.judge, self._load_backend, self._store, batch=request.judge_batch)
            if request.judge is not None
            else None
        )
        models = await self._prepare(plan)
        planned = plan.cells
        # Plan until some model has an item to do; a run with none is not started.
        try:
            started_any = [await m.todo.has_work() for m in models]
        except BaseException:
            await self._close(models)
            raise
        if not any(started_any):
            await self._close(models)
            total = sum(m.todo.planned for m in models)
            return RunOutcome(None, total, sum(m.todo.skipped for m in models), 0, 0, False)
        skipped = Counter[CellKey]()
        for m in models:
            skipped.update(m.todo.take_skipped())
        cells = {k: n - skipped[k] for k, n in planned.items() if n > skipped[k]}
        run_id = run_id or new_run_id()
        # In a thread (a file another process holds makes a write wait up to 15 s, which
        # would freeze the TUI that hosts the engine), beside the first requests: opening
        # a shared file takes about as long as a small model's first answers. A result
        # is kept once the run's row is written (_generate); a start that fails ends
        # the run with its error, having written nothing of it.
        begun = asyncio.ensure_future(
            asyncio.to_thread(self._start, models, run_id, request.command)
        )
        for m in models:  # what the plan found stored before the run started
            self._store.add_reused(run_id, m.todo.take_skipped_keys())
        self._sink(RunPlanned(run_id, cells, dict(skipped)))
        self._uses = Counter()
        started = time.monotonic()
        counters = {"done": 0, "errors": 0}
        cancelled = False
        status = FAILED  # unless the run ends or is cancelled; the error propagates
        self._flusher = RunFlusher(self._store, self._sink, self._limits)  # this run's
        flusher = asyncio.create_task(self._flusher.run())
        watch = ServerWatch(self._sink, {m.spec.name: m.backend for m in models})
        servers = asyncio.create_task(watch.run())
        closed = ended = False
        try:
            work = [self._run_model(run_id, m, counters, begun) for m in models]
            await _all_or_none([_settled(begun), *work])
            if self._judging is not None:  # after the rule-based scores, never failing the run
                # The run's models are done: free them before a (local) judge loads, which
                # may even be one of them.
                await self._close(models)
                closed = True
                await self._judging.finish()
            await _stop(flusher)
            await _stop(servers)
            watch.poll()  # the final shares, told and kept on the run's record
            # The last results and the run's end in one write (a shared file is opened
            # once). Every result is written before the run is called finished: where
            # the file refuses, this waits (saying so) rather than losing them, and the
            # end is recorded after.
            ended = await self._flusher.finish_at_once(run_id, watch.notes())
            if not ended:
                await self._flusher.drain()
            status = FINISHED
        except asyncio.CancelledError:
            cancelled, status = True, CANCELLED
        finally:
            await _stop(flusher)
            await _stop(servers)
            watch.poll()
            # A start that failed wrote nothing of the run: there is no end to record.
            unstarted = await _failed(begun)
            if ended or unstarted:
                lost = None
            else:
                lost = await self._flusher.finish(run_id, status, watch.notes())
            if not closed:
                await self._close(models)
            self._sink(
                RunFinished(
                    run_id,
                    counters["done"],
                    counters["errors"],
                    cancelled,
                    time.monotonic() - started,
                )
            )
            if lost is not None:
                raise lost
        return RunOutcome(
            run_id,
            sum(m.todo.planned for m in models),
            sum(m.todo.skipped for m in models),
            counters["done"],
            counters["errors"],
            cancelled,
        )

    def _check_stalled(self, error: str | None, stalled_s: float) -> None:
        """A check of which examples are stored failed (`error`), or works again."""
        if error is None:
            self._sink(StoreRecovered(stalled_s, 0))
            return
        backlog = self._store.backlog()
        self._sink(
            StoreStalled(
                error=error,
                waiting=backlog.generations,
                rows=backlog.rows,
                oldest_s=backlog.oldest_s or 0.0,
                paused=False,  # held only until the check answers, not until a write works
            )
        )

    def _start(self, models: Sequence[_Model], run_id: str, command: dict[str, object]) -> None:
        """The run's row and its models' rows, written at once for readers: start_run
        writes what is buffered with the run's row (if the file refuses the models'
        rows, the flusher retries them and says so)."""
        for m in models:
            # The model's own tokenizer: what its examples count with is per example.
            self._store.add_model(
                m.spec, m.backend.fingerprint, m.backend.tokenizer.name, m.backend.max_context
            )
        loads = {m.spec.name: round(m.load_s, 3) for m in models}
        self._store.start_run(run_id, {**command, RUN_TIMING: run_timing(loads)})

    async def _prepare(self, plan: RunPlan) -> list[_Model]:
        """Load every backend and plan its part (its lengths checked against its
        window) before any generation starts."""
        request = plan.request
        models: list[_Model] = []
        loaded: list[Backend] = []  # closed again if a later model or length is refused
        try:
            for spec in request.models:
                loading = time.monotonic()
                backend = await asyncio.to_thread(
                    self._load_backend, spec, plan.reference_tokenizer
                )
                load_s = time.monotonic() - loading
                loaded.append(backend)
                part = plan.model(spec, backend)
                stored = None if request.retry_stored else self._store.stored_keys
                # Several requests at once: the longest first, so that none runs on alone
                # at the end; one at a time, the order changes nothing but what shows first.
                order = longest_first if backend.max_concurrency > 1 else None
                todo = TodoStream(part.items(), stored, self._check_stalled, order=order)
                models.append(_Model(spec, backend, todo, load_s))
        except BaseException:
            await _close_all(loaded)
            raise
        return models

    async def _close(self, models: Sequence[_Model]) -> None:
        await _close_all([m.backend for m in models])

    async def _run_model(
        self,
        run_id: str,
        model: _Model,
        counters: dict[str, int],
        begun: asyncio.Future[None],
    ) -> None:
        """Build examples in order, one ahead of the workers, while they generate."""
        workers = max(1, model.backend.max_concurrency)
        ready: asyncio.Queue[tuple[WorkItem, Example] | None] = asyncio.Queue(maxsize=1)

        def skipped() -> None:
            found = model.todo.take_skipped()
            if found:
                self._sink(ItemsSkipped(found))
                self._store.add_reused(run_id, model.todo.take_skipped_keys())

        async def produce() -> None:
            while (item := await model.todo.next()) is not None:
                skipped()
                self._uses[item.example_id] += 1
                await ready.put((item, await self._example(item, model)))
            skipped()
            for _ in range(workers):
                await ready.put(None)

        async def consume() -> None:
            while (entry := await ready.get()) is not None:
                await self._may_start()
                await self._generate(run_id, model, *entry, counters, begun)
                self._release(entry[0].example_id)

        await _all_or_none([produce(), *(consume() for _ in range(workers))])

    async def _may_start(self) -> None:
        """Wait while the user paused the run or too many results wait to be written."""
        while True:
            await self._paused.wait()
            await self._flusher.room()
            if self._paused.is_set():
                return

    def _release(self, example_id: str) -> None:
        """Forget a cached example once no work item needs it (128K contexts are big)."""
        self._uses[example_id] -= 1
        if self._uses[example_id] <= 0:
            self._examples.pop(example_id, None)
            del self._uses[example_id]

    async def _example(self, item: WorkItem, model: _Model) -> Example:
        """Build (or reuse) the example of a work item in a thread; a prebuilt (stored)
        example is used as it is, cut to the window only if the item says so."""
        future = self._examples.get(item.example_id)
        if future is None:

            def build() -> Example:
                if item.prebuilt is not None:
                    example = item.prebuilt
                else:
                    assert item.tokenizer is not None  # planned with one
                    example = item.task.generate(
                        item.build_length, item.seed, item.index, item.tokenizer
                    )
                if item.truncate_to is not None:
                    assert item.tokenizer is not None  # planned with one to truncate
                    example = item.task.truncate(example, item.truncate_to, item.tokenizer)
                return example

            future = asyncio.ensure_future(asyncio.to_thread(build))
            self._examples[item.example_id] = future
        return await asyncio.shield(future)

    async def _generate(
        self,
        run_id: str,
        model: _Model,
        item: WorkItem,
        example: Example,
        counters: dict[str, int],
        begun: asyncio.Future[None],
    ) -> None:
        generation_id = uuid.uuid4().hex
        self._sink(ExampleStarted(item.cell, example, generation_id))
        request = model.backend.build_request(example, item.config)
        started_wall, started = time.time(), time.monotonic()

        def shown(chunk: Chunk) -> None:
            self._sink(
                ChunkReceived(item.cell, generation_id, chunk.text, chunk.tokens, chunk.restart)
            )

        answered = await read_answer(model.backend, example, request, shown)
        read, error = answered.read, answered.read.error
        generation = Generation(
            generation_id=generation_id,
            gen_key=item.gen_key,
            run_id=run_id,
            model_id=model.backend.fingerprint,
            example_id=example.example_id,
            config_hash=item.config_hash,
            status=GenerationStatus.ERROR if error else GenerationStatus.OK,
            output=read.output,
            prompt_tokens=read.prompt_tokens or example.prompt_tokens,
            output_tokens=read.output_tokens,
            ttft_s=read.ttft_s,
            latency_s=time.monotonic() - started,
            finish_reason=read.finish_reason,
            error=error,
            started_at=started_wall,
            prompt_head=request.prompt_head,
            prompt_tail=request.prompt_tail,
            calls=answered.calls,
        )
        self._sink(GenerationFinished(item.cell, generation))
        metric = str(example.metadata.get("metric", ""))
        if error:
            score = error_score(error, metric=metric)
        else:
            try:
                score = await self._score(example, generation.output)
            except Exception as exc:
                # score_example scores an output its scorer fails on as 0 (unparsed); it
                # raises only when the scorer fails on an empty output too: the example
                # cannot be scored at all (a task or scorer bug, or a judge-only
                # example), which is no zero of the model's.
                score = error_score(f"scoring failed: {type(exc).__name__}: {exc}")
        # In a thread: a full buffer is written on the caller's thread (store/writer.py),
        # and a write can wait for a busy file.
        # The format the prompt was framed in, resolved by the backend ("auto" is not
        # one): a chat request carries its messages.
        used = CHAT_FORMAT if request.messages else PLAIN_FORMAT
        await asyncio.shield(begun)  # the run's row first (Engine.run)
        await asyncio.to_thread(self._keep, example, generation, item, score, used)
        if self._judging is not None and not error:
            self._judging.collect(example, generation_id, generation.output)
        if error:
            counters["errors"] += 1
            self._sink(ExampleFailed(item.cell, generation, error))
        else:
            counters["done"] += 1
            self._sink(ExampleScored(item.cell, generation, score))

    def _keep(
        self, example: Example, generation: Generation, item: WorkItem, score: Score, used: str
    ) -> None:
        """Buffer a finished generation with its example and score; its stored config
        names the prompt format the request was framed in (FORMAT_USED)."""
        self._store.add_example(example)
        self._store.add_generation(generation, {**item.config.as_dict(), FORMAT_USED: used})
        self._store.add_score(generation.generation_id, score)

    async def _score(self, example: Example, output: str) -> Score:
        """Score in a thread, so streaming and flushing go on, within scoring_limit_s.

        Past the limit the output is scored 0 (unparsed) with the reason; the thread
        cannot be stopped and finishes unobserved (see engine/offloop.py).
        """
        limit = self.scoring_limit_s
        try:
            return await run_in_thread(lambda: score_example(example, output), limit)
        except asyncio.TimeoutError:
            reason = f"scoring took longer than {limit:g} s"
        try:  # the points of an empty output, each at 0, as for any failed output
            return await run_in_thread(lambda: score_failed_output(example, reason), limit)
        except asyncio.TimeoutError:
            return score_failed_output(example, reason, with_points=False)


async def _stop(task: asyncio.Task[None]) -> None:
    """Cancel a task and wait until it has ended."""
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


async def _settled(begun: asyncio.Future[None]) -> None:
    """The run's start, awaited without being cancelled with its awaiter (its thread
    runs to its end whatever happens)."""
    await asyncio.shield(begun)


async def _failed(begun: asyncio.Future[None]) -> bool:
    """Whether the run's start failed, once its thread has ended."""
    try:
        await asyncio.shield(begun)
    except Exception:
        return True
    return False


async def _close_all(backends: Sequence[Backend]) -> None:
    for backend in backends:
        with contextlib.suppress(Exception):
            await backend.close()


async def _all_or_none(coroutines: Sequence[Coroutine[Any, Any, None]]) -> None:
    """Run coroutines together; the first failure cancels the others and propagates.

    The others have ended by the time this returns or raises, also when it is itself
    cancelled, so nothing writes to the store after the run is marked finished.
    """
    tasks = [asyncio.ensure_future(c) for c in coroutines]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    finally:
        for task in tasks:
            task.cancel()
        outcomes = await asyncio.gather(*tasks, return_exceptions=True)
    for outcome in outcomes:
        if isinstance(outcome, Exception):  # CancelledError is not an Exception
            raise outcome
