"""Work items that share a context are planned back to back, across tasks."""

from __future__ import annotations

from lctui.backends import load_backend
from lctui.core.types import ModelSpec
from lctui.engine import RunRequest
from lctui.engine.plan import plan_run
from lctui.tasks import select_tasks

GOLD = ModelSpec(name="gold", backend="gold", reference=True)


def test_lifbench_instructions_over_one_context_come_back_to_back() -> None:
    tasks = select_tasks(
        "niah_single_1,lifbench_single_query_id,lifbench_qa,lifbench_offset_query_id"
    )
    request = RunRequest(models=[GOLD], tasks=tasks, lengths=[3072, 6144], n=2)
    backend = load_backend(GOLD)
    items = list(plan_run(request).model(GOLD, backend).items())
    assert len(items) == 4 * 2 * 2
    keys = [item.context_key for item in items]
    # Each shared key forms one contiguous run of items.
    runs = [k for i, k in enumerate(keys) if k is not None and (i == 0 or keys[i - 1] != k)]
    assert len(runs) == len(set(runs)) == 4  # list and onedoc contexts, at 3K and 6K
    list_3k = [i for i in items if i.context_key and "list" in i.context_key and i.length == 3072]
    assert {i.task.name for i in list_3k} == {
        "lifbench_single_query_id",
        "lifbench_offset_query_id",
    }
    # Items without a shared context keep their order: niah first, lengths ascending.
    own = [(i.task.name, i.length, i.index) for i in items if i.context_key is None]
    assert own == [("niah_single_1", n, k) for n in (3072, 6144) for k in (0, 1)]
    assert items[0].task.name == "niah_single_1"
