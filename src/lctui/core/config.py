"""The `lctui.toml` config: declared models and defaults, validated strictly.

Found as `--config PATH`, else `./lctui.toml`, else `~/.config/lctui/lctui.toml`.
Every unknown key or bad value is rejected with the file, the key and the reason; a
model takes the keys of its backend's settings table (`core/backend_settings.py`).

    db = "~/evals/lctui.duckdb"          # optional default database
    data_dir = "~/data/helmet"           # optional: real datasets (a folder or hf://ORG/NAME)

    [models.llama-8b]
    backend = "hf"                       # hf | vllm | vllm-server | openai | gold
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

from lctui.core.backend_settings import BACKENDS, MODEL_FIELDS, NEEDS_PATH, settings_of
from lctui.core.errors import UserInputError
from lctui.core.types import ModelSpec

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

_TOP_KEYS = {"db": str, "data_dir": str, "models": dict, "prices": dict}
_KIND_NAMES = {
    int: "an integer", float: "a number", str: "a string", list: "a list", dict: "a table",
    bool: "true or false",
}  # fmt: skip


@dataclass(frozen=True)
class Config:
    path: Path | None = None
    db: Path | None = None
    models: Mapping[str, ModelSpec] = field(default_factory=dict)
    # Hosted-API prices in dollars per million tokens: model name -> (input, output).
    prices: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    # Where real datasets are read (tasks/datasets.py): a folder (relative ones from the
    # config file's folder) or a hub dataset `hf://ORG/NAME`; `--data` overrides it.
    data_dir: str | None = None


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
        raw = path.read_bytes()
    except OSError as exc:
        raise UserInputError(f"{path}: cannot read the config file: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise UserInputError(
            f"{path}: not valid UTF-8 at byte {exc.start} (line {line}); save the file as UTF-8"
        ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        # The parser's message ends with "(at line L, column C)".
        raise UserInputError(f"{path}: not valid TOML: {exc}") from None
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
    prices = {
        name: _parse_price(name, body, path) for name, body in dict(data.get("prices", {})).items()
    }
    data_dir = str(data["data_dir"]) if "data_dir" in data else None
    if data_dir is not None and not data_dir.startswith("hf://"):
        data_dir = str(path.parent / Path(data_dir).expanduser())
    return Config(path=path, db=db, models=models, prices=prices, data_dir=data_dir)


def _parse_price(name: str, body: Any, path: Path) -> tuple[float, float]:
    """prices.NAME = { input = 2.5, output = 10.0 } (dollars per million tokens)."""
    where = f"{path}: prices.{name}"
    if not isinstance(body, dict) or set(body) != {"input", "output"}:
        raise UserInputError(
            f"{where} must be a table with exactly the keys input and output "
            "(dollars per million tokens), e.g. {{ input = 2.5, output = 10.0 }}"
        )
    values = []
    for key in ("input", "output"):
        value = body[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise UserInputError(f"{where}: {key} must be a number >= 0, not {value!r}")
        values.append(float(value))
    return values[0], values[1]


def _parse_model(name: str, body: Any, path: Path) -> ModelSpec:
    """A model's table: its backend first, then each key against that backend's settings
    table (`core/backend_settings.py`), which the backend reads them with too."""
    where = f"{path}: models.{name}"
    if not isinstance(body, dict):
        raise UserInputError(f"{where} must be a table of settings")
    if "backend" not in body:
        raise UserInputError(f"{where}: missing key 'backend' ({', '.join(BACKENDS)})")
    backend = body["backend"]
    _check_value(where, "backend", backend, (str,), BACKENDS)
    table = settings_of(backend)
    for key, value in body.items():
        if key in MODEL_FIELDS:
            _check_value(where, key, value, (MODEL_FIELDS[key],), ())
        elif key in table:
            _check_value(where, key, value, table[key].kinds, table[key].choices)
        else:
            known = ", ".join(sorted({*MODEL_FIELDS, *table}))
            raise UserInputError(
                f"{where}: unknown key {key!r} for backend {backend!r} (known: {known})"
            )
    if backend in NEEDS_PATH and "path" not in body:
        raise UserInputError(f"{where}: missing key 'path' (a local checkpoint or a model name)")
    if "max_context" in body and body["max_context"] < 256:
        raise UserInputError(f"{where}: max_context must be at least 256")
    params = {k: v for k, v in body.items() if k not in MODEL_FIELDS}
    return ModelSpec(
        name=name,
        backend=backend,
        path=str(body.get("path", "")),
        params=params,
        description=str(body.get("description", "")),
        reference=backend == "gold",
    )


def _check_value(
    where: str, key: str, value: object, kinds: tuple[type, ...], choices: tuple[str, ...]
) -> None:
    if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
        names = " or ".join(_KIND_NAMES.get(k, k.__name__) for k in kinds)
        raise UserInputError(f"{where}: {key} must be {names}, not {value!r}")
    if choices and value not in choices:
        raise UserInputError(f"{where}: {key} = {value!r} is not one of {', '.join(choices)}")
