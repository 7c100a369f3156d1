"""Endpoints typed into the launch screen: `URL` or `URL#MODEL`, and the model a URL that
names none gets from its server (a loopback stand-in server)."""

from __future__ import annotations

import pytest

from helpers.fake_openai_server import FakeOpenAIServer
from lctui.core.errors import UserInputError
from lctui.tui.state.run_options import url_spec, with_served_model


def test_a_url_may_name_the_model_its_server_serves() -> None:
    plain = url_spec("http://127.0.0.1:8000/v1")
    named = url_spec("http://127.0.0.1:8000/v1#Qwen/Qwen2.5-7B")
    assert (plain.name, dict(plain.params)) == (
        "http://127.0.0.1:8000/v1",
        {"base_url": "http://127.0.0.1:8000/v1"},
    )
    assert named.name == "http://127.0.0.1:8000/v1#Qwen/Qwen2.5-7B"
    assert dict(named.params) == {
        "base_url": "http://127.0.0.1:8000/v1",
        "model": "Qwen/Qwen2.5-7B",
    }
    with pytest.raises(UserInputError, match="not a valid endpoint URL"):
        url_spec("ftp://example.org#m")


def test_a_url_that_names_no_model_gets_the_one_its_server_serves() -> None:
    with FakeOpenAIServer("served-name", ["hi"]) as server:
        spec = with_served_model(url_spec(server.base_url))
        named = url_spec(f"{server.base_url}#other")
        assert with_served_model(named) is named  # named: left as the user wrote it
    assert spec.params["model"] == "served-name"
