"""The config's price table and the serving settings: parsed, or refused with file and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from lctui.core.config import parse_config
from lctui.core.errors import UserInputError

WHERE = Path("/etc/lctui.toml")


def test_prices_are_dollars_per_million_input_and_output_tokens() -> None:
    config = parse_config({"prices": {"gpt-4o": {"input": 2.5, "output": 10}}}, WHERE)
    assert config.prices == {"gpt-4o": (2.5, 10.0)}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"input": 2.5}, "exactly the keys input and output"),
        ({"input": 2.5, "output": "ten"}, "output must be a number >= 0"),
        ({"input": -1, "output": 1}, "input must be a number >= 0"),
        ("cheap", "must be a table"),
    ],
)
def test_bad_prices_name_the_entry(body: object, message: str) -> None:
    with pytest.raises(UserInputError, match=message) as caught:
        parse_config({"prices": {"m": body}}, WHERE)
    assert "prices.m" in str(caught.value) and str(WHERE) in str(caught.value)


def test_serving_settings_are_typed() -> None:
    body = {
        "backend": "openai",
        "base_url": ["http://a:8000/v1", "http://b:8000/v1"],
        "model": "served-name",
        "endpoint": "completions",
        "timeout_s": 30.5,
        "max_retries": 4,
    }
    spec = parse_config({"models": {"srv": body}}, WHERE).models["srv"]
    assert spec.backend == "openai" and spec.params["timeout_s"] == 30.5
    with pytest.raises(UserInputError, match="endpoint = 'responses' is not one of chat"):
        parse_config({"models": {"srv": {**body, "endpoint": "responses"}}}, WHERE)
    with pytest.raises(UserInputError, match="missing key 'path'"):
        parse_config({"models": {"v": {"backend": "vllm-server"}}}, WHERE)


def test_engine_switches_are_booleans_and_sizes_integers() -> None:
    body = {"backend": "vllm", "path": "/m", "enforce_eager": True, "kv_cache_memory_bytes": 2**30}
    spec = parse_config({"models": {"v": body}}, WHERE).models["v"]
    assert spec.params["enforce_eager"] is True
    with pytest.raises(UserInputError, match="enforce_eager must be true or false"):
        parse_config({"models": {"v": {**body, "enforce_eager": "yes"}}}, WHERE)
    with pytest.raises(UserInputError, match="max_context must be an integer"):
        parse_config({"models": {"v": {**body, "max_context": True}}}, WHERE)
