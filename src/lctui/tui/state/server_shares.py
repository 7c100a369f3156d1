"""The servers of a run's models as the live screens show them: one row per server of
a model served from several base URLs (its share of the requests, answers, errors,
latency), from the `ServersReported` events a `RunState` keeps."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from lctui.analysis.accounting import request_shares
from lctui.core.text import shorten
from lctui.core.types import ServerShare


@dataclass(frozen=True)
class ServerRow:
    model: str
    server: str  # host:port, or the whole URL when it has no host
    share: float | None
    requests: int
    ok: int
    errors: int
    in_flight: int
    latency_s: float | None
    ttft_s: float | None
    last_error: str | None


def server_rows(
    servers: Mapping[str, tuple[ServerShare, ...]], *, several_only: bool = True
) -> list[ServerRow]:
    """Rows of the models served from more than one server (any model: `several_only` off)."""
    rows = []
    for model, shares in servers.items():
        if several_only and len(shares) < 2:
            continue
        for share, part in zip(shares, request_shares(shares), strict=True):
            rows.append(
                ServerRow(
                    model=model,
                    server=urlsplit(share.url).netloc or share.url,
                    share=part,
                    requests=share.requests,
                    ok=share.ok,
                    errors=share.errors,
                    in_flight=share.in_flight,
                    latency_s=share.latency_s,
                    ttft_s=share.ttft_s,
                    last_error=share.last_error,
                )
            )
    return rows


def server_lines(rows: list[ServerRow], width: int = 80) -> list[str]:
    """One line per row, `127.0.0.1:8001  52% 13 req 0 err lat 1.20 s`, cut to `width`
    cells; the model leads each line when rows of several models are shown."""
    several = len({row.model for row in rows}) > 1
    lines = []
    for row in rows:
        share = "  -" if row.share is None else f"{row.share:4.0%}"
        latency = "lat —" if row.latency_s is None else f"lat {row.latency_s:.2f} s"
        line = f"{row.server} {share} {row.requests} req {row.errors} err {latency}"
        lines.append(shorten(f"{row.model} {line}" if several else line, width, cells=True))
    return lines
