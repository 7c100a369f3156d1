"""The run manager without the app: several runs of the real engine at once over one real
DuckDB file, each with its own state, status, row and controls; how runs end (finished,
cancelled, failed, nothing to do) and the ETA the Runs screen shows."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from helpers.slow_run import GOLD, SlowGold, gold_request, loader_of
from helpers.store_factories import make_example, make_generation, make_score
from lctui.backends import load_backend
from lctui.core import run_record
from lctui.core.events import CellKey, ExampleScored, RunPlanned
from lctui.core.types import ModelSpec
from lctui.engine import RunRequest
from lctui.store import Store, open_store
from lctui.tasks import select_tasks
from lctui.tui.state.run_manager import (
    CANCELLED,
    FAILED,
    FINISHED,
    LOADING,
    NOTHING_TO_DO,
    PAUSED,
    RUNNING,
    ManagedRun,
    RunManager,
)
from lctui.tui.state.run_progress import RunState
from lctui.tui.state.run_rows import run_details, run_row


@pytest.fixture
def store(tmp_path: Path) -> Any:
    with open_store(tmp_path / "runs.duckdb", shared=True) as opened:
        yield opened


async def _until(check: Any, timeout: float = 30.0) -> None:
    for _ in range(int(timeout / 0.02)):
        if check():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("timed out")


def _statuses(store: Store) -> dict[str, str]:
    con = store.cursor()
    try:
        return dict(con.execute("SELECT run_id, status FROM runs").fetchall())
    finally:
        con.close()


async def test_two_runs_go_at_once_and_cancelling_one_leaves_the_other(store: Store) -> None:
    ended: list[int] = []
    manager = RunManager(on_end=lambda run: ended.append(run.number))
    first = manager.start_local(gold_request(n=3), store, loader_of(SlowGold(0.05)))
    # Large: it is cancelled long before it could finish.
    second = manager.start_local(gold_request(n=50, seed=1), store, loader_of(SlowGold(0.05)))
    assert (first.number, second.number) == (1, 2)

    def both_started() -> bool:
        manager.drain()
        return bool(first.state.started and second.state.started)

    await _until(both_started)
    assert manager.going() == [first, second]
    assert first.status == second.status == RUNNING
    assert second.cancel() and second.status == "cancelling"
    await second.wait()
    assert first.running, "cancelling one run must leave the other going"
    assert second.status == CANCELLED and not second.cancel()
    await first.wait()
    assert first.status == FINISHED and first.state.done == 6
    assert ended == [2, 1]
    assert manager.going() == [] and await manager.wait_all(1.0)
    statuses = _statuses(store)
    assert statuses[first.state.run_id or ""] == "finished"
    assert statuses[second.state.run_id or ""] == "cancelled"
    row = run_row(first, 0.0)
    assert (row.number, row.run_id, row.status, row.done, row.eta, row.errors) == (
        "#1",
        first.state.run_id,
        "finished",
        "6/6",
        "-",
        "0",
    )
    details = run_details(second, 0.0)
    assert details[0] == "#2 gold: niah_single_2, niah_multikey_1"
    assert "at 1k · n 50, seed 1 · cancelled" in details[1]


async def test_pause_holds_new_examples_until_resume(store: Store) -> None:
    manager = RunManager()
    run = manager.start_local(gold_request(n=3), store, loader_of(SlowGold(0.02)))

    def drained(check: Any) -> Any:
        def after_drain() -> bool:
            run.drain()
            return bool(check())

        return after_drain

    await _until(drained(lambda: run.state.started))
    run.pause()
    assert run.status == PAUSED
    await _until(drained(lambda: run.state.in_flight == 0))
    started = run.state.started
    await asyncio.sleep(0.4)
    run.drain()
    assert run.state.started == started
    assert run_row(run, 0.0).eta == "-", "no ETA while paused"
    run.resume()
    await run.wait()
    assert run.status == FINISHED and run.state.done == 6


async def test_a_run_with_nothing_left_to_do_says_so(store: Store) -> None:
    manager = RunManager()
    await manager.start_local(gold_request(n=1), store, load_backend).wait()
    again = manager.start_local(gold_request(n=1), store, load_backend)
    await again.wait()
    assert again.status == NOTHING_TO_DO
    assert (
        run_details(again, 0.0)[-1] == "nothing to do: every example planned (2) is already stored"
    )


async def test_the_runs_screen_says_nothing_to_do_in_the_words_of_a_runs_record(
    store: Store,
) -> None:
    """One vocabulary: the Runs screen says what `lctui runs` reads in a run's record."""
    manager = RunManager()
    await manager.start_local(gold_request(n=1), store, load_backend).wait()
    again = manager.start_local(gold_request(n=1), store, load_backend)
    await again.wait()
    assert run_row(again, 0.0).status == run_record.NOTHING_TO_DO


async def test_a_run_the_engine_refuses_fails_with_the_reason(store: Store) -> None:
    small = ModelSpec(name="gold-2k", backend="gold", params={"max_context": 2048}, reference=True)
    request = RunRequest(models=[small], tasks=select_tasks("vt"), lengths=[4096], n=1)
    run = RunManager().start_local(request, store, load_backend)
    await run.wait()
    assert run.status == FAILED and run.failure and "window of 2048 tokens" in run.failure
    assert run_details(run, 0.0)[-1].startswith("failed: ")


async def test_cancelling_while_a_model_loads_records_no_run_with_a_fake_slow_load(
    store: Store,
) -> None:
    """A model that takes long to load (a fake: the gold model loads at once)."""
    release = threading.Event()

    def slow_loader(spec: ModelSpec, tokenizer: str | None) -> Any:
        release.wait(10)
        return load_backend(spec, tokenizer)

    run = RunManager().start_local(gold_request(n=1), store, slow_loader)
    await asyncio.sleep(0.2)
    assert run.status == LOADING and run_row(run, 0.0).done == "-"
    run.cancel()
    release.set()
    await run.wait()
    assert run.status == CANCELLED and run.state.run_id is None
    assert _statuses(store) == {}


def test_the_eta_is_what_is_left_at_the_last_minutes_rate() -> None:
    cell = CellKey("gold", "vt", 1024)
    state = RunState(["gold"], ["vt"], [1024])
    assert state.eta_s(0.0) is None
    state.apply(100.0, RunPlanned("r", {cell: 10}, {}))
    assert state.eta_s(101.0) is None, "no rate before an example finishes"
    example = make_example()
    for at in (102.0, 104.0):
        scored = ExampleScored(cell, make_generation(example, generation_id=f"g{at}"), make_score())
        state.apply(at, scored)
    # 2 finished in the 10 s since planning: 0.2 a second; 8 left take 40 s.
    assert state.eta_s(110.0) == pytest.approx(40.0)
    # A minute later without a finish, there is no recent rate to go by.
    assert state.eta_s(170.0) is None


def test_a_run_is_named_by_its_number_and_models() -> None:
    run = ManagedRun(RunRequest(models=[GOLD], tasks=select_tasks("vt"), lengths=[1024], n=1))
    run.number = 3
    assert run.name == "#3 gold"


def test_the_manager_module_does_not_import_textual() -> None:
    import subprocess
    import sys

    code = (
        "import sys, lctui.tui.state.run_manager, lctui.tui.state.run_rows; "
        "print('textual' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
