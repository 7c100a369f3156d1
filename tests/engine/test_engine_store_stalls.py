"""The engine when the store cannot write: it retries, says so, holds new work past a
bounded backlog, goes on by itself, and loses nothing that finished.

These use a real store behind FakeFailingStore, whose flushes fail a given number of
times first (as writes to a held file or a full disk do, but without their 15 s
waits; the real failures are in tests/cli/test_cli_store_stalls.py).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import duckdb
import pytest

from lctui.backends import load_backend
from lctui.core.errors import StoreError
from lctui.core.events import Event, ExampleScored, ExampleStarted, StoreRecovered, StoreStalled
from lctui.core.types import ModelSpec
from lctui.engine import Engine, RunRequest, flushing
from lctui.engine.flushing import BacklogLimits
from lctui.store import Store, open_store
from lctui.tasks import select_tasks

GOLD = ModelSpec(name="gold", backend="gold", reference=True)
FAKE_ERROR = "IO Error: No space left on device (fake)"


class FakeFailingStore:
    """A real store whose next `failures` flushes (and run endings) raise StoreError."""

    def __init__(self, store: Store, failures: int) -> None:
        self.store = store
        self.failures = failures
        self.attempts = 0

    def flush(self, force: bool = False) -> int:
        self.attempts += 1
        if self.failures > 0:
            self.failures -= 1
            raise StoreError(FAKE_ERROR)
        return self.store.flush(force)

    def finish_run(
        self, run_id: str, status: str, notes: Mapping[str, object] | None = None
    ) -> None:
        if self.failures > 0:
            raise StoreError(FAKE_ERROR)
        self.store.finish_run(run_id, status, notes)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


@pytest.fixture(autouse=True)
def _fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(flushing, "FLUSH_EVERY_S", 0.05)
    monkeypatch.setattr(flushing, "RETRY_MAX_S", 0.2)


def _request(n: int = 3) -> RunRequest:
    return RunRequest(
        models=[GOLD], tasks=select_tasks("niah_single_1,vt"), lengths=[1024, 2048], n=n
    )


def _run(
    db: Path, failures: int, limits: BacklogLimits = flushing.BACKLOG_LIMITS, n: int = 3
) -> tuple[Any, list[Event], FakeFailingStore]:
    events: list[Event] = []
    store = open_store(db)
    flaky = FakeFailingStore(store, failures)
    try:
        engine = Engine(
            flaky,
            lambda spec, tok: load_backend(GOLD),
            events.append,
            backlog_limits=limits,
        )
        outcome = asyncio.run(engine.run(_request(n)))
    finally:
        flaky.failures = 0
        store.close()
    return outcome, events, flaky


def _stored(db: Path) -> tuple[int, int]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        row = con.execute("SELECT count(*), count(DISTINCT gen_key) FROM results").fetchone()
        status = con.execute("SELECT status FROM runs").fetchone()
    finally:
        con.close()
    assert row is not None and status == ("finished",)
    return row[0], row[1]


def test_failed_flushes_are_retried_and_reported_until_one_succeeds(tmp_path: Path) -> None:
    outcome, events, flaky = _run(tmp_path / "r.duckdb", failures=4)
    assert outcome.done == 12 and not outcome.cancelled
    stalls = [e for e in events if isinstance(e, StoreStalled)]
    recoveries = [e for e in events if isinstance(e, StoreRecovered)]
    # The run's start writes its models' rows with its own (not through flush): every
    # failure is one of the flusher's, which reports each and retries.
    assert len(stalls) == 4 and all(s.error == FAKE_ERROR for s in stalls)
    assert len(recoveries) == 1 and events.index(recoveries[0]) > events.index(stalls[-1])
    assert flaky.attempts > 4  # the flusher went on after the first failure
    assert _stored(tmp_path / "r.duckdb") == (12, 12)


def test_new_work_waits_while_too_many_results_are_unwritten(tmp_path: Path) -> None:
    limits = BacklogLimits(max_age_s=60.0, max_results=3)
    outcome, events, _ = _run(tmp_path / "r.duckdb", failures=6, limits=limits, n=6)
    assert outcome.done == 24
    held = next(i for i, e in enumerate(events) if isinstance(e, StoreStalled) and e.paused)
    resumed = next(i for i, e in enumerate(events) if isinstance(e, StoreRecovered) and i > held)
    started_while_held = [e for e in events[held:resumed] if isinstance(e, ExampleStarted)]
    assert started_while_held == []
    stalled = events[held]
    assert isinstance(stalled, StoreStalled) and stalled.waiting >= 3
    assert _stored(tmp_path / "r.duckdb") == (24, 24)


def test_the_run_ends_only_once_its_last_results_are_written(tmp_path: Path) -> None:
    # Failing for longer than the generations take: the end of the run waits.
    outcome, events, _ = _run(tmp_path / "r.duckdb", failures=12)
    last_scored = max(i for i, e in enumerate(events) if isinstance(e, ExampleScored))
    recovered = [i for i, e in enumerate(events) if isinstance(e, StoreRecovered)]
    assert recovered and recovered[-1] > last_scored
    assert outcome.done == 12 and _stored(tmp_path / "r.duckdb") == (12, 12)


class SlowStartStoreFake:
    """A real store whose run start waits until the run's first request has begun (as a
    write to a file another process holds for a moment waits), then writes the run's
    row, or fails (`fail`); it records whether a result came before the row."""

    def __init__(self, store: Store, fail: bool = False) -> None:
        self.store = store
        self.fail = fail
        self.first_request = threading.Event()
        self.calls: list[str] = []

    def start_run(self, run_id: str, command: Mapping[str, object]) -> None:
        began = self.first_request.wait(timeout=10.0)
        self.calls.append("start_run")
        if self.fail or not began:
            raise StoreError(f"{FAKE_ERROR} (first request began: {began})")
        self.store.start_run(run_id, command)

    def add_generation(self, generation: Any, config: Mapping[str, Any]) -> None:
        self.calls.append("add_generation")
        self.store.add_generation(generation, config)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


def _run_slow_start(db: Path, fail: bool) -> tuple[Any, SlowStartStoreFake]:
    store = open_store(db)
    slow = SlowStartStoreFake(store, fail)

    def sink(event: Event) -> None:
        if isinstance(event, ExampleStarted):
            slow.first_request.set()

    try:
        engine = Engine(slow, lambda spec, tok: load_backend(GOLD), sink)
        outcome = asyncio.run(engine.run(_request(2)))
    finally:
        store.close()
    return outcome, slow


def test_the_first_requests_go_while_the_runs_row_is_written(tmp_path: Path) -> None:
    outcome, slow = _run_slow_start(tmp_path / "r.duckdb", fail=False)
    assert outcome.done == 8 and not outcome.cancelled
    # Results are kept only once the run's row is written.
    assert slow.calls[0] == "start_run" and slow.calls.count("add_generation") == 8
    assert _stored(tmp_path / "r.duckdb") == (8, 8)


def test_a_start_that_fails_ends_the_run_with_its_error_and_keeps_nothing(
    tmp_path: Path,
) -> None:
    with pytest.raises(StoreError, match="fake"):
        _run_slow_start(tmp_path / "r.duckdb", fail=True)
    con = duckdb.connect(str(tmp_path / "r.duckdb"), read_only=True)
    try:
        counts = [
            con.execute(f"SELECT count(*) FROM {t}").fetchone() for t in ("runs", "generations")
        ]
    finally:
        con.close()
    assert counts == [(0,), (0,)]
