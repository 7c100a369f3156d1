"""Which server answers what: the shares of the models served from several base URLs.

A backend that spreads a model's requests over servers (`ReportsServers`, the openai
backend) keeps per server its attempts, answers, errors and latency. While a run goes,
`ServerWatch` polls them about once a second and sends `ServersReported` when they
changed, so every sink (the live screen, a viewer of a detached run) sees them as they
move; at the end of the run its `notes` go onto the run's record (`runs.command`, under
`RUN_SERVERS`), where `lctui stats` reads them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from lctui.core.events import EventSink, ServersReported
from lctui.core.protocols import Backend, ReportsServers
from lctui.core.types import RUN_SERVERS, ServerShare

SERVERS_EVERY_S = 1.0


class ServerWatch:
    """Polls the servers' tallies of a run's models (those with any) into events."""

    def __init__(self, sink: EventSink, backends: Mapping[str, Backend]) -> None:
        self._sink = sink
        self._watched: dict[str, ReportsServers] = {
            m: b for m, b in backends.items() if isinstance(b, ReportsServers)
        }
        self._last: dict[str, tuple[ServerShare, ...]] = {}

    def poll(self) -> None:
        """Send the shares of each model whose shares changed since the last poll."""
        for model, backend in self._watched.items():
            shares = backend.server_shares()
            if shares != self._last.get(model):
                self._last[model] = shares
                self._sink(ServersReported(model, shares))

    async def run(self) -> None:
        """Poll until cancelled."""
        if not self._watched:
            return
        while True:
            await asyncio.sleep(SERVERS_EVERY_S)
            self.poll()

    def notes(self) -> dict[str, Any]:
        """What the run's record keeps: {"servers": {model: [share, ...]}}, or nothing."""
        if not self._last:
            return {}
        return {RUN_SERVERS: {m: [s.as_dict() for s in shares] for m, shares in self._last.items()}}
