"""Import LIFBench's published per-point scores (`{scenario}-{task}.csv`) into a store.

Each CSV row becomes an example (shared by all models: same task, length, expression
and variable level), a generation with empty output, a `lifeval`/`ars` score and its
rubric points, so that the metrics of analysis/metrics.py run on imported scores and
on our own runs alike. Every id is a hash of the row's identity, so importing the same
folder twice adds nothing. The scores are the original's own, made by no version of
lctui's scorer: they carry no scorer version (NULL), so they are never flagged as made
by an older one, and their model's backend `imported` keeps `lctui rescore` away from
their empty outputs (store/scorer_versions.py).
"""

from __future__ import annotations

import csv
import functools
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from lctui.core.errors import LctuiError
from lctui.core.hashing import stable_hash
from lctui.core.text import escape_unprintable
from lctui.core.types import (
    Example,
    Generation,
    GenerationStatus,
    ModelSpec,
    RubricPoint,
    Score,
    ScoreStatus,
)
from lctui.store.db import Store
from lctui.store.importing import ImportWriter
from lctui.store.read.runs import run_generation_ids
from lctui.store.scorer_versions import PUBLISHED_BACKEND
from lctui.suites.lifbench.scoring.point_specs import LIFEVAL_TASKS, TaskSpec
from lctui.tasks.bounded_read import FileProblem, files_within, shown, text_lines

SCORER = "lifeval"
METRIC = "ars"
SUITE = "lifbench"
REFERENCE_MODEL = "standard"  # the published row of reference answers
TOKENIZER = "o200k_base"  # LIFBench counts lengths with the gpt-4o tokenizer
KEY_COLUMNS = ("model", "ins_id", "param_id", "length")
_TOTAL = "total_score"
_TOLERANCE = 1e-9  # published fractions are floats; allow rounding noise only
# Bounds of what a score file holds: a row is about 100 bytes; the levels (0-11, 0-5
# published) must stay below 1000 for the example index ins_id * 1000 + param_id;
# lengths are in thousands of tokens (3-120 published).
_MAX_LINE_BYTES = 64 * 1024
_MOST_LEVEL = 999
_MOST_LENGTH = 65_536
_MAX_MODEL_CHARS = 200
_KEPT_EXAMPLES = 100_000  # examples built per file before the cache starts again


class LifbenchImportError(LctuiError):
    """A published score file that cannot be imported; the message names file and row."""


@dataclass(frozen=True)
class ImportSummary:
    files: int
    rows: int  # CSV rows read
    added: int  # generations written (0 when everything was already there)
    models: tuple[str, ...]


@functools.cache
def model_id_for(name: str) -> str:
    return stable_hash("lifbench-import", name)


@functools.cache
def run_id_for(name: str) -> str:
    return "lifbench-" + stable_hash("lifbench-import-run", name, length=12)


def generation_id_for(model_id: str, example_id: str) -> str:
    return stable_hash("lifbench-gen", model_id, example_id)


def _task_for(path: Path) -> tuple[str, TaskSpec]:
    scenario, sep, task = path.stem.partition("-")
    spec = LIFEVAL_TASKS.get(task)
    if not sep or spec is None or spec.scenario != scenario:
        known = ", ".join(f"{t.scenario}-{t.name}.csv" for t in LIFEVAL_TASKS.values())
        raise LifbenchImportError(
            f"{_named(path)}: not a LIFBench score file name; expected one of {known}"
        )
    return scenario, spec


def _fraction(path: Path, line: int, column: str, raw: str | None, *, bounded: bool) -> float:
    try:
        value = float(raw if raw is not None else "")
    except ValueError:
        raise LifbenchImportError(
            f"{_named(path)}, row {line}, column {column!r}: {shown(raw)} is not a number"
        ) from None
    hi = 1.0 if bounded else math.inf
    if not math.isfinite(value) or not -_TOLERANCE <= value <= hi + _TOLERANCE:
        raise LifbenchImportError(
            f"{_named(path)}, row {line}, column {column!r}: {shown(value)} lies outside 0-1"
        )
    return value


