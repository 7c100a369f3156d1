"""Judge finished generations with an LLM judge: cached calls, stored verdicts, no crashes.

A `Judging` collects the generations of a run whose example asks for a judge
(metadata "judge": "qa" | "summ") and judges them once the run's generations are
done (or, for `lctui judge`, stored generations afterwards). Every call goes through
the judge_calls cache first; every verdict becomes an extra score row (scorer
"judge") with rubric points. A judge that fails leaves an error score, never a
crashed run. With `batch`, an OpenAI-compatible judge gets one Batch API job
(`backends/openai_batch.py`).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import duckdb

from lctui.backends.openai_batch import batch_client_settings, submit_batch
from lctui.core.errors import LctuiError, StoreError, UserInputError
from lctui.core.hashing import stable_hash
from lctui.core.protocols import Backend
from lctui.core.types import Example, ModelSpec, Score
from lctui.engine.offloop import SCORING_LIMIT_S, run_in_thread
from lctui.scoring.base import error_score
from lctui.scoring.failure import describe_failure
from lctui.scoring.judge import (
    JUDGE_SCORER,
    METRICS,
    JudgePrompt,
    JudgeReply,
    JudgeTask,
    judge_prompts,
    judge_score,
    judge_task,
    parse_reply,
)
from lctui.scoring.judge_call import ask_judge
from lctui.scoring.versions import with_version
from lctui.store.judge_calls import (
    JudgeCall,
    add_judge_calls,
    generations_asking,
    lookup_judge_calls,
)
from lctui.store.read.generations import load_example
from lctui.store.storable import repair_text

BackendLoader = Callable[[ModelSpec, "str | None"], Backend]
WRITE_EVERY = 16  # judge calls buffered before they are written
# At the end of judging, tries to write the calls still buffered (a file busy for a
# while, a full disk) before giving them up; each waits longer (1, 2, 4, 8, 8 s).
FINAL_WRITE_TRIES = 5
BATCH_POLL_S = 10.0


@runtime_checkable
class JudgeStore(Protocol):
    """What judging needs from the store: scores and models go through the writer."""

    def add_model(
        self, spec: ModelSpec, model_id: str, tokenizer: str, max_context: int
    ) -> None: ...

    def add_score(self, generation_id: str, score: Score) -> None: ...

    def cursor(self) -> duckdb.DuckDBPyConnection: ...


@dataclass
class JudgeSummary:
    """What one judging pass did (cached calls cost nothing and are counted apart)."""

    judged: int = 0
    calls: int = 0
    cached: int = 0
    unparsed: int = 0
    errors: int = 0
    prompt_tokens: int = 0
    output_tokens: int = 0
    messages: list[str] = field(default_factory=list)


class Judging:
    """Judges (generation_id, JudgeTask) items with one judge model."""

    # How long reading one reply may take before it counts as unreadable (offloop.py).
    parse_limit_s: float = SCORING_LIMIT_S

    def __init__(
        self,
        spec: ModelSpec,
        load_backend: BackendLoader,
        store: object,
        *,
        batch: bool = False,
        poll_s: float = BATCH_POLL_S,
    ) -> None:
        if not isinstance(store, JudgeStore):
            raise UserInputError("a judge needs a results store that can be read and written")
        if batch and spec.backend != "openai":
            raise UserInputError(
                "--judge-batch uses the OpenAI Batch API, so the judge must be an openai model; "
                f"{spec.name} has backend {spec.backend!r}: drop --judge-batch or pick "
                "another judge"
            )
        self.spec = spec
        self._load_backend = load_backend
        self.store: JudgeStore = store
        self._batch = batch
        self._poll_s = poll_s
        self._items: list[tuple[str, JudgeTask]] = []
        self._pending: list[JudgeCall] = []
        self._writing = False
        self._write_error: str | None = None
        self.summary = JudgeSummary()

    def collect(self, example: Example, generation_id: str, output: str) -> None:
        """Remember a finished generation if its example asks for a judge."""
        # As it is stored (store/storable.py): a lone surrogate would fail the prompt's
        # hash and every write of the calls.
        output = repair_text(output)[0]
        try:
            task = judge_task(example, output)
        except ValueError as exc:
            self._fail(generation_id, str(example.metadata.get("judge")), str(exc))
            return
        if task is not None:
            self._items.append((generation_id, task))

    async def finish(self) -> JudgeSummary:
        """Judge everything collected; the judge is loaded only if there is work."""
        items, self._items = self._items, []
        return await self.judge(items)

    async def judge(self, items: Sequence[tuple[str, JudgeTask]]) -> JudgeSummary:
        if not items:
            return self.summary
        backend: Backend | None = None
        try:
            if self._batch:
                fingerprint = stable_hash("openai-batch", batch_client_settings(self.spec))
                self.store.add_model(self.spec, fingerprint, "", 0)
            else:
                backend = await asyncio.to_thread(self._load_backend, self.spec, None)
                fingerprint = backend.fingerprint
                self.store.add_model(
                    self.spec, fingerprint, backend.tokenizer.name, backend.max_context
                )
        except Exception as exc:  # a judge that cannot load fails its items, not the run
            for generation_id, task in items:
                self._fail(generation_id, task.kind, f"judge {self.spec.name} unavailable: {exc}")
            return self.summary
        try:
            prompts = {gid: judge_prompts(task) for gid, task in items}
            hashes = {p.key for ps in prompts.values() for p in ps}
            cached = await asyncio.to_thread(self._lookup, fingerprint, hashes)
            if self._batch:
                await self._run_batch(fingerprint, items, prompts, cached)
            else:
                assert backend is not None
                await self._run_calls(backend, fingerprint, items, prompts, cached)
        finally:
            await self._write_remaining()
            if backend is not None:
                await backend.close()
        return self.summary

    # -- one judge call at a time, bounded by the judge's concurrency --------------------

    async def _run_calls(
        self,
        backend: Backend,
        fingerprint: str,
        items: Sequence[tuple[str, JudgeTask]],
        prompts: Mapping[str, Sequence[JudgePrompt]],
        cached: dict[str, JudgeCall],
    ) -> None:
        slots = asyncio.Semaphore(max(1, backend.max_concurrency))
        inflight: dict[str, asyncio.Future[JudgeCall]] = {}  # one call per prompt hash

        async def call(generation_id: str, prompt: JudgePrompt) -> JudgeCall:
            key = prompt.key
            if key in cached:
                self.summary.cached += 1
                return cached[key]
            if key not in inflight:

                async def make() -> JudgeCall:
                    async with slots:
                        reply = await ask_judge(backend, prompt)
                    return await self._record(
                        fingerprint, generation_id, prompt, reply, batch=False
                    )

                inflight[key] = asyncio.ensure_future(make())
            else:
                self.summary.cached += 1
            return await asyncio.shield(inflight[key])

        async def one(generation_id: str, task: JudgeTask) -> None:
            try:
                calls = [await call(generation_id, p) for p in prompts[generation_id]]
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self._fail(generation_id, task.kind, f"judge call failed: {_describe(exc)}")
                return
            self._score(generation_id, task, prompts[generation_id], calls)

        await asyncio.gather(*(one(gid, task) for gid, task in items))

    async def _read(self, prompt: JudgePrompt, text: str) -> tuple[dict[str, Any] | None, str]:
        """(the reply's verdict, why it could not be read at all): read in a thread, so
        streaming other calls goes on, within parse_limit_s."""
        limit = self.parse_limit_s
        try:
            return await run_in_thread(lambda: parse_reply(prompt, text), limit), ""
        except asyncio.TimeoutError:
            return None, f"reading it took longer than {limit:g} s"
        except Exception as exc:
            return None, f"reading it failed: {describe_failure(exc)}"

    async def _record(
        self,
        fingerprint: str,
        generation_id: str,
        prompt: JudgePrompt,
        reply: JudgeReply,
        batch: bool,
    ) -> JudgeCall:
        verdict, failure = await self._read(prompt, reply.text)
        record = JudgeCall(
            call_id=uuid.uuid4().hex,
            generation_id=generation_id,
            judge_model=fingerprint,
            prompt_hash=prompt.key,
            prompt=prompt.text,
            response=reply.text,
            parsed={
                "role": prompt.role,
                "verdict": verdict,
                **({"read_failure": failure} if failure else {}),
                "prompt_tokens": reply.prompt_tokens,
                "output_tokens": reply.output_tokens,
                "latency_s": round(reply.latency_s, 4),
                "batch": batch,
            },
            created_at=time.time(),
        )
        self.summary.calls += 1
        self.summary.prompt_tokens += reply.prompt_tokens
        self.summary.output_tokens += reply.output_tokens
        self._pending.append(record)
        if len(self._pending) >= WRITE_EVERY and not self._writing:
            # Off the event loop (a busy file waits up to 15 s); calls made meanwhile
            # join the next write.
            self._writing = True
            try:
                await asyncio.to_thread(self._write_pending)
            finally:
                self._writing = False
        return record

    def _score(
        self,
        generation_id: str,
        task: JudgeTask,
        prompts: Sequence[JudgePrompt],
        calls: Sequence[JudgeCall],
    ) -> None:
        parsed = {p.role: c.verdict for p, c in zip(prompts, calls, strict=True)}
        replies = {p.role: c.response for p, c in zip(prompts, calls, strict=True)}
        failures = {
            p.role: str(c.parsed.get("read_failure") or "")
            for p, c in zip(prompts, calls, strict=True)
        }
        extras = {"judge": self.spec.name, "judge_calls": [c.call_id for c in calls]}
        score = with_version(judge_score(task, parsed, replies, extras, failures))
        self.summary.judged += 1
        self.summary.unparsed += score.status.value == "unparsed"
        self.store.add_score(generation_id, score)

    def _fail(self, generation_id: str, kind: str, message: str) -> None:
        self.summary.errors += 1
        if message not in self.summary.messages:
            self.summary.messages.append(message)
        metric = METRICS.get(kind, "judge")
        self.store.add_score(
            generation_id, error_score(message, scorer=JUDGE_SCORER, metric=metric)
        )

    def _lookup(self, fingerprint: str, hashes: set[str]) -> dict[str, JudgeCall]:
        return lookup_judge_calls(self.store, fingerprint, hashes)

    def _write_pending(self) -> bool:
        """Write the buffered calls; on failure keep them for the next try (they were
        paid for) and return False."""
        pending = list(self._pending)
        if not pending:
            return True
        try:
            add_judge_calls(self.store, pending)
        except StoreError as err:
            self._write_error = str(err)
            return False
        del self._pending[: len(pending)]
        return True

    async def _write_remaining(self) -> None:
        """The last write of a pass: retried with backoff, and never raised (the judge's
        verdicts are scores, stored by the store's writer; only the record of the calls
        is lost, and a later `lctui judge` would ask the judge again)."""
        delay = 1.0
        for attempt in range(FINAL_WRITE_TRIES):
            if await asyncio.to_thread(self._write_pending):
                return
            if attempt + 1 < FINAL_WRITE_TRIES:
                await asyncio.sleep(delay)
                delay = min(delay * 2, 8.0)
        message = (
            f"{len(self._pending)} judge call(s) could not be stored ({self._write_error}); "
            "their verdicts are stored, but a later `lctui judge` will ask the judge again"
        )
        self._pending.clear()
        self.summary.errors += 1
        self.summary.messages.append(message)

    # -- the OpenAI Batch API --------------------------------------------------------

    async def _run_batch(
        self,
        fingerprint: str,
        items: Sequence[tuple[str, JudgeTask]],
        prompts: Mapping[str, Sequence[JudgePrompt]],
        cached: dict[str, JudgeCall],
    ) -> None:
        todo: dict[str, tuple[str, JudgePrompt]] = {}  # prompt hash -> first asker, prompt
        for generation_id, _ in items:
            for prompt in prompts[generation_id]:
                key = prompt.key
                if key in cached or key in todo:
                    self.summary.cached += 1
                else:
                    todo[key] = (generation_id, prompt)
        failed: dict[str, str] = {}
        if todo:
            try:
                results = await submit_batch(self.spec, todo, self._poll_s)
            except Exception as exc:  # the batch failing fails its items, not the run
                results = {k: (None, _describe(exc)) for k in todo}
            for key, (generation_id, prompt) in todo.items():
                reply, error = results.get(key, (None, "missing from the batch output"))
                if reply is None:
                    failed[key] = error or "no reply"
                    continue
                cached[key] = await self._record(
                    fingerprint, generation_id, prompt, reply, batch=True
                )
        for generation_id, task in items:
            keys = [p.key for p in prompts[generation_id]]
            errors = [failed[k] for k in keys if k in failed]
            if errors:
                self._fail(generation_id, task.kind, errors[0])
            else:
                self._score(generation_id, task, prompts[generation_id], [cached[k] for k in keys])


async def judge_stored(judging: Judging, run_id: str | None = None) -> tuple[int, JudgeSummary]:
    """Judge the latest stored generations (of one run) that ask for a judge.

    Returns how many generations were found and what judging them did.
    """
    store = judging.store
    found = await asyncio.to_thread(generations_asking, store, "judge", run_id)
    examples: dict[str, Example | None] = {}
    for generation_id, example_id, output in found:
        if example_id not in examples:
            examples[example_id] = await asyncio.to_thread(load_example, store, example_id)
        example = examples[example_id]
        if example is not None:
            judging.collect(example, generation_id, output)
    return len(found), await judging.finish()


def _describe(exc: BaseException) -> str:
    return str(exc) if isinstance(exc, LctuiError) else f"{type(exc).__name__}: {exc}"
