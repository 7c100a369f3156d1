"""The engine's scoring: off the event loop, within a time limit, a scorer failure is the
output's zero (never an error or a missing score), and output stops at max_new_tokens.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Any

import duckdb
import pytest

from helpers.fake_endless_server import FakeServerIgnoringMaxTokens
from lctui import scoring
from lctui.backends import load_backend
from lctui.backends.gold import GoldBackend
from lctui.core.events import ChunkReceived, Event, ExampleScored
from lctui.core.types import Chunk, Example, ModelSpec, Request, Score
from lctui.engine import Engine, RunRequest, judging
from lctui.engine.judging import Judging
from lctui.engine.runner import RunOutcome
from lctui.scoring import SCORER_FAILURE, register_scorer, score_recall
from lctui.scoring.judge import QA, ROLE_QA, JudgePrompt, JudgeReply, JudgeTask
from lctui.scoring.judge_call import ask_judge
from lctui.store import open_store
from lctui.tasks import select_tasks

GOLD = ModelSpec(name="gold", backend="gold", reference=True)


def _run(
    db: Path,
    backend: Any,
    tasks: str,
    events: list[Event],
    n: int = 3,
    scoring_limit_s: float | None = None,
    length: int = 1024,
) -> RunOutcome:
    request = RunRequest(models=[GOLD], tasks=select_tasks(tasks), lengths=[length], n=n)
    with open_store(db) as store:
        engine = Engine(store, lambda spec, tok: backend, events.append)
        if scoring_limit_s is not None:
            engine.scoring_limit_s = scoring_limit_s
        return asyncio.run(engine.run(request))


def _scores(db: Path) -> list[tuple[str, float | None, str, dict[str, Any]]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("SELECT status, value, explanation, extras FROM scores").fetchall()
    finally:
        con.close()
    return [(status, value, why, json.loads(extras or "{}")) for status, value, why, extras in rows]


@pytest.fixture
def own_scorers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Scorers registered by a test stay in that test."""
    monkeypatch.setattr(scoring, "SCORERS", dict(scoring.SCORERS))


class BracketBabblingGoldFake(GoldBackend):
    """Answers every example with 1,024 `[` (512 tokens): a real model cannot be made to
    babble on demand. Before issue 17.5's fix this raised RecursionError in LIFEval."""

    async def stream(self, request: Request) -> AsyncIterator[Chunk]:
        for _ in range(16):
            yield Chunk("[" * 64, tokens=32)
        yield Chunk("", tokens=0, finish_reason="stop")


def test_bracket_babble_scores_low_and_counts_in_the_mean(tmp_path: Path) -> None:
    db = tmp_path / "babble.duckdb"
    tasks = "lifbench_multi_query_id,lifbench_find_dup_text,lifbench_repeat"
    outcome = _run(db, BracketBabblingGoldFake(), tasks, [], length=4096)
    assert (outcome.done, outcome.errors) == (9, 0)
    scores = _scores(db)
    assert len(scores) == 9
    # A bad answer with a low score, counted in the mean: never an error without a score.
    assert all(status in ("ok", "unparsed") for status, _, _, _ in scores), scores
    assert all(value is not None and value < 0.5 for _, value, _, _ in scores), scores


def _raising_on_output(example: Example, output: str) -> Score:
    if output:
        raise RecursionError("maximum recursion depth exceeded while decoding a JSON array")
    return score_recall(example, output)


@pytest.mark.usefixtures("own_scorers")
def test_a_scorer_failing_on_an_output_scores_it_zero_not_error(tmp_path: Path) -> None:
    register_scorer("recall", _raising_on_output, replace=True)
    db = tmp_path / "fails.duckdb"
    events: list[Event] = []
    outcome = _run(db, load_backend(GOLD), "niah_single_1", events)
    assert (outcome.done, outcome.errors) == (3, 0)
    scored = [e.score for e in events if isinstance(e, ExampleScored)]
    assert len(scored) == 3
    for status, value, why, extras in _scores(db):
        assert (status, value) == ("unparsed", 0.0)
        assert "RecursionError" in why and "RecursionError" in extras[SCORER_FAILURE]
    # The points are the task's own, each at 0, so point-based means count the miss.
    assert all(p.earned == 0.0 for s in scored for p in s.points) and scored[0].points


def _always_raising(example: Example, output: str) -> Score:
    raise KeyError("metadata 'needle' (a task bug: every output fails)")


@pytest.mark.usefixtures("own_scorers")
def test_a_scorer_that_cannot_score_the_example_at_all_gives_no_zero(tmp_path: Path) -> None:
    # Failing on every output, the empty one included, is no fault of the model's: the
    # example has no score (an error row), never a 0 in the model's mean.
    register_scorer("recall", _always_raising, replace=True)
    db = tmp_path / "bug.duckdb"
    outcome = _run(db, load_backend(GOLD), "niah_single_1", [])
    assert outcome.done == 3
    rows = _scores(db)
    assert {(status, value) for status, value, _, _ in rows} == {("error", None)}
    assert all("scoring failed: KeyError" in why for _, _, why, _ in rows)


class ScorerGate:
    """A scorer that blocks on its first call until released (at most `hold_s`), and a
    sink that counts the chunks the engine streams while it is blocked."""

    def __init__(self, hold_s: float) -> None:
        self.hold_s = hold_s
        self.holding = False
        self.release = threading.Event()
        self.chunks_while_held = 0
        self._first = True
        self._lock = threading.Lock()

    def score(self, example: Example, output: str) -> Score:
        with self._lock:
            first, self._first = self._first, False
        if first:
            self.holding = True
            self.release.wait(self.hold_s)
            self.holding = False
        return score_recall(example, output)

    def sink(self, events: list[Event]) -> Any:
        def record(event: Event) -> None:
            events.append(event)
            if isinstance(event, ChunkReceived) and self.holding:
                self.chunks_while_held += 1
                if self.chunks_while_held >= 3:
                    self.release.set()

        return record


