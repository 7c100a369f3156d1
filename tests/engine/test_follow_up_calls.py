"""Two-call examples (LongBench v2's chain of thought): the engine makes the reasoning call,
then the answer call over the reasoning without the context; both are stored on the
generation, the second is scored, and a failed first call makes no second one."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from helpers.longbench_data import longbench_rows, write_longbench
from lctui.backends.gold import GoldBackend
from lctui.core.events import ChunkReceived, Event
from lctui.core.types import Chunk, FollowUp, ModelSpec, Request
from lctui.engine import Engine, RunRequest
from lctui.store import Store, open_store
from lctui.store.read.generations import GenerationRecord, get_generation
from lctui.store.read.runs import list_runs, run_generation_ids
from lctui.tasks import get_task
from lctui.tasks.datasets import DataSource

GOLD = ModelSpec(name="gold", backend="gold", reference=True)


class ReasoningGoldFake(GoldBackend):
    """The gold answer, after a line of "reasoning" on the first call of each example;
    `fail_first` makes every first call fail as a dropped connection would (a real
    server cannot be made to do either on demand)."""

    def __init__(self, fail_first: bool = False) -> None:
        super().__init__()
        self.fail_first = fail_first
        self.prompts: list[str] = []

    async def stream(self, request: Request) -> AsyncIterator[Chunk]:
        self.prompts.append(request.prompt)
        first = request.config.max_new_tokens == 1024
        if first and self.fail_first:
            raise ConnectionError("connection dropped by the fake")
        if first:
            yield Chunk("Option B fits the text best. ", tokens=7)
        async for chunk in super().stream(request):
            yield chunk


@pytest.fixture()
def cot_request(tmp_path: Path) -> RunRequest:
    write_longbench(tmp_path, longbench_rows(2, words=(300,)))
    task = get_task("longbench_v2_cot").with_data(DataSource(folder=tmp_path))
    return RunRequest(models=[GOLD], tasks=[task], lengths=[4096], n=2)


def _run(db: Path, backend: GoldBackend, request: RunRequest, events: list[Event]) -> None:
    with open_store(db) as store:
        engine = Engine(store, lambda spec, tok: backend, events.append)
        asyncio.run(engine.run(request))


def _records(store: Store) -> list[GenerationRecord]:
    ids = run_generation_ids(store, [r.run_id for r in list_runs(store)])
    found = [get_generation(store, g) for g in sorted(ids)]
    return [r for r in found if r is not None]


def test_the_answer_call_reads_the_reasoning_and_both_calls_are_stored(
    tmp_path: Path, cot_request: RunRequest
) -> None:
    backend, events = ReasoningGoldFake(), list[Event]()
    db = tmp_path / "runs.duckdb"
    _run(db, backend, cot_request, events)
    assert len(backend.prompts) == 4  # two calls per example
    with open_store(db, read_only=True) as store:
        records = _records(store)
    assert len(records) == 2
    for record in records:
        reasoning, answer = record.calls
        assert (reasoning.role, answer.role) == ("reasoning", "answer")
        assert reasoning.prompt == "" and reasoning.output.startswith("Option B fits")
        follow_up = FollowUp.of(record.metadata)
        assert follow_up is not None
        assert follow_up.before + reasoning.output.strip() + follow_up.after in answer.prompt
        assert record.context is not None and record.context[:300] not in answer.prompt
        assert answer.prompt in backend.prompts
        assert record.output == answer.output == record.metadata["reference"]
        assert record.score == 1.0
        assert record.output_tokens == reasoning.output_tokens + answer.output_tokens
        assert record.prompt_tokens == reasoning.prompt_tokens + answer.prompt_tokens
    # Each generation's chunks in order: the two examples stream at once, interleaved.
    streamed: dict[str, str] = {}
    for e in events:
        if isinstance(e, ChunkReceived):
            streamed[e.generation_id] = streamed.get(e.generation_id, "") + e.text
    assert len(streamed) == 2
    for text in streamed.values():
        assert text.count("Option B fits") == 1 and "\n\nThe correct answer is" in text


def test_a_failed_reasoning_call_is_the_generations_error_with_no_answer_call(
    tmp_path: Path, cot_request: RunRequest
) -> None:
    backend = ReasoningGoldFake(fail_first=True)
    db = tmp_path / "runs.duckdb"
    _run(db, backend, cot_request, [])
    assert len(backend.prompts) == 2  # the first calls only
    with open_store(db, read_only=True) as store:
        records = _records(store)
    assert [(r.status, r.calls, r.result_status) for r in records] == [
        ("error", (), "error"),
        ("error", (), "error"),
    ]
