"""Integration fixtures: one real vLLM server (SmolLM2 on loopback) per test session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from helpers.serving import LoopbackServer, start_test_server


@pytest.fixture(scope="session")
def vllm_test_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LoopbackServer]:
    """Started on first use (30 s to 2 min on 2 cores) and stopped at the end of the session."""
    server = start_test_server(tmp_path_factory.mktemp("vllm-server"))
    yield server
    server.stop()
