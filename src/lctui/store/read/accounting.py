"""Per-run accounting as stored: the `run_model_stats` and `judge_stats` views
(store/stats_views.py) for one run or all of them, and the shares of the servers a
model's requests were spread over (kept on a run's command under RUN_SERVERS by the
engine, engine/servers.py). Prices and rates are the analysis's (analysis/accounting.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from lctui.core.types import RUN_SERVERS, ServerShare
from lctui.store.read.arrow import query_arrow
from lctui.store.read.source import Source


@dataclass(frozen=True)
class RunModelUsage:
    """One row of `run_model_stats`: a run's attempts of one model."""

    run_id: str
    model: str
    model_id: str
    reference: bool
    served: str | None  # the name an OpenAI-compatible server knows, if any
    generations: int
    ok: int
    errors: int
    cancelled: int
    prompt_tokens: int
    output_tokens: int
    busy_s: float
    wall_s: float | None
    ttft_p50_s: float | None
    ttft_p90_s: float | None
    ttft_p99_s: float | None
    latency_p50_s: float | None


@dataclass(frozen=True)
class JudgeUsage:
    """One row of `judge_stats`: the calls of one judge model for one run."""

    run_id: str | None  # None: calls whose generation is no longer stored
    judge: str
    served: str | None
    calls: int
    unparsed: int
    prompt_tokens: int
    output_tokens: int


def run_model_usage(src: Source, run_id: str | None = None) -> list[RunModelUsage]:
    """Per run and model, most recent runs first (all runs when `run_id` is None)."""
    sql = (
        "SELECT s.* FROM run_model_stats AS s LEFT JOIN runs USING (run_id) "
        "WHERE CAST(? AS TEXT) IS NULL OR s.run_id = ? "
        "ORDER BY runs.started_at DESC NULLS LAST, s.run_id DESC, s.model"
    )
    return [RunModelUsage(**r) for r in query_arrow(src, sql, [run_id, run_id]).to_pylist()]


def judge_usage(src: Source, run_id: str | None = None) -> list[JudgeUsage]:
    """Judge calls per run and judge model."""
    sql = (
        "SELECT * EXCLUDE (judge_model) FROM judge_stats "
        "WHERE CAST(? AS TEXT) IS NULL OR run_id = ? ORDER BY run_id, judge"
    )
    return [JudgeUsage(**r) for r in query_arrow(src, sql, [run_id, run_id]).to_pylist()]


@dataclass(frozen=True)
class RunServerUsage:
    """One server of one model in one run, as the run's record keeps it."""

    run_id: str
    model: str
    server: ServerShare


def run_server_usage(src: Source, run_id: str | None = None) -> list[RunServerUsage]:
    """The servers of each run that kept them, per model in the order of its base URLs."""
    path = f"$.{RUN_SERVERS}"
    sql = (
        f"SELECT run_id, CAST(json_extract(command, '{path}') AS TEXT) AS servers FROM runs "
        "WHERE (CAST(? AS TEXT) IS NULL OR run_id = ?) "
        f"AND json_extract(command, '{path}') IS NOT NULL "
        "ORDER BY started_at DESC, run_id DESC"
    )
    out = []
    for row in query_arrow(src, sql, [run_id, run_id]).to_pylist():
        kept = json.loads(row["servers"])
        if not isinstance(kept, dict):
            continue  # not a record lctui wrote
        for model, shares in sorted(kept.items()):
            for share in shares if isinstance(shares, list) else []:
                server = ServerShare.from_dict(share)
                out.append(RunServerUsage(row["run_id"], str(model), server))
    return out
