"""The batched writer: round trip into the views, idempotent examples, atomic flushes."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from helpers.store_factories import (
    GOLD,
    MODEL,
    error_score,
    make_example,
    make_generation,
    make_score,
    start_python,
)
from lctui.core.errors import StoreError
from lctui.core.types import GenerationStatus, ScoreStatus
from lctui.store import Store, StoreWriter, get_generation, load_example, open_store, stored_keys
from lctui.store.views import VIEWS

REQUIRED_RESULTS = [
    "run_id", "model", "task", "category", "length", "prompt_tokens", "example_id",
    "generation_id", "status", "score", "output", "gen_key", "seed", "idx", "depth",
    "metric", "score_status", "error", "ttft_s", "latency_s", "output_tokens", "reference",
]  # fmt: skip
REQUIRED_RUBRIC = [
    "generation_id", "model", "task", "length", "point", "capabilities", "weight", "earned",
    "explanation",
]  # fmt: skip


def _rows(store: Store, sql: str, params: list[object] | None = None) -> list[dict[str, object]]:
    cur = store.cursor()
    cur.execute(sql, params or [])
    names = [d[0] for d in cur.description or []]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def _count(store: Store, table: str) -> int:
    count = _rows(store, f"SELECT count(*) AS n FROM {table}")[0]["n"]
    assert isinstance(count, int)
    return count


def test_round_trip_into_results_and_rubric(store: Store) -> None:
    example = make_example()
    store.add_model(MODEL, "fp-tiny", "o200k_base", 8192)
    store.start_run("run-1", {"argv": ["run", "--models", "tiny"]})
    store.add_example(example)
    store.add_generation(make_generation(example), {"max_new_tokens": 32, "temperature": 0.0})
    store.add_score("gen-0", make_score(0.75))
    store.finish_run("run-1", "finished")

    [row] = _rows(store, "SELECT * FROM results")
    assert list(row)[: len(REQUIRED_RESULTS)] == REQUIRED_RESULTS
    assert row["model"] == "tiny" and row["task"] == "niah_single" and row["length"] == 4096
    assert row["prompt_tokens"] == 3911  # what the model read, not the build estimate
    assert row["status"] == "ok" and row["score"] == 0.75 and row["output"] == "4217."
    assert row["seed"] == 2**62 + 7 and row["depth"] == 42.5 and row["reference"] is False
    assert row["metric"] == "recall" and row["error"] is None and row["ttft_s"] == 0.25

    points = _rows(store, "SELECT * FROM rubric ORDER BY idx")
    assert [p["point"] for p in points] == ["finds the number", "answers briefly"]
    assert list(points[0])[:3] == ["run_id", "model", "task"]
    assert set(REQUIRED_RUBRIC) <= set(points[0])
    assert points[1]["capabilities"] == ["format", "brevity"]
    assert (points[0]["weight"], points[0]["earned"]) == (2.0, 0.75)

    [run] = _rows(store, "SELECT * FROM runs")
    assert run["status"] == "finished" and run["finished_at"] is not None
    assert '"argv"' in str(run["command"]) and run["lctui_version"]

    assert load_example(store, example.example_id) == example
    detail = get_generation(store, "gen-0")
    assert detail is not None
    assert detail.prompt == "<|user|>\n" + example.user_text + (detail.prompt_tail or "")
    assert list(detail.gold) == ["4217"] and (detail.config or {})["max_new_tokens"] == 32
    assert list(detail.scores[0].points[0].capabilities) == ["retrieval"]
    assert detail.scores[0].extras == {"matched": 1}
    assert [a.generation_id for a in detail.attempts] == ["gen-0"]


def test_views_document_their_columns() -> None:
    from lctui.store import views

    doc = views.__doc__ or ""
    for column in [*REQUIRED_RESULTS, "point", "capabilities"]:
        assert f"{column}" in doc, column
    assert {"results", "rubric"} <= set(VIEWS)


def test_the_same_example_is_stored_once(db_path: Path) -> None:
    example = make_example()
    with open_store(db_path) as store:
        store.add_example(example)
        store.add_example(example)  # same buffer
        store.flush()
        store.add_example(example)  # next flush
        store.flush()
        store.add_model(MODEL, "fp-tiny", "o200k_base", 8192)
        store.add_model(MODEL, "fp-tiny", "o200k_base", 8192)
    with open_store(db_path) as store:  # another writer, same file
        store.add_example(example)
        store.add_model(MODEL, "fp-tiny", "o200k_base", 8192)
        store.flush()
        assert _count(store, "examples") == 1
        assert _count(store, "models") == 1


def test_latest_generation_per_key_wins(store: Store) -> None:
    example = make_example()
    t0 = time.time()
    store.add_example(example)
    failed = make_generation(example, "key-a", "gen-a1", GenerationStatus.ERROR, t0)
    store.add_generation(failed, {})
    store.add_score("gen-a1", error_score())
    store.flush()
    assert stored_keys(store, ["key-a", "key-b"]) == set()  # errors are retried
    [row] = _rows(store, "SELECT * FROM results")
    assert (row["status"], row["score"], row["score_status"]) == ("error", None, "error")
    assert isinstance(row["error"], str) and row["error"].startswith("TimeoutError")

    store.add_generation(make_generation(example, "key-a", "gen-a2", started_at=t0 + 5), {})
    store.add_score("gen-a2", make_score(1.0))
    store.flush()
    assert stored_keys(store, ["key-a", "key-b"]) == {"key-a"}
    [row] = _rows(store, "SELECT * FROM results")
    assert (row["generation_id"], row["status"], row["score"]) == ("gen-a2", "ok", 1.0)
    assert _count(store, "generations") == 2  # the failed attempt is kept for the record
    detail = get_generation(store, "gen-a2")
    assert detail is not None
    assert [a.status for a in detail.attempts] == ["error", "ok"]


def test_same_started_at_falls_back_to_generation_id(store: Store) -> None:
    example = make_example()
    store.add_example(example)
    for gid in ("gen-b", "gen-a"):
        store.add_generation(make_generation(example, "key", gid, started_at=1_700_000_000.5), {})
        store.add_score(gid, make_score())
    store.flush()
    assert [r["generation_id"] for r in _rows(store, "SELECT * FROM results")] == ["gen-b"]


def test_generation_without_score_and_status_from_generation(store: Store) -> None:
    example = make_example()
    store.add_example(example)
    cancelled = make_generation(example, "key", "gen-c", GenerationStatus.CANCELLED)
    store.add_generation(cancelled, {})
    store.flush(force=True)
    [row] = _rows(store, "SELECT status, score, score_status FROM results")
    assert row == {"status": "cancelled", "score": None, "score_status": None}
    assert stored_keys(store, ["key"]) == set()  # cancelled work is redone too


def test_a_rescore_replaces_score_and_points_in_the_views(store: Store) -> None:
    example = make_example()
    store.add_example(example)
    store.add_generation(make_generation(example), {})
    store.add_score("gen-0", make_score(0.0, ScoreStatus.UNPARSED))
    store.flush()
    time.sleep(0.002)
    store.add_score("gen-0", make_score(0.5))
    store.flush()
    [row] = _rows(store, "SELECT status, score FROM results")
    assert row == {"status": "ok", "score": 0.5}
    assert [r["earned"] for r in _rows(store, "SELECT earned FROM rubric ORDER BY idx")] == [
        0.5,
        1.0,
    ]
    assert _count(store, "scores") == 2 and _count(store, "rubric_points") == 4


def test_a_generation_waits_for_its_score(store: Store) -> None:
    example = make_example()
    writer = store.writer
    writer.add_example(example)
    writer.add_generation(make_generation(example), {})
    assert writer.flush() == 1  # the example; the generation waits for its score
    assert _count(store, "generations") == 0 and writer.pending == 1
    writer.add_score("gen-0", make_score())
    assert writer.flush() == 4
    assert _count(store, "generations") == 1 and _count(store, "rubric_points") == 2


def test_a_generation_whose_score_never_comes_is_written_after_hold_s(db_path: Path) -> None:
    now = [0.0]
    with open_store(db_path) as store:
        writer = StoreWriter(store.cursor(), hold_s=10.0, clock=lambda: now[0])
        writer.add_generation(make_generation(make_example()), {})
        assert writer.flush_if_due(1.0) == 0  # not yet due
        now[0] = 2.0
        assert writer.flush_if_due(1.0) == 0  # due, but still waiting for the score
        now[0] = 11.0
        assert writer.flush_if_due(1.0) == 1
        writer.close()


def test_flush_if_due_and_auto_flush(db_path: Path) -> None:
    now = [100.0]
    with open_store(db_path) as store:
        writer = StoreWriter(store.cursor(), max_rows=8, clock=lambda: now[0])
        writer.add_example(make_example(0))
        assert writer.flush_if_due(1.0) == 0
        now[0] += 1.0
        assert writer.flush_if_due(1.0) == 1
        for i in range(1, 9):
            writer.add_example(make_example(i))
        assert _count(store, "examples") == 1 and writer.pending == 8
        writer.add_example(make_example(9))  # more than 8 rows buffered: flushed
        assert _count(store, "examples") == 10 and writer.pending == 0
        writer.add_example(make_example(10))
        writer.close()
        assert _count(store, "examples") == 11


def test_a_failing_flush_writes_nothing_hand_made_failure(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A hand-made failure: the insert of the scores table raises after the examples
    # and generations of the same flush were inserted.
    example = make_example()
    writer = store.writer
    writer.add_example(example)
    writer.add_generation(make_generation(example), {})
    writer.add_score("gen-0", make_score())
    real_insert = StoreWriter._insert

    def failing_insert(self: StoreWriter, con: Any, table: str, view: str) -> None:
        if table == "scores":
            raise OSError("disk full (simulated)")
        real_insert(self, con, table, view)

    monkeypatch.setattr(StoreWriter, "_insert", failing_insert)
    with pytest.raises(OSError, match="simulated"):
        writer.flush()
    for table in ("examples", "generations", "scores", "rubric_points"):
        assert _count(store, table) == 0, table
    assert writer.pending == 5  # nothing lost: the rows wait for the next flush
    monkeypatch.setattr(StoreWriter, "_insert", real_insert)
    assert writer.flush() == 5
    assert [_count(store, t) for t in ("examples", "generations", "scores")] == [1, 1, 1]


def test_a_failing_flush_writes_nothing_real_constraint_failure(store: Store) -> None:
    first, second = make_example(0), make_example(1)
    store.add_example(first)
    store.add_generation(make_generation(first, "key-1", "gen-1"), {})
    store.add_score("gen-1", make_score())
    store.flush()
    store.add_example(second)
    store.add_generation(make_generation(second, "key-2", "gen-1"), {})  # duplicate id
    store.add_score("gen-1", make_score(0.0))
    with pytest.raises(StoreError, match="none of them was written"):
        store.flush()
    assert _count(store, "examples") == 1  # inserted before the failure, rolled back
    assert _count(store, "scores") == 1
    store.start_run("run-1", {})
    with pytest.raises(StoreError):
        store.finish_run("run-1", "finished")
    assert _rows(store, "SELECT status FROM runs") == [{"status": "failed"}]
    assert store.writer.discard() == 5
    store.finish_run("run-1", "finished")
    assert _rows(store, "SELECT status FROM runs") == [{"status": "finished"}]


def test_closing_with_rows_that_cannot_be_written_says_so(db_path: Path) -> None:
    store = open_store(db_path)
    example = make_example()
    for _ in range(2):
        store.add_generation(make_generation(example), {})
        store.add_score("gen-0", make_score())
    with pytest.raises(StoreError, match=r"could not write 8 rows.*duplicate key"):
        store.close()
    store.close()  # closing again is harmless
    open_store(db_path).close()  # and the file was released


def test_finish_run_checks_status_and_restart_marks_running(store: Store) -> None:
    store.start_run("run-1", {"argv": []})
    with pytest.raises(ValueError, match="run status must be one of"):
        store.finish_run("run-1", "done")
    store.finish_run("run-1", "cancelled")
    store.start_run("run-1", {"argv": []})  # resumed under the same id
    [run] = _rows(store, "SELECT status, finished_at FROM runs")
    assert run == {"status": "running", "finished_at": None}


def test_reference_models_are_marked(store: Store) -> None:
    example = make_example()
    store.add_model(GOLD, "fp-gold", "o200k_base", 1 << 20)
    store.add_example(example)
    store.add_generation(make_generation(example, model_id="fp-gold"), {})
    store.add_score("gen-0", make_score())
    store.flush()
    [row] = _rows(store, "SELECT model, reference FROM results")
    assert row == {"model": "gold", "reference": True}


def test_writer_is_safe_from_several_threads(store: Store) -> None:
    example = make_example()
    store.add_example(example)

    def work(t: int) -> None:
        for i in range(100):
            gid = f"gen-{t}-{i}"
            store.add_generation(make_generation(example, f"key-{t}-{i}", gid), {})
            store.add_score(gid, make_score())
            if i % 10 == 0:
                store.flush()

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    store.flush()
    assert _count(store, "results") == 400 and _count(store, "rubric_points") == 800


def test_flushed_rows_survive_kill_9(db_path: Path) -> None:
    open_store(db_path).close()
    code = f"""
        import sys, time
        sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r})
        from helpers.store_factories import make_example, make_generation, make_score
        from lctui.store import open_store
        store = open_store({str(db_path)!r})
        example = make_example()
        store.add_example(example)
        for i in range(50):
            store.add_generation(make_generation(example, f"k{{i}}", f"g{{i}}"), {{}})
            store.add_score(f"g{{i}}", make_score())
        store.flush()
        store.add_generation(make_generation(example, "late", "late"), {{}})
        store.add_score("late", make_score())  # buffered, never flushed
        print("flushed", flush=True)
        time.sleep(120)
    """
    proc = start_python(code, "flushed")
    assert proc.stdout is not None
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    with open_store(db_path, read_only=True) as store:
        assert _count(store, "results") == 50
        assert _count(store, "rubric_points") == 100
