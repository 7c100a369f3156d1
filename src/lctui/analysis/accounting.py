"""Per-run accounting: tokens, throughput, time to first token and estimated cost.

Numbers come from the `run_model_stats` and `judge_stats` views (store/stats_views.py,
read by store/read/accounting.py), and, for a model served from several base URLs, each
server's share of its requests as the run's record keeps it; costs from the config's
price table (dollars per million tokens), looked up by the model's name in lctui, then
by the name its server knows. A model without a price has no cost (None), never a cost
of 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from lctui.core.types import ServerShare
from lctui.store.read.accounting import judge_usage, run_model_usage, run_server_usage
from lctui.store.read.source import Source

Prices = Mapping[str, tuple[float, float]]


@dataclass(frozen=True)
class ModelStats:
    run_id: str
    model: str
    model_id: str
    reference: bool
    generations: int
    ok: int
    errors: int
    cancelled: int
    prompt_tokens: int
    output_tokens: int
    busy_s: float
    wall_s: float | None
    output_tok_s: float | None
    prompt_tok_s: float | None
    ttft_p50_s: float | None
    ttft_p90_s: float | None
    ttft_p99_s: float | None
    latency_p50_s: float | None
    cost_usd: float | None


@dataclass(frozen=True)
class JudgeStats:
    run_id: str | None  # None: calls whose generation is no longer stored
    judge: str
    calls: int
    unparsed: int
    prompt_tokens: int
    output_tokens: int
    cost_usd: float | None


@dataclass(frozen=True)
class ServerStats:
    """One server of a model in a run: its share of the model's requests (attempts,
    retries included), what it answered, its errors and its latency."""

    run_id: str
    model: str
    url: str
    requests: int
    share: float | None  # of the model's requests in this run; None when it had none
    ok: int
    errors: int
    latency_s: float | None  # mean over its answered attempts
    ttft_s: float | None
    last_error: str | None


@dataclass(frozen=True)
class RunAccount:
    run_id: str
    models: tuple[ModelStats, ...]
    judges: tuple[JudgeStats, ...]
    servers: tuple[ServerStats, ...] = ()

    @property
    def cost_usd(self) -> float | None:
        """Sum of the priced costs; None when nothing in the run has a price."""
        found = [m.cost_usd for m in self.models] + [j.cost_usd for j in self.judges]
        costs = [c for c in found if c is not None]
        return sum(costs) if costs else None

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "cost_usd": self.cost_usd}


def price_of(prices: Prices, *names: str | None) -> tuple[float, float] | None:
    """The first name with a price."""
    for name in names:
        if name and name in prices:
            return prices[name]
    return None


def estimate_cost(price: tuple[float, float] | None, prompt: int, output: int) -> float | None:
    if price is None:
        return None
    return (prompt * price[0] + output * price[1]) / 1_000_000


def _per_second(tokens: int, seconds: float | None) -> float | None:
    return tokens / seconds if seconds else None


def model_stats(
    src: Source, run_id: str | None = None, prices: Prices | None = None
) -> list[ModelStats]:
    """Per run and model, most recent runs first (all runs when `run_id` is None)."""
    out = []
    for usage in run_model_usage(src, run_id):
        r = asdict(usage)
        served = r.pop("served")
        price = price_of(prices or {}, r["model"], served)
        out.append(
            ModelStats(
                **r,
                output_tok_s=_per_second(r["output_tokens"], r["wall_s"]),
                prompt_tok_s=_per_second(r["prompt_tokens"], r["wall_s"]),
                cost_usd=estimate_cost(price, r["prompt_tokens"], r["output_tokens"]),
            )
        )
    return out


def judge_stats(
    src: Source, run_id: str | None = None, prices: Prices | None = None
) -> list[JudgeStats]:
    """Judge calls per run and judge model."""
    out = []
    for usage in judge_usage(src, run_id):
        r = asdict(usage)
        price = price_of(prices or {}, r["judge"], r.pop("served"))
        cost = estimate_cost(price, r["prompt_tokens"], r["output_tokens"])
        out.append(JudgeStats(**r, cost_usd=cost))
    return out


def request_shares(servers: Sequence[ServerShare]) -> list[float | None]:
    """Each server's fraction of the requests of its model (None when there were none)."""
    total = sum(s.requests for s in servers)
    return [s.requests / total if total else None for s in servers]


def server_stats(src: Source, run_id: str | None = None) -> list[ServerStats]:
    """The servers of each model of each run that kept them, with their shares."""
    grouped: dict[tuple[str, str], list[ServerShare]] = {}
    for u in run_server_usage(src, run_id):
        grouped.setdefault((u.run_id, u.model), []).append(u.server)
    return [
        ServerStats(
            run_id=run,
            model=model,
            url=s.url,
            requests=s.requests,
            share=share,
            ok=s.ok,
            errors=s.errors,
            latency_s=s.latency_s,
            ttft_s=s.ttft_s,
            last_error=s.last_error,
        )
        for (run, model), servers in grouped.items()
        for s, share in zip(servers, request_shares(servers), strict=True)
    ]


def run_accounts(
    src: Source, run_id: str | None = None, prices: Prices | None = None
) -> list[RunAccount]:
    """Models, judges and servers of each run, in the order of `model_stats`."""
    models = model_stats(src, run_id, prices)
    judges = judge_stats(src, run_id, prices)
    servers = server_stats(src, run_id)
    order = list(dict.fromkeys(m.run_id for m in models))
    order += [j.run_id for j in judges if j.run_id is not None and j.run_id not in order]
    return [
        RunAccount(
            run,
            tuple(m for m in models if m.run_id == run),
            tuple(j for j in judges if j.run_id == run),
            tuple(s for s in servers if s.run_id == run),
        )
        for run in order
    ]
