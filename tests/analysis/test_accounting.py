"""Run accounting on a real results file: a gold run plus hand-made API generations.

The API run's numbers are set by hand, so every percentile, rate and cost below was
worked out on paper (see the comments).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from lctui.analysis.accounting import judge_stats, model_stats, run_accounts
from lctui.backends import load_backend
from lctui.core.types import Generation, GenerationStatus, ModelSpec
from lctui.engine import Engine, RunRequest
from lctui.store import Store, open_store
from lctui.store.judge_calls import JudgeCall, add_judge_calls, lookup_judge_calls
from lctui.tasks import select_tasks

GOLD = ModelSpec(name="gold", backend="gold", reference=True)
API = ModelSpec(name="api-model", backend="openai", params={"model": "gpt-x"})
JUDGE = ModelSpec(name="judge-x", backend="openai")
PRICES = {"gpt-x": (2.5, 10.0), "judge-x": (1.0, 2.0)}
T0 = 1_700_000_000.0
TTFTS = (0.1, 0.2, 0.3, 0.4, 1.0)


def _generation(i: int, status: GenerationStatus, ttft: float | None, latency: float) -> Generation:
    ok = status is GenerationStatus.OK
    return Generation(
        generation_id=f"api-{i}",
        gen_key=f"key-{i}",
        run_id="run-api",
        model_id="fp-api",
        example_id=f"ex-{i}",
        config_hash="cfg",
        status=status,
        output="answer" if ok else "",
        prompt_tokens=1000,
        output_tokens=100 if ok else 0,
        ttft_s=ttft,
        latency_s=latency,
        finish_reason="stop" if ok else None,
        error=None if ok else "APITimeoutError: timed out",
        started_at=T0 + i,
    )


def _call(
    call_id: str,
    generation_id: str,
    prompt_hash: str,
    tokens: tuple[int, int],
    verdict: object,
    at: float,
) -> JudgeCall:
    return JudgeCall(
        call_id=call_id,
        generation_id=generation_id,
        judge_model="fp-judge",
        prompt_hash=prompt_hash,
        prompt=f"prompt {prompt_hash}",
        response=f"reply {call_id}",
        parsed={
            "role": "qa",
            "verdict": verdict,
            "prompt_tokens": tokens[0],
            "output_tokens": tokens[1],
        },
        created_at=at,
    )


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = open_store(tmp_path / "acct.duckdb")
    request = RunRequest(models=[GOLD], tasks=select_tasks("niah_single_1"), lengths=[1024], n=3)
    asyncio.run(Engine(opened, load_backend, lambda event: None).run(request))
    opened.add_model(API, "fp-api", "o200k_base", 128_000)
    opened.add_model(JUDGE, "fp-judge", "", 0)
    opened.writer.start_run("run-api", {"argv": ["hand-made"]})
    for i, ttft in enumerate(TTFTS):
        opened.add_generation(_generation(i, GenerationStatus.OK, ttft, 2.0), {})
    opened.add_generation(_generation(5, GenerationStatus.ERROR, None, 0.5), {})
    opened.flush(force=True)
    verdict = {"fluency": 1, "correctness": 2, "reason": "close"}
    add_judge_calls(
        opened,
        [
            _call("c1", "api-0", "h1", (300, 50), verdict, time.time()),
            _call("c2", "api-1", "h2", (200, 30), None, time.time()),
        ],
    )
    yield opened
    opened.close()


def test_api_run_percentiles_rates_errors_and_cost(store: Store) -> None:
    (stats,) = model_stats(store, "run-api", PRICES)
    assert (stats.model, stats.generations, stats.ok, stats.errors) == ("api-model", 6, 5, 1)
    # quantile_cont over the five successful TTFTs 0.1 0.2 0.3 0.4 1.0 (the error has none):
    # p50 = 0.3; p90 at rank 3.6 = 0.4 + 0.6 * 0.6 = 0.76; p99 at rank 3.96 = 0.976.
    assert stats.ttft_p50_s == pytest.approx(0.3)
    assert stats.ttft_p90_s == pytest.approx(0.76)
    assert stats.ttft_p99_s == pytest.approx(0.976)
    # Tokens of every attempt: 6 x 1000 prompt, 5 x 100 output.
    assert (stats.prompt_tokens, stats.output_tokens) == (6000, 500)
    # Wall time: first start T0, last end T0 + 4 + 2.0 = T0 + 6 (the error ends at T0 + 5.5).
    assert stats.wall_s == pytest.approx(6.0)
    assert stats.busy_s == pytest.approx(5 * 2.0 + 0.5)
    assert stats.output_tok_s == pytest.approx(500 / 6)
    assert stats.prompt_tok_s == pytest.approx(1000.0)
    # Priced by the served name gpt-x: 6000 x $2.5/M + 500 x $10/M = $0.015 + $0.005.
    assert stats.cost_usd == pytest.approx(0.02)
    assert model_stats(store, "run-api")[0].cost_usd is None  # no price table, no cost


def test_judge_calls_are_counted_per_run_with_their_cost(store: Store) -> None:
    (judge,) = judge_stats(store, "run-api", PRICES)
    assert (judge.judge, judge.calls, judge.unparsed) == ("judge-x", 2, 1)
    assert (judge.prompt_tokens, judge.output_tokens) == (500, 80)
    # 500 x $1/M + 80 x $2/M
    assert judge.cost_usd == pytest.approx(0.00066)
    accounts = {a.run_id: a for a in run_accounts(store, prices=PRICES)}
    assert accounts["run-api"].cost_usd == pytest.approx(0.02066)


def test_gold_run_is_listed_as_a_reference_without_cost(store: Store) -> None:
    accounts = run_accounts(store, prices=PRICES)
    assert len(accounts) == 2
    gold = next(a for a in accounts if a.run_id != "run-api")
    (stats,) = gold.models
    assert stats.reference and stats.model == "gold"
    assert (stats.generations, stats.ok, stats.errors) == (3, 3, 0)
    assert stats.output_tokens > 0 and stats.ttft_p50_s is not None
    assert gold.cost_usd is None and gold.judges == ()
    assert run_accounts(store, "no-such-run") == []


def test_judge_call_cache_returns_the_latest_call_per_prompt(store: Store) -> None:
    add_judge_calls(store, [_call("c3", "api-2", "h1", (1, 1), {"fluency": 0}, time.time() + 60)])
    found = lookup_judge_calls(store, "fp-judge", ["h1", "h2", "h-unknown"])
    assert sorted(found) == ["h1", "h2"]
    assert found["h1"].call_id == "c3" and found["h1"].verdict == {"fluency": 0}
    assert found["h2"].verdict is None and found["h2"].response == "reply c2"
    assert lookup_judge_calls(store, "another-judge", ["h1"]) == {}
