"""Import the prediction files of the original RULER as runs next to lctui's own.

RULER keeps the whole prompt of every prediction (call_api.py's `input`, the data's
input followed by its answer prefix), the gold answers (`outputs`) and the raw output
(`pred`), but no token count of the output nor any timing (files.py has the
layout). Each prediction becomes an example holding that prompt, its context the data
input and its answer prefix the data row's (joined by the prompt they make, from
`data/{task}/validation.jsonl` beside the predictions when it is there; without it the
prompt is kept whole and `answer_prefix_separated` says it was not split), and a
generation scored by lctui's recall scorer under the task's metric (string_match_all,
qa's string_match_part: RULER's rules, parity-tested, with its postprocessing), so its
scores carry a scorer version and `lctui rescore` redoes them. Per task and folder the
mean is checked against evaluate.py's summary.csv, and a difference is reported.

What the files do not say is not made up: the output's token count is 0, and the
prompt's is RULER's row `length` less the task's answer tokens (how prepare.py counts
it, in the model's own tokens); a prediction without an input and without its data row
has no prompt (`prompt_stored: false`). A needle task's example marks the first place of
each gold value in its context (a `gold` span) and its depth (that place in percent of
the context's characters, as lctui's own examples measure it); the recall scorer's
extraction rules come from the gold answers' shape (numbers, UUIDs, names) or, for the
word tasks, from the prompt's list (cwe) or its coded words (fwe); and a value the
output repeats from the question (the prompt's last line with words) is an echo.

One run per model and folder given, the model `ruler:<name>` from RULER's layout
(`--model` to choose), the length from the length folder (`--length`, else the rows:
the smallest power of two at or above the longest row). Ids are hashes of what the files
say: importing again adds nothing, and two models RULER asked the same prompts (same
tokenizer, template and seed) share their examples, which `lctui compare` pairs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lctui.analysis.harness_import import (
    MOST_TOKENS,
    BadFile,
    Harness,
    ImportRuns,
    ImportSummary,
    LineProblems,
    Progress,
    imported_generation,
    number,
    unreadable,
    whole_number,
)
from lctui.core.errors import UserInputError
from lctui.core.hashing import stable_hash
from lctui.core.types import Example
from lctui.scoring import score_example
from lctui.scoring.metrics import ruler_prediction
from lctui.store.db import Store
from lctui.store.scorer_versions import HARNESS_BACKEND
from lctui.suites.ruler.files import (
    DataIndex,
    PredFolder,
    TaskSummary,
    data_file,
    pred_folders,
    read_data_index,
    read_summaries,
)
from lctui.suites.ruler.tasks.rows import (
    RulerTask,
    answer_rule,
    asked_text,
    gold_spans,
    needle_depth,
)
from lctui.tasks.bounded_read import json_lines, shown

RULER = Harness("ruler", "RULER", "ruler-results", HARNESS_BACKEND)
NO_PROMPT = (
    "prompt not stored: the prediction has no input and no data row of RULER's "
    "(data/{task}/validation.jsonl) matches it"
)
_SMALL = 2000  # characters of RULER's `others` kept in the metadata


@dataclass(frozen=True)
class _Plan:
    """A prediction folder to import: its model, length and evaluate.py's summary."""

    pred: PredFolder
    model: str
    length: int
    length_from: str  # folder | option | rows
    where: str  # the folder, relative to the folder imported
    summaries: Mapping[str, TaskSummary]

    @property
    def scores(self) -> dict[str, dict[str, Any]]:
        return {t: {"score": s.score, "nulls": s.nulls} for t, s in self.summaries.items()}


@dataclass
class _Task:
    """What one task of one folder gave: values for the mean, empty outputs, and rows."""

    values: list[float] = field(default_factory=list)
    empty: int = 0
    unmatched: int = 0  # predictions no row of the data file matches
    added: int = 0


