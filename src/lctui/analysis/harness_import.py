"""What the importers of the original harnesses' results share (HELMET, RULER, LongBench v2).

Each importer reads the files one harness writes and records them as one run per model
and folder (or file) given, under a model of its own (`helmet:NAME`, `ruler:NAME`,
`longbench:NAME` unless the user names it), beside lctui's own runs. Ids are hashes of
what the files say, so importing the same files again adds nothing: `ImportRuns` opens
the runs and knows which generations they already hold. A file that cannot be used is
one line of the summary's `problems` (with why), and the others are imported. An
import lands whole or not at all (`Store.import_writes`: when it fails or is
interrupted, what it wrote is taken back), and never leaves a run `running`.

Files are found with `files_within` (links out of the folder given are refused) and
read with tasks/bounded_read.py; a field a harness wrote is checked for its type and
range (`whole_number`) before it reaches the store, and a message quotes a value only
through `shown` (escaped, short).
"""

from __future__ import annotations

import functools
import json
import math
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lctui.core.errors import UserInputError
from lctui.core.hashing import stable_hash
from lctui.core.types import CallRecord, Example, Generation, GenerationStatus, ModelSpec, Score
from lctui.store.db import Store
from lctui.store.importing import ImportWriter
from lctui.store.read.runs import model_generation_ids
from lctui.tasks.bounded_read import shown

Progress = Callable[[int, int, Path], None]
# Bad lines of one file listed one by one before the rest are counted in one line.
LISTED_LINES = 10
# Lengths and token counts a harness records: 100M tokens is far past any context, and
# within the store's 32-bit columns.
MOST_TOKENS = 100_000_000


@dataclass(frozen=True)
class ImportSummary:
    """What an import read and wrote."""

    files: int  # result files found
    imported: int  # of them read (some of their lines may have been left out)
    examples: int  # examples (answers) read
    added: int  # generations written (0 when everything was already there)
    models: tuple[str, ...]
    problems: tuple[str, ...] = ()  # one line per file or line not imported (or doubtful)
    runs: tuple[str, ...] = field(default=())


class BadFile(Exception):
    """A result file that cannot be imported; str() says why."""


@dataclass(frozen=True)
class Harness:
    """The original harness an importer reads: the prefix of its model names and ids."""

    key: str  # "helmet", "ruler", "longbench"
    title: str  # how messages name it: "HELMET", "RULER", "LongBench v2"
    command: str  # the import command's kind: "helmet-results", ...
    backend: str  # the backend its models are recorded with (store/scorer_versions.py)

    def model_name(self, path_or_name: str) -> str:
        """`KEY:NAME` for a model path or name (its last path part)."""
        return f"{self.key}:" + path_or_name.rstrip("/").rsplit("/", 1)[-1]

    def model_id(self, name: str) -> str:
        return _model_id(self.key, name)

    def run_id(self, model: str, source: Path) -> str:
        """One run per model and folder (or file) imported."""
        return f"{self.key}-" + stable_hash(f"{self.key}-import-run", model, str(source), length=12)

    def settings_hash(self, settings: Mapping[str, Any]) -> str:
        """The config hash of a generation's decoding settings (part of its key)."""
        return stable_hash(f"{self.key}-config", json.dumps(settings, sort_keys=True, default=str))


@functools.cache
def _model_id(key: str, name: str) -> str:
    return stable_hash(f"{key}-import", name)


