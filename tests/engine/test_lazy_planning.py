"""Work items are planned as the run goes (issue 17, item 7): a run starts after its
first chunk of items, skips stored ones chunk by chunk and says so, and resumes exactly.
Real gold runs on a real file; the chunk sizes are made small so that ten items span
several chunks, as millions would at the real sizes."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from lctui.backends import load_backend
from lctui.core.events import (
    CellKey,
    Event,
    ItemsSkipped,
    RunPlanned,
    StoreRecovered,
    StoreStalled,
)
from lctui.core.types import ModelSpec
from lctui.engine import Engine, RunRequest
from lctui.engine import plan as plan_module
from lctui.engine import todo as todo_module
from lctui.engine.plan import plan_run
from lctui.engine.runner import RunOutcome
from lctui.store import db as db_module
from lctui.store import open_store
from lctui.tasks import select_tasks

GOLD = ModelSpec(name="gold", backend="gold", reference=True)
CELL = CellKey("gold", "vt", 1024)


@pytest.fixture(autouse=True)
def _small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(todo_module, "CHECK_CHUNK", 3)
    monkeypatch.setattr(plan_module, "PLAN_WINDOW", 4)


def _request(n: int = 10, indices: list[int] | None = None) -> RunRequest:
    return RunRequest(models=[GOLD], tasks=select_tasks("vt"), lengths=[1024], n=n, indices=indices)


def _run(db: Path, request: RunRequest, events: list[Event]) -> RunOutcome:
    with open_store(db) as store:
        engine = Engine(store, lambda spec, tok: load_backend(spec, tok), events.append)
        return asyncio.run(engine.run(request))


def _generations(db: Path) -> list[tuple[int, int]]:
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT e.idx, count(*) FROM generations AS g JOIN examples AS e USING (example_id) "
            "GROUP BY ALL ORDER BY 1"
        ).fetchall()
    return [(int(i), int(n)) for i, n in rows]


def test_stored_items_are_skipped_chunk_by_chunk_and_said(tmp_path: Path) -> None:
    db = tmp_path / "lazy.duckdb"
    first = _run(db, _request(indices=[0, 5, 6, 9]), [])
    assert (first.planned, first.skipped, first.done) == (4, 0, 4)

    events: list[Event] = []
    outcome = _run(db, _request(n=10), events)

    assert (outcome.planned, outcome.skipped, outcome.done, outcome.errors) == (10, 4, 6, 0)
    planned = next(e for e in events if isinstance(e, RunPlanned))
    # The run started after the first chunk (indices 0-2): one stored item known then.
    assert planned.skipped == {CELL: 1} and planned.cells == {CELL: 9}
    later = [e.skipped for e in events if isinstance(e, ItemsSkipped)]
    assert later and sum(s[CELL] for s in later) == 3, "5, 6 and 9 are found as the run goes"
    first_skip = next(i for i, e in enumerate(events) if isinstance(e, ItemsSkipped))
    assert events.index(planned) < first_skip
    # Every index once: nothing stored twice, nothing left out.
    assert _generations(db) == [(i, 1) for i in range(10)]

    again: list[Event] = []
    rerun = _run(db, _request(n=10), again)
    assert rerun.run_id is None and (rerun.planned, rerun.skipped, rerun.done) == (10, 10, 0)
    assert not any(isinstance(e, RunPlanned) for e in again), "a run with nothing to do"


_HOLD = """
import sys, time, duckdb
con = duckdb.connect(sys.argv[1])
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


def test_a_file_held_by_a_reader_while_items_are_checked_stalls_the_run_not_ends_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process (a long `lctui query`, `lctui export`) holds the file past the
    wait of a shared store while the run checks which items are stored: the check is
    retried and said, as a write would be; it used to end the run (found in review)."""
    monkeypatch.setattr(db_module, "SHARED_WAIT_S", 0.3)
    path = tmp_path / "held.duckdb"
    events: list[Event] = []
    with open_store(path, shared=True) as store:
        holder = subprocess.Popen(
            [sys.executable, "-c", _HOLD, str(path), "2.5"], stdout=subprocess.PIPE, text=True
        )
        try:
            assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
            engine = Engine(store, lambda spec, tok: load_backend(spec, tok), events.append)
            outcome = asyncio.run(engine.run(_request(n=5)))
        finally:
            holder.kill()
            holder.wait()
    assert (outcome.planned, outcome.done, outcome.errors) == (5, 5, 0)
    stalls = [e for e in events if isinstance(e, StoreStalled)]
    assert stalls and all(
        "cannot check which examples are stored" in (e.error or "") for e in stalls
    )
    assert any(isinstance(e, StoreRecovered) for e in events)
    assert _generations(path) == [(i, 1) for i in range(5)]


def test_planned_cells_count_without_planning(tmp_path: Path) -> None:
    request = RunRequest(
        models=[GOLD], tasks=select_tasks("vt,niah_single_1"), lengths=[1024, 2048], n=7
    )
    backend = load_backend(GOLD)
    items = list(plan_run(request).model(GOLD, backend).items())
    counted: dict[CellKey, int] = {}
    for item in items:
        counted[item.cell] = counted.get(item.cell, 0) + 1
    assert plan_run(request).cells == counted and len(items) == 28


def test_items_of_a_huge_n_come_without_planning_the_rest() -> None:
    """The first items of n = 2**31 - 1 come at once: the plan is a generator."""
    request = RunRequest(models=[GOLD], tasks=select_tasks("vt"), lengths=[1024], n=2**31 - 1)
    items = plan_run(request).model(GOLD, load_backend(GOLD)).items()
    first = [next(items) for _ in range(5)]
    assert [item.index for item in first] == [0, 1, 2, 3, 4]
    assert plan_run(request).cells == {CELL: 2**31 - 1}
