"""HELMET's run configurations, read from the user's checkout as its eval.py reads them.

A config (`configs/rag_short.yaml`, ...) is a flat YAML mapping that eval.py's argument
parser takes as its defaults (arguments.py: `parser.set_defaults(**config)`, then every
default that is text is parsed by the argument's type). eval.py's main splits
`datasets`, `test_files` and `demo_files` at commas and pairs them, position by
position, with `input_max_length` and `generation_max_length` (one value for all, or
one per dataset), stopping at the shortest list. Each pair is a `ConfigEntry`: one
dataset at one length, run with the config's `use_chat_template`, `shots`,
`max_test_samples` and `seed`.

The configs are read with a reader of flat mappings (`key: value` lines, YAML's quoted
and plain scalars), the only form HELMET's configs take; anything else is named as a
problem with its file and line, never guessed at.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from pathlib import Path

from lctui.core.errors import UserInputError
from lctui.tasks.bounded_read import MIB, shown, within

CONFIG_FOLDER = "configs"
MAX_CONFIG_BYTES = MIB
# arguments.py's defaults for what a config may leave out.
DEFAULT_SHOTS = 2
DEFAULT_SEED = 42
DEFAULT_INPUT_MAX_LENGTH = 8192
DEFAULT_GENERATION_MAX_LENGTH = 10

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_INT = re.compile(r"[-+]?[0-9]+")
# PyYAML's booleans and nulls (YAML 1.1), which safe_load gives HELMET's parser.
_TRUE = frozenset({"yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"})
_FALSE = frozenset({"no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"})
_NULL = frozenset({"", "~", "null", "Null", "NULL"})

Scalar = str | int | bool | None


@dataclass(frozen=True)
class ConfigEntry:
    """One dataset of a config at one length, with the settings eval.py runs it with."""

    config: str  # the config's file name
    dataset: str  # eval.py's dataset name (`kilt_nq`, `json_kv`, `msmarco_rerank_psg`)
    test_file: str  # as the config writes it, relative to the checkout (`data/...`)
    demo_file: str
    input_max_length: int
    generation_max_length: int
    use_chat_template: bool
    shots: int
    max_test_samples: int | None
    seed: int


class ConfigProblem(ValueError):
    """Why a config cannot be read as eval.py would read it (file and line in the text)."""


def read_flat_yaml(text: str, where: str) -> dict[str, Scalar]:
    """The `key: value` mapping of a flat YAML document, values as safe_load gives them."""
    found: dict[str, Scalar] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#") or line == "---":
            continue
        key, sep, rest = line.partition(":")
        if not sep or not _KEY.fullmatch(key.strip()):
            raise ConfigProblem(f"{where}:{number}: not a `key: value` line: {shown(raw)}")
        found[key.strip()] = _scalar(rest.strip(), f"{where}:{number}")
    return found


def _scalar(text: str, where: str) -> Scalar:
    if text.startswith("'"):
        if len(text) < 2 or not text.endswith("'") or "'" in text[1:-1].replace("''", ""):
            raise ConfigProblem(f"{where}: an unclosed single-quoted value: {shown(text)}")
        return text[1:-1].replace("''", "'")
    if text.startswith('"'):
        try:
            value = json.loads(text)
        except ValueError:
            raise ConfigProblem(
                f"{where}: a double-quoted value JSON cannot read: {shown(text)}"
            ) from None
        if not isinstance(value, str):
            raise ConfigProblem(f"{where}: not one quoted value: {shown(text)}")
        return value
    plain = re.split(r"\s+#", text, maxsplit=1)[0].strip()
    if plain[:1] in ("[", "{", "&", "*", "!", "|", ">"):
        raise ConfigProblem(
            f"{where}: not a plain value (HELMET's configs are flat): {shown(text)}"
        )
    if plain in _TRUE or plain in _FALSE:
        return plain in _TRUE
    if plain in _NULL:
        return None
    if _INT.fullmatch(plain):
        return int(plain)
    return plain


def _int(value: Scalar, name: str, where: str) -> int | None:
    """An integer argument as argparse reads a default: text parsed by `int`."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise ConfigProblem(f"{where}: {name} is {value}, not a number")
    try:
        return int(value)
    except ValueError:
        raise ConfigProblem(f"{where}: {name} is {shown(value)}, not a number") from None