def import_ruler_results(
    store: Store,
    folder: str | Path,
    *,
    model: str | None = None,
    length: int | None = None,
    progress: Progress | None = None,
) -> ImportSummary:
    """Import every RULER prediction file under `folder` into `store`.

    A file or line that cannot be used is named in the summary's `problems` with why;
    the others are imported, all or nothing. Raises UserInputError when
    `folder` holds none.
    """
    root = Path(folder).resolve()
    if not root.is_dir():
        raise UserInputError(
            f"{folder} is not a folder; give RULER's benchmark root, a model's folder in it "
            "or a pred folder"
        )
    if length is not None and not 0 < length <= MOST_TOKENS:
        raise UserInputError(f"--length {length}: give a length from 1 to {MOST_TOKENS:,} tokens")
    found, refused = pred_folders(root)
    folders = [f for f in found if f.files]
    if not folders and not refused:
        raise UserInputError(
            f"{folder} holds no RULER prediction file ({{task}}.jsonl in a pred folder, as "
            "RULER's run.sh writes them: ROOT/MODEL/synthetic/LENGTH/pred/); give that root"
        )
    total = sum(f.files for f in folders)
    with store.import_writes() as writer:
        runs = ImportRuns(store, writer, RULER, root)
        importer = _Importer(runs, root, total, progress)
        importer.problems.extend(refused)
        plans = [p for p in (importer.plan(pred, model, length) for pred in folders) if p]
        for name in sorted({p.model for p in plans}):
            mine = [p for p in plans if p.model == name]
            summaries = {p.where: p.scores for p in mine}
            runs.open(name, mine[0].pred.model or name, {"ruler_summaries": summaries})
        for plan in plans:
            importer.folder(plan)
        return ImportSummary(
            files=total + len(refused),
            imported=importer.imported,
            examples=importer.examples,
            added=importer.added,
            models=tuple(sorted(runs.runs)),
            problems=tuple(importer.problems),
            runs=runs.finish(),
        )


