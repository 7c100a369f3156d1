"""Import LIFBench's published per-point scores (`{scenario}-{task}.csv`) into a store.

Each CSV row becomes an example (shared by all models: same task, length, expression
and variable level), a generation with empty output, a `lifeval`/`ars` score and its
rubric points, so that the metrics of analysis/lifbench.py run on imported scores and
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
from dataclasses import dataclass
from pathlib import Path

from lctui.core.errors import LctuiError
from lctui.core.hashing import stable_hash
from lctui.core.types import (
    Example,
    Generation,
    GenerationStatus,
    ModelSpec,
    RubricPoint,
    Score,
    ScoreStatus,
)
from lctui.scoring.lifeval.point_specs import LIFEVAL_TASKS, TaskSpec
from lctui.store.db import Store
from lctui.store.read.runs import run_generation_ids
from lctui.store.scorer_versions import PUBLISHED_BACKEND

SCORER = "lifeval"
METRIC = "ars"
SUITE = "lifbench"
REFERENCE_MODEL = "standard"  # the published row of reference answers
TOKENIZER = "o200k_base"  # LIFBench counts lengths with the gpt-4o tokenizer
KEY_COLUMNS = ("model", "ins_id", "param_id", "length")
_TOTAL = "total_score"
_TOLERANCE = 1e-9  # published fractions are floats; allow rounding noise only


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
            f"{path}: not a LIFBench score file name; expected one of {known}"
        )
    return scenario, spec


def _fraction(path: Path, line: int, column: str, raw: str | None, *, bounded: bool) -> float:
    try:
        value = float(raw if raw is not None else "")
    except ValueError:
        raise LifbenchImportError(
            f"{path}, row {line}, column {column!r}: {raw!r} is not a number"
        ) from None
    hi = 1.0 if bounded else math.inf
    if not math.isfinite(value) or not -_TOLERANCE <= value <= hi + _TOLERANCE:
        raise LifbenchImportError(
            f"{path}, row {line}, column {column!r}: {value} lies outside 0-1"
        )
    return value


def _level(path: Path, line: int, column: str, raw: str | None) -> int:
    try:
        return int(raw if raw is not None else "")
    except ValueError:
        raise LifbenchImportError(
            f"{path}, row {line}, column {column!r}: {raw!r} is not an integer"
        ) from None


def import_lifbench_scores(store: Store, folder: str | Path) -> ImportSummary:
    """Import every `{scenario}-{task}.csv` in `folder`; all files are checked first.

    Raises LifbenchImportError (naming file, row and column) for an unknown file name,
    a missing column, a non-number or a fraction outside 0-1; nothing is written then.
    """
    root = Path(folder)
    if not root.is_dir():
        raise LifbenchImportError(f"{root} is not a folder")
    paths = sorted(root.glob("*.csv"))
    if not paths:
        raise LifbenchImportError(f"{root} holds no .csv files")
    # Parse everything before writing, so a bad file leaves the database untouched.
    parsed = [_read_file(path) for path in paths]
    models = sorted({row[0] for _, _, rows in parsed for row in rows})
    known = run_generation_ids(store, [run_id_for(m) for m in models])
    added = 0
    now = time.time()
    for model in models:
        spec = ModelSpec(
            name=model,
            backend=PUBLISHED_BACKEND,
            description="LIFBench published scores",
            reference=model == REFERENCE_MODEL,
        )
        store.add_model(spec, model_id_for(model), TOKENIZER, 0)
        store.start_run(run_id_for(model), {"argv": ["import", "lifbench-scores", str(root)]})
    for _path, task, rows in parsed:
        for model, example, total, fractions in rows:
            model_id = model_id_for(model)
            gen_id = generation_id_for(model_id, example.example_id)
            if gen_id in known:
                continue
            store.add_example(example)
            store.add_generation(
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
                    started_at=now,
                ),
                {},
            )
            # Built directly, not with make_point: it would clamp the few published
            # values above 1 (lifeval/point_specs.py, find_dup_text), and _read_file checked all.
            points = tuple(
                RubricPoint(p.name, p.weight, f, "imported", p.capabilities)
                for p, f in zip(task.points, fractions, strict=True)
            )
            # No scorer_version: the original's number, not one of lctui's rules.
            store.add_score(
                gen_id,
                Score(
                    SCORER, METRIC, total, ScoreStatus.OK, (), "imported", points,
                    scorer_version=None,
                ),
            )  # fmt: skip
            added += 1
    for model in models:
        store.finish_run(run_id_for(model), "finished")
    return ImportSummary(len(paths), sum(len(r) for _, _, r in parsed), added, tuple(models))


_Row = tuple[str, Example, float, tuple[float, ...]]


def _read_file(path: Path) -> tuple[Path, TaskSpec, list[_Row]]:
    scenario, task = _task_for(path)
    point_names = [p.name for p in task.points]
    bounded_total = all(p.bounded for p in task.points)
    out: list[_Row] = []
    seen: set[tuple[str, str]] = set()
    # Every model answered the same prompts: build each example (and hash its id) once.
    examples: dict[tuple[int, int, int], Example] = {}
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        header = reader.fieldnames or []
        missing = [c for c in (*KEY_COLUMNS, *point_names, _TOTAL) if c not in header]
        if missing:
            raise LifbenchImportError(
                f"{path}: missing column(s) {', '.join(missing)}; the file has {', '.join(header)}"
            )
        for line, record in enumerate(reader, start=2):  # line 1 is the header
            model = (record["model"] or "").strip()
            if not model:
                raise LifbenchImportError(f"{path}, row {line}, column 'model': empty")
            ins = _level(path, line, "ins_id", record["ins_id"])
            param = _level(path, line, "param_id", record["param_id"])
            length = _level(path, line, "length", record["length"])
            fractions = tuple(
                _fraction(path, line, p.name, record[p.name], bounded=p.bounded)
                for p in task.points
            )
            total = _fraction(path, line, _TOTAL, record[_TOTAL], bounded=bounded_total)
            example = examples.get((ins, param, length))
            if example is None:
                example_id = stable_hash(SUITE, scenario, task.name, ins, param, length)
                example = _example(example_id, scenario, task, ins, param, length, path)
                examples[ins, param, length] = example
            example_id = example.example_id
            if (model, example_id) in seen:
                raise LifbenchImportError(
                    f"{path}, row {line}: a second row for model {model!r}, ins_id {ins}, "
                    f"param_id {param}, length {length}"
                )
            seen.add((model, example_id))
            out.append((model, example, total, fractions))
    return path, task, out


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