def _flag(value: Scalar, where: str) -> bool:
    """`use_chat_template` as arguments.py reads it (ast.literal_eval of text)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        try:
            parsed = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            parsed = None
        if isinstance(parsed, bool):
            return parsed
    raise ConfigProblem(f"{where}: use_chat_template is {shown(value)}, not True or False")


def _lengths(value: Scalar, count: int, name: str, where: str) -> list[int]:
    """eval.py's per-dataset lengths: one value for every dataset, or a comma list."""
    text = str(value)
    parts = [text] if isinstance(value, int) else text.split(",")
    try:
        numbers = [int(part) for part in parts]
    except ValueError:
        raise ConfigProblem(f"{where}: {name} {shown(value)} is not a list of numbers") from None
    return numbers * count if len(numbers) == 1 else numbers


def config_entries(path: Path) -> list[ConfigEntry]:
    """The datasets of one config as eval.py pairs them; ConfigProblem when it cannot."""
    where = str(path)
    if path.stat().st_size > MAX_CONFIG_BYTES:
        raise ConfigProblem(f"{where}: over {MAX_CONFIG_BYTES // MIB} MiB, no config of HELMET's")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ConfigProblem(f"{where}: not UTF-8 text") from None
    values = read_flat_yaml(text, where)
    datasets = values.get("datasets")
    if not isinstance(datasets, str) or not datasets:
        raise ConfigProblem(f"{where}: names no datasets")
    names = datasets.split(",")
    tests = str(values.get("test_files") or "").split(",")
    demos = str(values.get("demo_files") or "").split(",")
    if len(tests) != len(demos):  # eval.py asserts it
        raise ConfigProblem(f"{where}: {len(tests)} test files but {len(demos)} demo files")
    inputs = _lengths(
        values.get("input_max_length", DEFAULT_INPUT_MAX_LENGTH),
        len(names),
        "input_max_length",
        where,
    )
    outputs = _lengths(
        values.get("generation_max_length", DEFAULT_GENERATION_MAX_LENGTH),
        len(names),
        "generation_max_length",
        where,
    )
    shots = _int(values.get("shots", DEFAULT_SHOTS), "shots", where)
    seed = _int(values.get("seed", DEFAULT_SEED), "seed", where)
    flag = _flag(values.get("use_chat_template", False), where)
    samples = _int(values.get("max_test_samples"), "max_test_samples", where)
    return [
        ConfigEntry(
            config=path.name,
            dataset=name,
            test_file=test,
            demo_file=demo,
            input_max_length=length,
            generation_max_length=budget,
            use_chat_template=flag,
            shots=shots if shots is not None else DEFAULT_SHOTS,
            max_test_samples=samples,
            seed=seed if seed is not None else DEFAULT_SEED,
        )
        # eval.py's zip: the shortest list ends the pairing.
        for name, test, demo, length, budget in zip(
            names, tests, demos, inputs, outputs, strict=False
        )
    ]


def read_configs(checkout: Path, names: list[str]) -> tuple[list[ConfigEntry], list[str]]:
    """The entries of the checkout's configs named (all of configs/*.yaml without
    names), in file order, and one problem line per config that cannot be read."""
    folder = checkout / CONFIG_FOLDER
    if names:
        paths = []
        for name in names:
            path = folder / name
            if "/" in name or name in ("", ".", "..") or not path.is_file():
                raise UserInputError(f"--input-option configs: {folder} has no config {name!r}")
            paths.append(path)
    else:
        paths = sorted(folder.glob("*.yaml"))
        if not paths:
            raise UserInputError(f"{folder} holds no config (*.yaml): is it HELMET's checkout?")
    entries: list[ConfigEntry] = []
    problems: list[str] = []
    for path in paths:
        try:
            entries += config_entries(path)
        except ConfigProblem as err:
            problems.append(f"{err}; config not read")
        except OSError as err:
            problems.append(f"{path}: not readable ({err.strerror or err}); config not read")
    return entries, problems


def resolve_release(root: Path, release: str) -> tuple[Path, Path] | str | None:
    """(the root it lies under, the file) of a path a config names, under `root` (the
    checkout, its data/ folder, or the file itself); None when absent; a problem line
    when it leads out of the root."""
    parts = Path(release).parts
    if not release or Path(release).is_absolute() or ".." in parts:
        return f"{release}: a config's path outside the checkout; not read" if release else None
    shapes = [Path(*parts)]
    if parts[0] == "data" and len(parts) > 1:
        shapes.append(Path(*parts[1:]))
    if root.is_file():
        for shape in shapes:
            if root.parts[-len(shape.parts) :] == shape.parts:
                base = Path(*root.parts[: -len(shape.parts)])
                return base, root.resolve()
        return None
    for shape in shapes:
        candidate = root / shape
        if candidate.is_file():
            if not within(root, candidate):
                return f"{candidate}: a link to outside {root}; not read"
            return root, candidate.resolve()
    return None