class _Importer:
    def __init__(self, runs: ImportRuns, root: Path, total: int, progress: Progress | None):
        self.runs, self.root, self.total, self.progress = runs, root, total, progress
        self.done = self.imported = self.examples = self.added = 0
        self.problems: list[str] = []

    def _step(self, path: Path) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, self.total, path)

    def plan(self, pred: PredFolder, model: str | None, length: int | None) -> _Plan | None:
        """What importing `pred` takes, or None (its files listed as problems)."""
        for path in pred.others:
            self.problems.append(f"{path}: not named after a RULER task ({{task}}.jsonl)")
            self._step(path)
        summaries, problems = read_summaries(pred.path)
        self.problems.extend(problems)
        try:
            name = model or _model_of(pred)
            size, source = _length_of(pred, length)
        except BadFile as why:
            for _, paths in pred.tasks:
                for path in paths:
                    self.problems.append(f"{path}: {why}")
                    self._step(path)
            return None
        where = str(pred.path.relative_to(self.root)) if pred.path != self.root else "."
        return _Plan(pred, name, size, source, where, summaries)

    def folder(self, plan: _Plan) -> None:
        pred = plan.pred
        for task, paths in pred.tasks:
            summary = plan.summaries.get(task.name)
            self.task(pred, plan.model, task, paths, plan.length, plan.length_from, summary)
        for task_name, summary in plan.summaries.items():
            if task_name not in {t.name for t, _ in pred.tasks}:
                self.problems.append(
                    f"{summary.path}: scores task {task_name}, whose predictions are not here"
                )

    def task(
        self,
        pred: PredFolder,
        model: str,
        task: RulerTask,
        paths: Sequence[Path],
        length: int,
        length_from: str,
        summary: TaskSummary | None,
    ) -> None:
        data_path = data_file(pred, task.name)
        try:
            data = read_data_index(data_path) if data_path is not None else None
        except OSError as err:
            self.problems.append(f"{data_path}: not readable ({err.strerror or err}); not used")
            data = None
        if data is not None:
            self.problems.extend(data.problems)
        seen = _Task()
        position = 0
        for path in paths:
            lines = LineProblems(path)
            read = 0
            try:
                for line, _, row in json_lines(path):
                    if isinstance(row, str):
                        lines.add(line, row)
                        continue
                    try:
                        self._row(
                            model, task, length, length_from, position, path, line, row, data, seen
                        )
                    except BadFile as why:
                        lines.add(line, str(why))
                        continue
                    position += 1
                    read += 1
            except OSError as err:
                self.problems.append(unreadable(path, err, midway=read > 0))
            self.problems.extend(lines.report())
            self.imported += read > 0
            self.examples += read
            self._step(path)
        self.added += seen.added
        if data is not None and seen.unmatched:
            self.problems.append(
                f"{data.path}: {seen.unmatched} prediction(s) match none of its rows (by the "
                "prompt they sent); their answer prefix is not split off"
            )
        if summary is not None:
            self.problems.extend(_check_summary(task, summary, seen))

    def _row(
        self,
        model: str,
        task: RulerTask,
        length: int,
        length_from: str,
        position: int,
        path: Path,
        line: int,
        row: Mapping[str, Any],
        data: DataIndex | None,
        seen: _Task,
    ) -> None:
        output = row.get("pred")
        if not isinstance(output, str):
            raise BadFile("no `pred` text")
        golds = _golds(row)
        example = _example(task, length, length_from, position, row, golds, data, model)
        try:
            score = score_example(example, output)
        except ValueError as err:
            raise BadFile(f"cannot be scored ({err})") from None
        assert score.value is not None  # the recall scorer always gives one
        seen.values.append(score.value)
        seen.empty += not ruler_prediction(output)
        seen.unmatched += data is not None and not example.metadata["answer_prefix_separated"]
        model_id = RULER.model_id(model)
        config_hash = RULER.settings_hash({"max_new_tokens": task.answer_tokens})
        gen_key = stable_hash("ruler-gen", model_id, example.example_id, config_hash)
        relative = str(path.relative_to(self.root)) if path != self.root else path.name
        generation = imported_generation(
            # The file's name, not its folder: the same file imported alone or within a
            # folder is the same generation; re-runs under other names are other attempts.
            generation_id=stable_hash("ruler-gen", gen_key, path.name),
            gen_key=gen_key,
            run_id=self.runs.runs[model],
            model_id=model_id,
            example_id=example.example_id,
            config_hash=config_hash,
            output=output,
            prompt_tokens=example.prompt_tokens,
            prompt_tail=example.answer_prefix,
        )
        config = {"max_new_tokens": task.answer_tokens, "ruler_file": relative, "ruler_line": line}
        seen.added += self.runs.write(generation, config, example, [score])


def _model_of(pred: PredFolder) -> str:
    if pred.model is None:
        raise BadFile(
            "cannot tell the model: RULER writes ROOT/MODEL/BENCHMARK/LENGTH/pred/; "
            "name it with --model"
        )
    return RULER.model_name(pred.model)


def _length_of(pred: PredFolder, given: int | None) -> tuple[int, str]:
    """The folder's length and where it came from: its name, --length, or its rows."""
    if pred.length is not None:
        return pred.length, "folder"
    if given is not None:
        return given, "option"
    longest = 0
    for _, paths in pred.tasks:
        for path in paths:
            try:
                for _, _, row in json_lines(path):
                    value = number(row.get("length")) if not isinstance(row, str) else None
                    if value is not None and 0 < value <= MOST_TOKENS:
                        longest = max(longest, int(value))
            except OSError:
                continue
    if longest <= 0:
        raise BadFile(
            "cannot tell the length: the folder is not named after it and its rows hold "
            "no `length`; give --length"
        )
    return 1 << (longest - 1).bit_length(), "rows"


def _golds(row: Mapping[str, Any]) -> tuple[str, ...]:
    # evaluate.py reads `outputs`, else a single `output`.
    outputs = row.get("outputs", [row.get("output", "")])
    if not isinstance(outputs, list) or not outputs:
        raise BadFile("`outputs` is not a list of answers")
    for output in outputs:
        if not isinstance(output, str) or not output.strip():
            raise BadFile(f"`outputs` holds an empty or non-text answer: {shown(output)}")
    return tuple(outputs)


