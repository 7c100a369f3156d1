"""The launch screen's estimate (issue 24): from runs made on this machine with the
model and its backend, loading included, with its uncertainty; runs imported from
elsewhere (the shipped sample runs) measure nothing here.

The fit is checked on timings whose answer is known; the reading on a real file, with
the sample runs imported and real gold runs made through the engine."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import duckdb
import pytest

from lctui.backends import load_backend
from lctui.core.paths import machine_id
from lctui.core.types import RUN_TIMING, ModelSpec
from lctui.engine import Engine, RunRequest
from lctui.resources import sample_runs_dir
from lctui.store import open_store
from lctui.store.read.runs import RunTiming
from lctui.store.transfer import import_parquet
from lctui.tasks import select_tasks
from lctui.tui.state.estimate import estimate, estimate_line, fit_costs, read_costs

GOLD = ModelSpec(name="gold", backend="gold", reference=True)
SMOLLM = ("smollm2-135m", "hf")


def _timing(run: str, points: list[tuple[int, float]], span: float, load: float) -> RunTiming:
    """A run's timing of model m (hf) from (length, latency) points."""
    xs, ys = [float(x) for x, _ in points], [y for _, y in points]
    return RunTiming(
        "m", "hf", run, len(points), sum(xs), sum(x * x for x in xs), sum(ys),
        sum(y * y for y in ys), sum(x * y for x, y in zip(xs, ys, strict=True)), span, load,
    )  # fmt: skip


def test_the_fit_recovers_latency_overlap_and_loading() -> None:
    """latency = 2 s + 1 ms per token, examples one after another in run a (span =
    latencies) and two at a time in run b (span = half): the ratio is their mean, its
    spread is known from two runs, loading is the mean of the two recorded."""
    points = [(1024, 3.024), (2048, 4.048), (4096, 6.096)]
    latency = sum(y for _, y in points)
    runs = [_timing("a", points, latency, 4.0), _timing("b", points, latency / 2, 6.0)]
    cost = fit_costs(runs)[("m", "hf")]
    assert cost.intercept_s == pytest.approx(2.0) and cost.per_token_s == pytest.approx(0.001)
    assert cost.ratio == pytest.approx(0.75) and cost.load_s == pytest.approx(5.0)
    assert cost.ratio_sd == pytest.approx(0.3535, abs=1e-3)
    assert cost.residual_sd == pytest.approx(0.0, abs=1e-6)
    assert cost.load_sd == pytest.approx(2**0.5)
    est = estimate([("m", "hf")], 1, [2048], 10, {("m", "hf"): cost})
    assert est.seconds == pytest.approx(5.0 + 0.75 * 10 * 4.048)
    assert cost.ratio_sd is not None
    between = 10 * 4.048 * cost.ratio_sd
    assert est.spread_s == pytest.approx(2 * (between**2 + 2) ** 0.5)
    line = estimate_line([("m", "hf")], 1, [2048], 10, {("m", "hf"): cost})
    assert line.duration.startswith("~36 s (") and "measured here over 2 runs" in line.detail
    # One run: its examples' scatter only, and the line says how runs differ is unknown.
    one = fit_costs([_timing("a", [(2048, 4.0), (2048, 6.0)], 10.0, 3.0)])[("m", "hf")]
    assert one.ratio_sd is None and one.intercept_s == 0.0 and one.residual_sd > 0
    line = estimate_line([("m", "hf")], 1, [2048], 4, {("m", "hf"): one})
    assert "over 1 run (how much runs differ: not known yet)" in line.detail
    assert "(" in line.duration  # the scatter's interval


def test_runs_made_elsewhere_measure_nothing_here_and_runs_made_here_do(tmp_path: Path) -> None:
    db = tmp_path / "estimate.duckdb"
    with open_store(db) as store:
        assert import_parquet(store, sample_runs_dir() / "smollm2-synthetic") > 0
        # The sample runs timed smollm2-135m on the machine that recorded them.
        assert SMOLLM not in read_costs(store)
        line = estimate_line([SMOLLM], 2, [2048], 3, read_costs(store))
        assert line.duration == "duration unknown"
        assert "no run measured on this machine yet" in line.detail
        request = RunRequest([GOLD], select_tasks("niah_single_1,vt"), [1024, 2048], n=2)
        for seed in (0, 1):
            outcome = asyncio.run(
                Engine(store, load_backend, lambda event: None).run(
                    RunRequest(request.models, request.tasks, request.lengths, n=2, seed=seed)
                )
            )
            assert outcome.done == 8
        costs = read_costs(store)
    cost = costs[("gold", "gold")]
    assert (cost.runs, cost.examples) == (2, 16) and cost.ratio_sd is not None
    line = estimate_line([("gold", "gold"), SMOLLM], 2, [2048], 3, costs)
    assert "measured here over 2 runs" in line.detail
    assert "no run measured here yet for smollm2-135m" in line.detail
    with duckdb.connect(str(db), read_only=True) as con:
        commands = [json.loads(c) for (c,) in con.execute("SELECT command FROM runs").fetchall()]
    timed = [c[RUN_TIMING] for c in commands if RUN_TIMING in c]
    assert len(timed) == 2 and all(t["machine"] == machine_id() for t in timed)
    assert all(t["load_s"]["gold"] >= 0 for t in timed)
