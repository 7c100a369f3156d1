"""The `lctui.toml` config: declared models and defaults, validated strictly.

Found as `--config PATH`, else `./lctui.toml`, else `~/.config/lctui/lctui.toml`.
Every unknown key or bad value is rejected with the file, the key and the reason.

    db = "~/evals/lctui.duckdb"          # optional default database

    [models.llama-8b]
    backend = "hf"                       # hf | vllm | openai | gold
    path = "/models/Llama-3.1-8B-Instruct"
    description = "base checkpoint"
    prompt_format = "chat"               # auto | chat | plain
    dtype = "bfloat16"                   # auto | bfloat16 | float16 | float32
    max_context = 131072
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lctui.core.errors import UserInputError
from lctui.core.types import ModelSpec

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

BACKENDS = ("hf", "vllm", "openai", "gold")
_TOP_KEYS = {"db": str, "models": dict}
_MODEL_KEYS: dict[str, type | tuple[type, ...]] = {
    "backend": str,
    "path": str,
    "description": str,
    "prompt_format": str,
    "dtype": str,
    "device": str,
    "max_context": int,
    "tokenizer": str,
    "base_url": (str, list),
    "api_key_env": str,
    "max_concurrency": int,
}
_KIND_NAMES = {int: "an integer", str: "a string", list: "a list", dict: "a table"}
_CHOICES = {
    "backend": BACKENDS,
    "prompt_format": ("auto", "chat", "plain"),
    "dtype": ("auto", "bfloat16", "float16", "float32"),
}


@dataclass(frozen=True)
class Config:
    path: Path | None = None
    db: Path | None = None
    models: Mapping[str, ModelSpec] = field(default_factory=dict)


def find_config(explicit: str | None) -> Path | None:
    if explicit:
        path = Path(explicit).expanduser()
        if not path.is_file():
            raise UserInputError(f"config file {path} does not exist")
        return path
    for candidate in (Path.cwd() / "lctui.toml", _user_config()):
        if candidate.is_file():
            return candidate
    return None


def _user_config() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME")
    return (Path(base) if base else Path.home() / ".config") / "lctui" / "lctui.toml"


def load_config(explicit: str | None = None) -> Config:
    path = find_config(explicit)
    if path is None:
        return Config()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise UserInputError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise UserInputError(f"{path}: cannot read the config file: {exc.strerror}") from None
    return parse_config(data, path)


def parse_config(data: Mapping[str, Any], path: Path) -> Config:
    for key, value in data.items():
        if key not in _TOP_KEYS:
            raise UserInputError(
                f"{path}: unknown key {key!r} (known: {', '.join(sorted(_TOP_KEYS))})"
            )
        if not isinstance(value, _TOP_KEYS[key]):
            kind = _KIND_NAMES.get(_TOP_KEYS[key], "another type")
            raise UserInputError(f"{path}: {key} must be {kind}")
    models = {
        name: _parse_model(name, body, path) for name, body in dict(data.get("models", {})).items()
    }
    db = Path(str(data["db"])).expanduser() if "db" in data else None
    return Config(path=path, db=db, models=models)


def _parse_model(name: str, body: Any, path: Path) -> ModelSpec:
    where = f"{path}: models.{name}"
    if not isinstance(body, dict):
        raise UserInputError(f"{where} must be a table of settings")
    for key, value in body.items():
        if key not in _MODEL_KEYS:
            raise UserInputError(
                f"{where}: unknown key {key!r} (known: {', '.join(sorted(_MODEL_KEYS))})"
            )
        expected = _MODEL_KEYS[key]
        if isinstance(value, bool) or not isinstance(value, expected):
            kinds = expected if isinstance(expected, tuple) else (expected,)
            names = " or ".join(_KIND_NAMES.get(k, k.__name__) for k in kinds)
            raise UserInputError(f"{where}: {key} must be {names}, not {value!r}")
        if key in _CHOICES and value not in _CHOICES[key]:
            raise UserInputError(
                f"{where}: {key} = {value!r} is not one of {', '.join(_CHOICES[key])}"
            )
    if "backend" not in body:
        raise UserInputError(f"{where}: missing key 'backend' ({', '.join(BACKENDS)})")
    if body["backend"] in ("hf", "vllm") and "path" not in body:
        raise UserInputError(f"{where}: missing key 'path' (a local checkpoint or a model name)")
    if "max_context" in body and body["max_context"] < 256:
        raise UserInputError(f"{where}: max_context must be at least 256")
    params = {k: v for k, v in body.items() if k not in ("backend", "path", "description")}
    return ModelSpec(
        name=name,
        backend=body["backend"],
        path=str(body.get("path", "")),
        params=params,
        description=str(body.get("description", "")),
        reference=body["backend"] == "gold",
    )