class ImportRuns:
    """The runs one import writes into: one per model, started with its first new
    generation (an import that adds nothing starts none), finished at the end.

    Everything goes through `writer`, the import's writer (`Store.import_writes`),
    which takes it all back if the import fails; `store` is read. `known` holds the ids
    of the generations of the import's models already stored, by any run (the same file
    imported before, alone or within a folder), and those written since: a generation
    read again is skipped.
    """

    def __init__(self, store: Store, writer: ImportWriter, harness: Harness, source: Path) -> None:
        self.store = store
        self.writer = writer
        self.harness = harness
        self.source = source
        self.runs: dict[str, str] = {}  # model name -> run id
        self.known: set[str] = set()
        self._commands: dict[str, dict[str, Any]] = {}  # run id -> command, until started
        self._started: list[str] = []

    def open(self, model: str, path: str, command: Mapping[str, Any] | None = None) -> str:
        """The run of `model` (recorded from `path`); its id."""
        if model in self.runs:
            return self.runs[model]
        run_id = self.harness.run_id(model, self.source)
        spec = ModelSpec(
            name=model,
            backend=self.harness.backend,
            path=path,
            description=f"{self.harness.title}'s own results (lctui import {self.harness.command})",
        )
        model_id = self.harness.model_id(model)
        self.writer.add_model(spec, model_id, "", 0)
        argv = ["import", self.harness.command, str(self.source)]
        self._commands[run_id] = {"argv": argv, **(command or {})}
        self.known |= model_generation_ids(self.store, [model_id])
        self.runs[model] = run_id
        return run_id

    def write(
        self,
        generation: Generation,
        config: Mapping[str, Any],
        example: Example,
        scores: Iterable[Score],
    ) -> bool:
        """Write a generation with its example and scores unless it is stored; whether
        it was written."""
        if generation.generation_id in self.known:
            return False
        self.known.add(generation.generation_id)
        command = self._commands.pop(generation.run_id, None)
        if command is not None:
            self.writer.start_run(generation.run_id, command)
            self._started.append(generation.run_id)
        self.writer.add_example(example)
        self.writer.add_generation(generation, config)
        for score in scores:
            self.writer.add_score(generation.generation_id, score)
        return True

    def finish(self) -> tuple[str, ...]:
        """Mark the runs started finished (writing what is buffered); their ids, by model."""
        for run_id in self._started:
            self.writer.finish_run(run_id, "finished")
        self.writer.flush(force=True)
        return tuple(r for r in (self.runs[m] for m in sorted(self.runs)) if r in self._started)


def imported_generation(
    *,
    generation_id: str,
    gen_key: str,
    run_id: str,
    model_id: str,
    example_id: str,
    config_hash: str,
    output: str,
    prompt_tokens: int = 0,
    output_tokens: int = 0,
    started_at: float | None = None,
    prompt_tail: str = "",
    calls: tuple[CallRecord, ...] = (),
) -> Generation:
    """A generation a harness made: it succeeded (its files keep no failed request), and
    the harness recorded no time to first token nor latency (0)."""
    return Generation(
        generation_id=generation_id,
        gen_key=gen_key,
        run_id=run_id,
        model_id=model_id,
        example_id=example_id,
        config_hash=config_hash,
        status=GenerationStatus.OK,
        output=output,
        prompt_tokens=prompt_tokens,
        output_tokens=output_tokens,
        ttft_s=None,
        latency_s=0.0,
        finish_reason=None,
        error=None,
        started_at=time.time() if started_at is None else started_at,
        prompt_tail=prompt_tail,
        calls=calls,
    )


def number(value: Any) -> float | None:
    """A finite number (a bool as 0/1), else None."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    return None


def whole_number(value: Any, what: str, least: int = 0, most: int = MOST_TOKENS) -> int:
    """`value` as a whole number from `least` to `most` (an integral float, or digits in
    a string, pass); BadFile naming `what` and the value otherwise."""
    digits = isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 20
    if digits or (isinstance(value, float) and value.is_integer()):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= most:
        raise BadFile(f"{what} is {shown(value)}, not a whole number from {least:,} to {most:,}")
    return value


def unreadable(path: Path, err: OSError, *, midway: bool) -> str:
    """The problem line of a file that cannot be read. UserInputError when it failed
    `midway`, after some of its rows were written: the import is taken back rather
    than keep part of a file."""
    why = f"{path}: not readable ({err.strerror or err})"
    if midway:
        raise UserInputError(f"{why}; it failed after some of its lines, so nothing was imported")
    return why


class LineProblems:
    """The bad lines of one file: the first LISTED_LINES as `FILE:LINE: why`, then a
    count of the rest, so a broken file does not flood the report."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lines: list[str] = []
        self.count = 0

    def add(self, line: int, why: str) -> None:
        self.count += 1
        if self.count <= LISTED_LINES:
            self.lines.append(f"{self.path}:{line}: {why}; line skipped")

    def report(self) -> list[str]:
        extra = self.count - len(self.lines)
        more = [f"{self.path}: {extra} more bad line(s) skipped"] if extra else []
        return [*self.lines, *more]