def _level(path: Path, line: int, column: str, raw: str | None, most: int, least: int = 0) -> int:
    text = (raw or "").strip()
    # Digits only: int() would also take "+3", "1_000" and other scripts' digits.
    value = int(text) if text.isascii() and text.isdigit() and len(text) <= 9 else None
    if value is None or not least <= value <= most:
        raise LifbenchImportError(
            f"{_named(path)}, row {line}, column {column!r}: {shown(raw)} is not a whole "
            f"number from {least} to {most}"
        )
    return value


def _named(path: Path) -> str:
    return escape_unprintable(str(path))


def import_lifbench_scores(store: Store, folder: str | Path) -> ImportSummary:
    """Import every `{scenario}-{task}.csv` in `folder`: all of it, or nothing.

    Raises LifbenchImportError (naming file, row and column) for an unknown file name, a
    link that leads out of the folder, a missing column, a line that is not UTF-8 or
    too long, a non-number, a level out of range or a fraction outside 0-1; nothing is
    written then.
    """
    root = Path(folder)
    if not root.is_dir():
        raise LifbenchImportError(f"{_named(root)} is not a folder")
    paths, refused = files_within(root, (".csv",), recursive=False)
    if refused:
        raise LifbenchImportError(f"{refused[0]}; nothing was imported")
    if not paths:
        raise LifbenchImportError(f"{_named(root)} holds no .csv files")
    tasks = [(path, *_task_for(path)) for path in paths]  # every name checked first
    rows = added = 0
    models: dict[str, set[str]] = {}  # model -> ids of the generations its run holds
    with store.import_writes() as writer:
        for path, scenario, task in tasks:
            for model, example, total, fractions in _read_file(path, scenario, task):
                rows += 1
                known = models.get(model)
                if known is None:
                    known = models[model] = _start(store, writer, root, model)
                added += _write(writer, model, example, task, total, fractions, known)
        for model in models:
            writer.finish_run(run_id_for(model), "finished")
    return ImportSummary(len(paths), rows, added, tuple(sorted(models)))


def _start(store: Store, writer: ImportWriter, root: Path, model: str) -> set[str]:
    """Record `model` and start its run; the generations the run already holds."""
    spec = ModelSpec(
        name=model,
        backend=PUBLISHED_BACKEND,
        description="LIFBench published scores",
        reference=model == REFERENCE_MODEL,
    )
    writer.add_model(spec, model_id_for(model), TOKENIZER, 0)
    writer.start_run(run_id_for(model), {"argv": ["import", "lifbench-scores", str(root)]})
    return run_generation_ids(store, [run_id_for(model)])


def _write(
    writer: ImportWriter,
    model: str,
    example: Example,
    task: TaskSpec,
    total: float,
    fractions: tuple[float, ...],
    known: set[str],
) -> bool:
    """Write one row's generation and score unless its run holds it; whether it did."""
    model_id = model_id_for(model)
    gen_id = generation_id_for(model_id, example.example_id)
    if gen_id in known:
        return False
    known.add(gen_id)
    writer.add_example(example)
    writer.add_generation(
        Generation(
            generation_id=gen_id,
            gen_key=gen_id,
            run_id=run_id_for(model),
            model_id=model_id,
            example_id=example.example_id,
            config_hash="",
            status=GenerationStatus.OK,
            output="",
            prompt_tokens=0,
            output_tokens=0,
            ttft_s=None,
            latency_s=0.0,
            finish_reason=None,
            error=None,
            started_at=time.time(),
        ),
        {},
    )
    # Built directly, not with make_point: it would clamp the few published values
    # above 1 (lifeval/point_specs.py, find_dup_text), and _read_file checked all.
    points = tuple(
        RubricPoint(p.name, p.weight, f, "imported", p.capabilities)
        for p, f in zip(task.points, fractions, strict=True)
    )
    # No scorer_version: the original's number, not one of lctui's rules.
    writer.add_score(
        gen_id,
        Score(SCORER, METRIC, total, ScoreStatus.OK, (), "imported", points, scorer_version=None),
    )
    return True


