"""Requests that run together start longest first (engine/todo.py longest_first): the
longest expected work (answer budget, then prompt) goes out first so that no long
request runs on alone at the end of a run; items sharing a context stay together; every
model of a run gets the same order; one request at a time keeps the plan's order.

The openai backend is real, against the tests' loopback server (helpers/
fake_openai_server.py); the examples are stored ones run as they are, as `--inputs` runs
them.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from helpers.example_factory import make_test_example
from helpers.fake_openai_server import FakeOpenAIServer
from lctui.backends import load_backend
from lctui.core.events import Event, ExampleStarted
from lctui.core.types import Example, ModelSpec
from lctui.engine import Engine, RunRequest
from lctui.engine.plan import plan_run
from lctui.engine.todo import expected_work, longest_first
from lctui.store import open_store
from lctui.tasks import get_task, select_tasks

TASK = "niah_single_1"


def _examples() -> list[Example]:
    """In plan order: a short one, a long chain of thought, a long prompt with a middle
    budget, the longest prompt with a short budget."""
    shapes = {
        "short": (100, 32),
        "reasoning": (50, 1024),
        "middle": (4000, 128),
        "long": (6000, 32),
    }
    return [
        make_test_example(
            example_id=name, task=TASK, index=i, prompt_tokens=prompt, max_new_tokens=budget
        )
        for i, (name, (prompt, budget)) in enumerate(shapes.items())
    ]


def _started(tmp_path: Path, models: list[ModelSpec]) -> dict[str, list[str]]:
    """The example ids each model's requests started with, in order."""
    request = RunRequest(
        models=models, tasks=[get_task(TASK)], lengths=[1024], examples=_examples()
    )
    events: list[Event] = []
    with open_store(tmp_path / "order.duckdb") as store:
        engine = Engine(store, lambda spec, tok: load_backend(spec, tok), events.append)
        outcome = asyncio.run(engine.run(request))
    assert outcome.done + outcome.errors == 4 * len(models)
    order: dict[str, list[str]] = {m.name: [] for m in models}
    for event in events:
        if isinstance(event, ExampleStarted):
            order[event.cell.model].append(event.example.example_id)
    return order


def _spec(name: str, server: FakeOpenAIServer, concurrency: int) -> ModelSpec:
    params = {"base_url": server.base_url, "model": "m", "max_concurrency": concurrency}
    return ModelSpec(name, "openai", params=params)


def test_requests_that_run_together_start_longest_first_in_every_model(tmp_path: Path) -> None:
    with FakeOpenAIServer("m", ["an", " answer"]) as server:
        started = _started(tmp_path, [_spec("a", server, 4), _spec("b", server, 4)])
        assert server.requests == 8
    # Work: reasoning 50 + 1024 x 32; middle 4000 + 128 x 32; long 6000 + 32 x 32; short.
    assert started == {
        "a": ["reasoning", "middle", "long", "short"],
        "b": ["reasoning", "middle", "long", "short"],
    }


def test_one_request_at_a_time_keeps_the_plan_order(tmp_path: Path) -> None:
    with FakeOpenAIServer("m", ["an", " answer"]) as server:
        started = _started(tmp_path, [_spec("one", server, 1)])
    assert started == {"one": ["short", "reasoning", "middle", "long"]}


def test_items_sharing_a_context_stay_together_placed_by_their_longest() -> None:
    gold = ModelSpec(name="gold", backend="gold", reference=True)
    tasks = select_tasks("lifbench_single_query_id,lifbench_find_dup_text,vt")
    request = RunRequest(models=[gold], tasks=tasks, lengths=[1024, 4096], n=2)
    backend = load_backend(gold)
    try:
        items = list(plan_run(request).model(gold, backend).items())
    finally:
        asyncio.run(backend.close())
    ordered = longest_first(items)

    assert sorted(i.gen_key for i in ordered) == sorted(i.gen_key for i in items)
    keys = [i.context_key for i in ordered if i.context_key is not None]
    runs = [k for n, k in enumerate(keys) if n == 0 or keys[n - 1] != k]
    assert len(runs) == len(set(keys)), "each shared context's items come back to back"
    # Each group (an item alone, or a shared context) is placed by its longest item.
    groups: list[list[int]] = []
    for n, item in enumerate(ordered):
        same = n > 0 and item.context_key is not None
        if same and item.context_key == ordered[n - 1].context_key:
            groups[-1].append(expected_work(item))
        else:
            groups.append([expected_work(item)])
    heads = [max(g) for g in groups]
    assert heads == sorted(heads, reverse=True)
    assert ordered[0].length == 4096 and ordered[-1].length == 1024