def _prompt(
    row: Mapping[str, Any], golds: Sequence[str], data: DataIndex | None
) -> tuple[str | None, str, dict[str, Any]]:
    """The context and answer prefix of a prediction's prompt, and what the data row
    adds; the context is None when neither file keeps the prompt."""
    sent = row.get("input") if isinstance(row.get("input"), str) else None
    matched = data.match(row.get("index"), sent, golds) if data is not None else None
    if data is None or matched is None:
        where = str(data.path) if data is not None else None
        return sent, "", {"answer_prefix_separated": False, "data_file": where, "data_line": None}
    prefix = matched.answer_prefix
    context = sent[: len(sent) - len(prefix)] if sent is not None else data.input_of(matched)
    extra = {
        "answer_prefix_separated": True,
        "data_file": str(data.path),
        "data_line": matched.line,
        **matched.fields,
    }
    return context, prefix, extra


def _example(
    task: RulerTask,
    length: int,
    length_from: str,
    position: int,
    row: Mapping[str, Any],
    golds: tuple[str, ...],
    data: DataIndex | None,
    model: str,
) -> Example:
    context, prefix, extra = _prompt(row, golds, data)
    if context is not None:
        identity: tuple[Any, ...] = (context + prefix,)
    else:
        # Without a prompt nothing says two models read the same one: not shared.
        identity = (model, position, row.get("index"))
    example_id = stable_hash("ruler-import", task.name, length, golds, *identity)
    text = context or ""
    spans = gold_spans(text, golds) if task.kind in ("niah", "vt") else ()
    depth = needle_depth(task, text, spans)
    ruler_length = whole_number(row.get("length") or 0, "`length`")
    others = row.get("others")
    metadata: dict[str, Any] = {
        "metric": task.metric,
        "scorer": "recall",
        **answer_rule(task, golds, text),
        "asked_text": asked_text(text, lines=1 if prefix else 2),
        "imported_from": "ruler",
        "ruler_index": row.get("index"),
        "ruler_length": ruler_length,
        "ruler_truncation": row.get("truncation"),
        "length_from": length_from,
        **({"ruler_others": others} if others and len(repr(others)) <= _SMALL else {}),
        **extra,
    }
    if context is None:
        metadata |= {"prompt_stored": False, "prompt_missing": NO_PROMPT}
    return Example(
        example_id=example_id,
        task=task.name,
        category=task.category,
        suite="ruler",
        length=length,
        seed=0,
        index=position,
        tokenizer="",  # RULER counts in each model's own tokens; none is recorded
        params={},
        preamble="",
        context=text,
        question="",
        answer_prefix=prefix,
        gold=golds,
        max_new_tokens=task.answer_tokens,
        # RULER's length is the prompt's tokens plus the tokens it lets the answer have.
        prompt_tokens=max(0, ruler_length - task.answer_tokens) if ruler_length > 0 else 0,
        depth=depth,
        spans=spans,
        metadata=metadata,
    )


def _check_summary(task: RulerTask, summary: TaskSummary, seen: _Task) -> list[str]:
    """evaluate.py's score and nulls of the task against what was imported."""
    where = f"{summary.path}: {task.name}"
    if not seen.values:
        return [f"{where}: scored by evaluate.py, but no prediction of it could be imported"]
    problems = []
    # evaluate.py: sum / count * 100, rounded to 2 places.
    mean = round(sum(seen.values) / len(seen.values) * 100, 2)
    if summary.score is not None and abs(mean - summary.score) > 1e-9:
        problems.append(
            f"{where}: the {len(seen.values)} predictions score {mean:.2f} by lctui's "
            f"{task.metric}, the summary says {summary.score:.2f}; imported as lctui scores them"
        )
    expected = f"{seen.empty}/{len(seen.values)}"
    if summary.nulls and summary.nulls != expected:
        problems.append(
            f"{where}: the summary counts {summary.nulls} empty predictions, the files hold "
            f"{expected}"
        )
    return problems