@pytest.mark.usefixtures("own_scorers")
def test_chunks_keep_streaming_while_a_slow_scorer_runs(tmp_path: Path) -> None:
    gate = ScorerGate(hold_s=10.0)
    register_scorer("recall", gate.score, replace=True)
    events: list[Event] = []
    request = RunRequest(models=[GOLD], tasks=select_tasks("niah_multikey_1"), lengths=[1024], n=6)
    with open_store(tmp_path / "slow.duckdb") as store:
        engine = Engine(store, lambda spec, tok: load_backend(GOLD), gate.sink(events))
        outcome = asyncio.run(engine.run(request))
    assert (outcome.done, outcome.errors) == (6, 0)
    # On the event loop the held scorer would have stopped every stream for 10 s.
    assert gate.chunks_while_held >= 3


@pytest.mark.usefixtures("own_scorers")
def test_scoring_past_the_time_limit_scores_zero_with_the_reason(tmp_path: Path) -> None:
    done = threading.Event()

    def slow(example: Example, output: str) -> Score:
        if output:
            done.wait(5.0)  # far past the limit; released at the end of the test
        return score_recall(example, output)

    register_scorer("recall", slow, replace=True)
    db = tmp_path / "limit.duckdb"
    try:
        outcome = _run(db, load_backend(GOLD), "niah_single_1", [], n=2, scoring_limit_s=0.2)
    finally:
        done.set()
    assert (outcome.done, outcome.errors) == (2, 0)
    for status, value, why, extras in _scores(db):
        assert (status, value) == ("unparsed", 0.0)
        assert "scoring took longer than 0.2 s" in why
        assert extras[SCORER_FAILURE] == "scoring took longer than 0.2 s"


@pytest.fixture
def endless_server() -> Iterator[FakeServerIgnoringMaxTokens]:
    with FakeServerIgnoringMaxTokens() as server:
        yield server


def _wait_for(condition: Any, timeout_s: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return bool(condition())


def test_output_stops_at_max_new_tokens_with_fake_server_ignoring_it(
    tmp_path: Path, endless_server: FakeServerIgnoringMaxTokens, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LCTUI_FAKE_KEY", "fake-key")
    spec = _endless_spec(endless_server)
    request = RunRequest(models=[spec], tasks=select_tasks("vt"), lengths=[1024], n=2)
    db = tmp_path / "cap.duckdb"
    with open_store(db) as store:
        outcome = asyncio.run(Engine(store, load_backend, lambda event: None).run(request))
    assert (outcome.done, outcome.errors) == (2, 0)
    con = duckdb.connect(str(db), read_only=True)
    rows: Sequence[tuple[Any, ...]] = con.execute(
        "SELECT output, output_tokens, finish_reason, config->>'max_new_tokens' FROM generations"
    ).fetchall()
    con.close()
    assert len(rows) == 2
    for output, tokens, finish, asked in rows:
        assert tokens == int(asked) and finish == "length"
        assert output.split() == [f"word{i}" for i in range(int(asked))]
    # The server was asked for that many tokens, streamed on, and was hung up on.
    assert [r["max_tokens"] for r in endless_server.requests] == [int(rows[0][3])] * 2
    assert _wait_for(lambda: all(r["aborted"] for r in endless_server.requests))
    assert all(r["sent"] < 1_000 for r in endless_server.requests)


def _endless_spec(server: FakeServerIgnoringMaxTokens) -> ModelSpec:
    return ModelSpec(
        name="endless",
        backend="openai",
        params={
            "base_url": server.base_url,
            "model": "endless",
            "api_key_env": "LCTUI_FAKE_KEY",
            "max_retries": 0,
            "timeout_s": 60,
        },
    )


def test_judge_reply_stops_at_its_max_new_tokens_with_fake_server_ignoring_it(
    endless_server: FakeServerIgnoringMaxTokens, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LCTUI_FAKE_KEY", "fake-key")
    backend = load_backend(_endless_spec(endless_server))

    async def ask() -> JudgeReply:
        try:
            return await ask_judge(backend, JudgePrompt(ROLE_QA, "Grade this.", 20))
        finally:
            await backend.close()

    reply = asyncio.run(ask())
    assert reply.output_tokens == 20
    assert reply.text.split() == [f"word{i}" for i in range(20)]
    assert _wait_for(lambda: all(r["aborted"] for r in endless_server.requests))


def test_a_judge_reply_read_past_the_limit_is_unparsed_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    released = threading.Event()

    def slow_parse(prompt: JudgePrompt, text: str) -> dict[str, Any] | None:
        released.wait(5.0)  # far past the limit; released at the end of the test
        return None

    monkeypatch.setattr(judging, "parse_reply", slow_parse)
    task = JudgeTask(QA, "When was it built?", ("1840",), output="In 1840.")
    try:
        with open_store(tmp_path / "judge.duckdb") as store:
            judge = Judging(GOLD, load_backend, store)
            judge.parse_limit_s = 0.2
            summary = asyncio.run(judge.judge([("generation-1", task)]))
            store.flush(force=True)
            scores = (
                store.cursor()
                .execute(
                    "SELECT status, value, explanation, extras FROM scores WHERE scorer = 'judge'"
                )
                .fetchall()
            )
    finally:
        released.set()
    assert (summary.judged, summary.unparsed, summary.errors) == (1, 1, 0)
    [(status, value, why, extras)] = scores
    assert (status, value) == ("unparsed", 0.0)
    assert "took longer than 0.2 s" in why
    assert "took longer than 0.2 s" in json.loads(extras)[SCORER_FAILURE]