_Row = tuple[str, Example, float, tuple[float, ...]]


def _read_file(path: Path, scenario: str, task: TaskSpec) -> Iterator[_Row]:
    """The rows of a score file, checked, one at a time."""
    try:
        with path.open("rb") as handle:
            reader = csv.DictReader(text_lines(handle, path, _MAX_LINE_BYTES))
            try:
                yield from _rows(path, scenario, task, reader)
            except csv.Error as err:  # its words name no content: "field larger than ..."
                why = f"{_named(path)}, row {reader.line_num}: {err}"
                raise LifbenchImportError(why) from None
    except FileProblem as err:
        raise LifbenchImportError(f"{_named(path)}, row {err.line}: {err.why}") from None
    except OSError as err:
        raise LifbenchImportError(f"{_named(path)}: not readable ({err.strerror or err})") from None


def _rows(path: Path, scenario: str, task: TaskSpec, reader: csv.DictReader[str]) -> Iterator[_Row]:
    point_names = [p.name for p in task.points]
    bounded_total = all(p.bounded for p in task.points)
    seen: set[tuple[str, str]] = set()
    # Every model answered the same prompts: build each example (and hash its id) once.
    examples: dict[tuple[int, int, int], Example] = {}
    header = reader.fieldnames or []
    missing = [c for c in (*KEY_COLUMNS, *point_names, _TOTAL) if c not in header]
    if missing:
        # The header is not quoted: a file that is no score file says nothing of itself.
        raise LifbenchImportError(f"{_named(path)}: missing column(s) {', '.join(missing)}")
    for record in reader:
        line = reader.line_num
        model = (record["model"] or "").strip()
        if not model or len(model) > _MAX_MODEL_CHARS or not model.isprintable():
            raise LifbenchImportError(
                f"{_named(path)}, row {line}, column 'model': {shown(model)} is not a model "
                f"name (printable, 1 to {_MAX_MODEL_CHARS} characters)"
            )
        ins = _level(path, line, "ins_id", record["ins_id"], _MOST_LEVEL)
        param = _level(path, line, "param_id", record["param_id"], _MOST_LEVEL)
        length = _level(path, line, "length", record["length"], _MOST_LENGTH, least=1)
        fractions = tuple(
            _fraction(path, line, p.name, record[p.name], bounded=p.bounded) for p in task.points
        )
        total = _fraction(path, line, _TOTAL, record[_TOTAL], bounded=bounded_total)
        example = examples.get((ins, param, length))
        if example is None:
            if len(examples) >= _KEPT_EXAMPLES:
                examples.clear()
            example_id = stable_hash(SUITE, scenario, task.name, ins, param, length)
            example = _example(example_id, scenario, task, ins, param, length, path)
            examples[ins, param, length] = example
        if (model, example.example_id) in seen:
            raise LifbenchImportError(
                f"{_named(path)}, row {line}: a second row for model {shown(model)}, ins_id "
                f"{ins}, param_id {param}, length {length}"
            )
        seen.add((model, example.example_id))
        yield model, example, total, fractions


def _example(
    example_id: str, scenario: str, task: TaskSpec, ins: int, param: int, length: int, path: Path
) -> Example:
    return Example(
        example_id=example_id,
        task=task.name,
        category=SUITE,
        suite=SUITE,
        length=length * 1024,
        seed=0,
        # Unique within (task, length): levels stay small (ins < 100, param < 1000).
        index=ins * 1000 + param,
        tokenizer=TOKENIZER,
        params={"ins_id": ins, "param_id": param},
        preamble="",
        context="",
        question="",
        answer_prefix="",
        gold=(),
        max_new_tokens=0,
        prompt_tokens=0,
        metadata={
            "expression": ins,
            "variable": param,
            "scenario": scenario,
            "imported_from": path.name,
        },
    )
