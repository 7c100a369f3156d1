"""One settings table per backend: config validation and every backend's reader use it.

A key is declared once (`core/backend_settings.py`); the config file accepts exactly
the keys of a model's backend, and each backend's real entry point reads exactly the
same keys (its "unknown setting" error lists them).
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lctui.backends import load_backend
from lctui.backends.hf import HFBackend
from lctui.backends.openai_batch import HOSTED_API_URL, batch_client_settings
from lctui.backends.resilience import read_settings
from lctui.backends.settings import read_params
from lctui.backends.vllm_backend import VLLMBackend, load_vllm
from lctui.backends.vllm_server import load_vllm_server, running_servers
from lctui.core.backend_settings import (
    BACKEND_SETTINGS,
    BACKENDS,
    MODEL_FIELDS,
    Setting,
    vllm_arguments,
)
from lctui.core.config import parse_config
from lctui.core.errors import UserInputError
from lctui.core.hashing import stable_hash
from lctui.core.types import ModelSpec

WHERE = Path("/etc/lctui.toml")
SRC = Path(__file__).resolve().parents[2] / "src" / "lctui"
UNKNOWN = "no_such_setting"


def _sample(setting: Setting) -> Any:
    """A value of the setting's first type that config and readers must accept."""
    if setting.choices:
        return setting.choices[-1]
    samples: dict[type, Any] = {str: "x", int: 4096, float: 0.5, bool: True, list: []}
    return samples[setting.kinds[0]]


def _body(backend: str, **settings: Any) -> dict[str, Any]:
    return {"backend": backend, "path": "/models/m", **settings}


@pytest.mark.parametrize("backend", BACKENDS)
def test_config_accepts_every_declared_key_of_the_backend(backend: str) -> None:
    table = BACKEND_SETTINGS[backend]
    body = _body(backend, **{key: _sample(s) for key, s in table.items()})
    spec = parse_config({"models": {"m": body}}, WHERE).models["m"]
    assert set(spec.params) == set(table)
    assert read_params(spec) == spec.params  # the backend's reader takes them as they are


@pytest.mark.parametrize("backend", BACKENDS)
def test_config_refuses_another_backends_key_naming_the_backend_and_its_keys(
    backend: str,
) -> None:
    table = BACKEND_SETTINGS[backend]
    foreign = sorted({k for t in BACKEND_SETTINGS.values() for k in t} - set(table))
    known = ", ".join(sorted({*MODEL_FIELDS, *table}))
    for key in [*foreign, UNKNOWN]:
        with pytest.raises(UserInputError) as caught:
            parse_config({"models": {"m": _body(backend, **{key: "x"})}}, WHERE)
        message = str(caught.value)
        assert f"unknown key {key!r} for backend {backend!r} (known: {known})" in message
        assert f"{WHERE}: models.m" in message


def _listed_settings(load: Callable[[ModelSpec], object], spec: ModelSpec) -> set[str]:
    """The settings a backend's entry point says it takes, from its refusal of one more."""
    with pytest.raises(UserInputError) as caught:
        load(spec)
    found = re.search(r"the settings are (.*)$", str(caught.value))
    assert found, str(caught.value)
    return set(found.group(1).split(", "))


_LOADERS: dict[str, Callable[[ModelSpec], object]] = {
    "hf": load_backend,
    "gold": load_backend,
    "openai": read_settings,
    "vllm": load_vllm,  # refuses the settings before vllm is imported
    "vllm-server": load_vllm_server,  # refuses them before any server starts
}


@pytest.mark.parametrize("backend", BACKENDS)
def test_each_backend_reads_exactly_the_keys_of_its_table(backend: str) -> None:
    spec = ModelSpec("m", backend, path="/nowhere", params={UNKNOWN: 1})
    assert _listed_settings(_LOADERS[backend], spec) == set(BACKEND_SETTINGS[backend])
    assert not running_servers()


def test_readers_refuse_a_value_of_the_wrong_type_as_config_does() -> None:
    for backend, table in BACKEND_SETTINGS.items():
        for key, setting in table.items():
            wrong = 1.5 if str in setting.kinds else "x"
            spec = ModelSpec("m", backend, path="/nowhere", params={key: wrong})
            with pytest.raises(UserInputError, match=f"setting {key} = .* is invalid"):
                read_params(spec)
            with pytest.raises(UserInputError, match=f"{key} must be"):
                parse_config({"models": {"m": _body(backend, **{key: wrong})}}, WHERE)


def _declared_setting_tables(tree: ast.AST) -> list[int]:
    """Lines of dict literals that map two or more setting names to types."""
    setting_keys = {k for t in BACKEND_SETTINGS.values() for k in t}
    type_names = {"str", "int", "float", "bool", "list", "dict"}

    def is_type(node: ast.expr) -> bool:
        if isinstance(node, ast.Tuple):
            return all(is_type(e) for e in node.elts)
        return isinstance(node, ast.Name) and node.id in type_names

    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict) and node.keys:
            keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
            if len(set(keys) & setting_keys) >= 2 and all(is_type(v) for v in node.values):
                lines.append(node.lineno)
    return lines


def test_no_module_declares_backend_settings_outside_the_table() -> None:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if path.relative_to(SRC).as_posix() == "core/backend_settings.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{path.relative_to(SRC)}:{line}" for line in _declared_setting_tables(tree)]
    assert found == []


@pytest.mark.parametrize(("backend_class", "backend"), [(HFBackend, "hf"), (VLLMBackend, "vllm")])
def test_backend_constructor_defaults_are_the_tables(backend_class: type, backend: str) -> None:
    """vLLM's own engine arguments pass through as they are (their defaults are vLLM's:
    tests/backends/test_vllm_parallel.py); the backend's own keys default as declared."""
    parameters = inspect.signature(backend_class).parameters
    own = set(BACKEND_SETTINGS[backend]) - set(vllm_arguments(backend))
    for key in sorted(own):
        setting = BACKEND_SETTINGS[backend][key]
        if setting.default is not None:
            assert parameters[key].default == setting.default, key
    if backend == "vllm":
        assert own == {"max_context", "prompt_format", "max_concurrency"}


def test_engine_reaches_no_api_client_but_through_backends() -> None:
    """The judge's Batch API client lives in backends/, like every other client."""
    importers = []
    for path in sorted((SRC / "engine").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            if any(name.split(".")[0] == "openai" for name in names):
                importers.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert importers == []


def test_batch_judge_reads_its_settings_through_the_openai_table() -> None:
    hosted = batch_client_settings(ModelSpec("j", "openai", path="gpt-x"))
    assert hosted == {"base_url": HOSTED_API_URL, "api_key_env": "OPENAI_API_KEY", "model": "gpt-x"}
    several = ModelSpec(
        "j", "openai", params={"base_url": ["http://a/v1", "http://b/v1"], "model": "m"}
    )
    assert batch_client_settings(several)["base_url"] == "http://a/v1"
    # The judge's fingerprint is made of these settings: unchanged, cached calls stay found.
    assert stable_hash("openai-batch", hosted) == stable_hash(
        "openai-batch",
        {
            "base_url": "https://api.openai.com/v1",
            "api_key_env": "OPENAI_API_KEY",
            "model": "gpt-x",
        },
    )
    with pytest.raises(UserInputError, match="setting api_key_env = 5 is invalid"):
        batch_client_settings(ModelSpec("j", "openai", params={"api_key_env": 5}))
    with pytest.raises(UserInputError, match=r"unknown setting\(s\) dtype for backend 'openai'"):
        batch_client_settings(ModelSpec("j", "openai", params={"dtype": "auto"}))
