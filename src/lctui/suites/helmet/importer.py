"""Import the original HELMET's per-dataset result files as runs next to lctui's own.

HELMET's eval.py writes one JSON per dataset, model and length
(`{dataset}_{tag}_{test}_in{length}_size{n}_shots{k}_samp..._chat{bool}_{seed}.json`)
holding `args` (its arguments: `datasets`, `input_max_length`, `model_name_or_path`,
...), `data` (per example: the test row without its context, `output`,
`parsed_output`, `input_len`, `output_len` and the per-example metrics), `metrics`,
`averaged_metrics` (x100) and `throughput`. Its GPT-4 judge scripts write the same
file again as `...-gpt4eval_o.json` with `gpt-4-scores` per example, which is read
instead when present; ALCE's evaluation writes only means (`.json.score`), kept on the
run's record: each ALCE answer is scored by lctui's ALCE scorer (parity-tested equal to
ALCE's, so it carries lctui's scorer version), and the mean is checked against ALCE's.
A mean of HELMET's that the imported values do not reproduce is reported per file.

One run per model and folder: every file of one model in the folder lands in the same
run, so `lctui runs`, the report and the correlation screens show that model's HELMET
numbers per task and length, beside lctui's own runs of the model. The model is
recorded as `helmet:<name>` (or the name given): a model of its own, so a cell never
mixes the original's numbers with lctui's. Each example's score is HELMET's
per-example value under the metric lctui's task records (datasets.py), with no
scorer version (the original's number, never rescored: backend `imported`); the judge's
verdicts are judge scores (`judge_qa`: fluency x correctness / 3; `judge_summ`: its F1).
What HELMET did not store (the prompt and the context) is not invented: the example
holds no context and its metadata says `prompt_stored: false`.
Ids are hashes of what the file says, so importing a folder twice adds nothing. An
example's id is that of HELMET's test row (dataset, test file, length, shots, seed,
position, row id), so two models HELMET ran on the same rows share their examples and
`lctui compare` pairs them; the file each answer came from is in its generation config.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lctui.analysis.harness_import import (
    BadFile,
    Harness,
    ImportRuns,
    ImportSummary,
    Progress,
    imported_generation,
    number,
    whole_number,
)
from lctui.core.errors import UserInputError
from lctui.core.hashing import stable_hash
from lctui.core.types import Example, RubricPoint, Score, ScoreStatus
from lctui.scoring import score_example
from lctui.store.db import Store
from lctui.store.scorer_versions import PUBLISHED_BACKEND
from lctui.suites.helmet.datasets import HelmetDataset, helmet_dataset
from lctui.tasks.bounded_read import FileProblem, JsonDocument, files_within, shown, within

HELMET = Harness("helmet", "HELMET", "helmet-results", PUBLISHED_BACKEND)
JUDGE_SUFFIX = "-gpt4eval_o.json"
SCORE_SUFFIX = ".json.score"
NOT_STORED = "not stored by HELMET"
# HELMET's file holds every field of the test row but the context; fields this large
# (ALCE's documents, an API model's prompt) are left out of the example's metadata.
_MAX_FIELD_CHARS = 2000
_TOLERANCE = 1e-6  # HELMET's means are numpy floats of the same numbers
_MOST_SEED = 2**63 - 1  # the store's seed column is a signed 64-bit integer
# The judge's numbers and their ranges (fluency 0/1, correctness 0-3, the rest 0-1).
_VERDICT_RANGES = {"fluency": 1.0, "correctness": 3.0, "f1": 1.0, "recall": 1.0, "precision": 1.0}


@dataclass(frozen=True)
class _File:
    """A result file checked whole (its examples are read again to be written)."""

    path: Path
    dataset: HelmetDataset
    model: str
    args: Mapping[str, Any]
    length: int  # args.input_max_length
    max_new_tokens: int  # args.generation_max_length
    seed: int
    items: int  # examples in its `data`
    means: Mapping[str, Any]  # averaged_metrics, plus ALCE's .score numbers


def result_files(folder: Path) -> tuple[list[Path], list[str]]:
    """HELMET result files under `folder` (a `-gpt4eval_o.json` replaces the file it
    judged), and one problem line per link among them that leads out of the folder."""
    found, refused = files_within(folder, (".json",))
    judged = {
        p.with_name(p.name[: -len(JUDGE_SUFFIX)] + ".json")
        for p in found
        if p.name.endswith(JUDGE_SUFFIX)
    }
    return [p for p in found if p not in judged], refused


def import_helmet_results(
    store: Store,
    folder: str | Path,
    *,
    model: str | None = None,
    progress: Progress | None = None,
) -> ImportSummary:
    """Import every HELMET result file under `folder` into `store`.

    A file that cannot be read is named in the summary's `problems` with why; the
    others are imported, all or nothing. Raises UserInputError when `folder`
    holds no result file, or when a file changed between its check and its import
    (then nothing is imported).
    """
    root = Path(folder).resolve()
    if not root.is_dir():
        raise UserInputError(f"{folder} is not a folder; give the folder of HELMET's output files")
    paths, refused = result_files(root)
    if not paths and not refused:
        raise UserInputError(
            f"{folder} holds no HELMET result file (*.json written by HELMET's eval.py); "
            "give its --output_dir, e.g. output/<model>"
        )
    problems: list[str] = list(refused)
    files: list[_File] = []
    for done, path in enumerate(paths, start=1):
        try:
            files.append(_read(root, path, model))
        except BadFile as why:
            problems.append(f"{path}: {why}")
        if progress is not None:
            progress(done, len(paths), path)
    models = sorted({f.model for f in files})
    with store.import_writes() as writer:
        runs = ImportRuns(store, writer, HELMET, root)
        for name in models:
            means = {f.path.name: dict(f.means) for f in files if f.model == name}
            runs.open(
                name,
                next(str(f.args.get("model_name_or_path", "")) for f in files if f.model == name),
                {"helmet_averaged_metrics": means},
            )
        added = 0
        now = time.time()
        for file in files:
            try:
                written, values = _write(runs, file, now)
            except BadFile as why:
                raise UserInputError(
                    f"{file.path}: {why}; the file changed while it was imported, so nothing "
                    "was imported"
                ) from None
            added += written
            problems.extend(_check_means(file, values))
        return ImportSummary(
            files=len(paths) + len(refused),
            imported=len(files),
            examples=sum(f.items for f in files),
            added=added,
            models=tuple(models),
            problems=tuple(problems),
            runs=runs.finish(),
        )


def _read(root: Path, path: Path, model: str | None) -> _File:
    """Check a result file whole (streamed: its examples are not kept)."""
    members: dict[str, Any] = {}
    document = JsonDocument(path, "data")
    items = 0
    for n, item in _parts(document, members):
        _check_item(n, item)
        items += 1
    args = members.get("args")
    if not isinstance(args, dict):
        raise BadFile("not a HELMET result file (no `args` object)")
    if not document.listed:
        raise BadFile("no `data` list of examples")
    name = args.get("datasets")
    if not isinstance(name, str) or not name:
        raise BadFile("`args.datasets` names no dataset")
    dataset = helmet_dataset(name)
    if dataset is None:
        raise BadFile(f"HELMET dataset {shown(name)} has no lctui task (datasets.py)")
    length = whole_number(args.get("input_max_length"), "`args.input_max_length`", least=1)
    most = whole_number(args.get("generation_max_length") or 0, "`args.generation_max_length`")
    seed = args.get("seed")
    if isinstance(seed, int) and not isinstance(seed, bool):
        seed = whole_number(seed, "`args.seed`", most=_MOST_SEED)
    else:
        seed = 0
    path_name = args.get("model_name_or_path")
    if model is None and (not isinstance(path_name, str) or not path_name):
        raise BadFile("`args.model_name_or_path` is missing; name the model with --model")
    means = members.get("averaged_metrics") or {}
    if not isinstance(means, dict):
        raise BadFile(f"`averaged_metrics` is {shown(means)}, not an object of means")
    means = dict(means)
    score = path.with_name(
        path.name.removesuffix(JUDGE_SUFFIX).removesuffix(".json") + SCORE_SUFFIX
    )
    if dataset.helmet_metric is None and score.is_file():
        if not within(root, score):
            raise BadFile(f"its {score.name} is a link to outside {root}; not read")
        means.update(_score_means(score))
    chosen = model or HELMET.model_name(str(path_name))
    return _File(path, dataset, chosen, args, length, most, seed, items, means)


def _parts(
    document: JsonDocument, members: dict[str, Any]
) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """The examples of a result file, streamed, as (number from 1, item); its other
    members (`args`, `averaged_metrics`) go into `members` as they come."""
    try:
        for key, value in document:
            if isinstance(key, int):
                if document.top == "list":
                    raise BadFile("not a HELMET result file (a list, not an object with `args`)")
                if not isinstance(value, dict):
                    raise BadFile(f"example {key} of `data` is {shown(value)}, not an object")
                yield key, value
            elif key in ("args", "averaged_metrics"):
                members[key] = value
    except FileProblem as err:
        raise BadFile(f"line {err.line}: {err.why}") from None
    except OSError as err:
        raise BadFile(f"not readable ({err.strerror or err})") from None


def _check_item(n: int, item: Mapping[str, Any]) -> tuple[int, int]:
    """What the import takes of an example, checked before anything is written; its
    input and output tokens."""
    if not isinstance(item.get("output"), str):
        raise BadFile(f"example {n} has no `output` text")
    tokens = (
        whole_number(item.get("input_len") or 0, f"example {n}'s `input_len`"),
        whole_number(item.get("output_len") or 0, f"example {n}'s `output_len`"),
    )
    verdict = item.get("gpt-4-scores")
    if isinstance(verdict, dict):
        for key, most in _VERDICT_RANGES.items():
            value = number(verdict.get(key))
            if value is not None and not 0.0 <= value <= most:
                raise BadFile(
                    f"example {n}'s `gpt-4-scores.{key}` is {shown(verdict[key])}, "
                    f"not from 0 to {most:g}"
                )
    return tokens


def _score_means(score: Path) -> dict[str, Any]:
    """ALCE's means from a `.json.score` file: an object of numbers."""
    means: dict[str, Any] = {}
    try:
        for key, value in JsonDocument(score, None):
            if isinstance(key, int):
                raise BadFile(f"its {score.name} is a list, not an object of means")
            means[key] = value
    except FileProblem as err:
        raise BadFile(f"its {score.name}, line {err.line}: {err.why}") from None
    except OSError as err:
        raise BadFile(f"its {score.name} is not readable ({err.strerror or err})") from None
    return means


def _check_means(file: _File, values: list[float | None]) -> list[str]:
    """HELMET's mean of the metric (x100) must be the mean of the values imported."""
    key = file.dataset.checked_mean
    if key is None:
        return []
    kept = [v for v in values if v is not None]
    if not kept:
        return [f"{file.path}: no example holds HELMET's per-example {key!r}; imported unscored"]
    if number(file.means.get(key)) is None:
        return []
    mean = 100 * sum(kept) / len(kept)
    stated = float(file.means[key])
    if abs(mean - stated) > _TOLERANCE * max(1.0, abs(stated)):
        return [
            f"{file.path}: the examples' {key} average {mean:.4f}, the file's "
            f"averaged_metrics say {stated:.4f}; imported as the examples say"
        ]
    return []


def _gold(answer: Any) -> tuple[str, ...]:
    if isinstance(answer, str):
        return (answer,)
    if isinstance(answer, (list, tuple)):
        return tuple(g for a in answer for g in _gold(a))
    return () if answer is None else (json.dumps(answer),)


def _small_fields(item: Mapping[str, Any], taken: Iterable[str]) -> dict[str, Any]:
    skip = set(taken)
    kept: dict[str, Any] = {}
    for key, value in item.items():
        if key in skip:
            continue
        text = json.dumps(value, default=str)
        if len(text) <= _MAX_FIELD_CHARS:
            kept[key] = value
    return kept


# Fields of the answer, not of the test row (the example is shared by every model that
# answered it): HELMET's output keys, among them an API model's prompt (input_text).
_TAKEN = (
    "output", "parsed_output", "input_len", "output_len", "gpt-4-scores", "answer",
    "question", "input_text", "system_fingerprint", "thoughts",
)  # fmt: skip


def _example(file: _File, index: int, item: Mapping[str, Any]) -> Example:
    args, ds = file.args, file.dataset
    length = file.length
    test = Path(str(args.get("test_files") or "")).stem
    identity = item.get("id", item.get("qid", index))
    shots, seed = args.get("shots"), args.get("seed")
    example_id = stable_hash(
        "helmet-import",
        args["datasets"],
        test,
        length,
        shots,
        seed,
        index,
        json.dumps(identity, default=str),
    )
    groups = _answer_groups(ds, item) if ds.mean_key is not None else None
    scoring = {"scorer": ds.scorer, "answer_groups": groups} if groups is not None else {}
    metric_keys = {
        k for k, v in item.items() if number(v) is not None and k not in ("input_len", "output_len")
    }
    return Example(
        example_id=example_id,
        task=ds.task,
        category=ds.category,
        suite=ds.suite,
        length=length,
        seed=file.seed,
        index=index,
        tokenizer="",  # HELMET counts in each model's own tokens; no tokenizer is recorded
        params={"helmet_dataset": args["datasets"], "shots": shots, "test_file": test},
        preamble="",
        context="",  # not stored by HELMET: see metadata prompt_stored
        question=str(item.get("question") or ""),
        answer_prefix="",
        gold=_gold(item.get("answer")),
        max_new_tokens=file.max_new_tokens,
        prompt_tokens=0,
        metadata={
            "prompt_stored": False,
            "prompt_missing": (
                f"prompt {NOT_STORED}: its result files keep the question, "
                "not the prompt or its context"
            ),
            "imported_from": "helmet",
            "helmet_dataset": args["datasets"],
            "helmet_index": index,
            "helmet_fields": _small_fields(item, {*_TAKEN, *metric_keys}),
            **scoring,
        },
    )


def _extracted(parsed: Any) -> tuple[str, ...]:
    if parsed is None:
        return ()
    if isinstance(parsed, dict):  # re-ranking: {passage id: points}, best first
        ranked = sorted(parsed.items(), key=lambda kv: -(number(kv[1]) or 0.0))
        return tuple(str(k) for k, _ in ranked)
    return (str(parsed),)


def _write(runs: ImportRuns, file: _File, now: float) -> tuple[int, list[float | None]]:
    """Write the file's examples not yet stored; return how many, and every example's
    imported value (None: no score)."""
    args, ds = file.args, file.dataset
    run_id = runs.runs[file.model]
    model_id = HELMET.model_id(file.model)
    config = {
        "max_new_tokens": args.get("generation_max_length"),
        "temperature": args.get("temperature"),
        "top_p": args.get("top_p"),
        "prompt_format": "chat" if args.get("use_chat_template") else "plain",
        "helmet_file": file.path.name,
    }
    # The key leaves the file name out: answers to the same example with the same
    # settings from two files (a re-run under another --tag) are attempts of one key,
    # and the views show one of them, as for a re-run of lctui's own.
    settings = {k: v for k, v in config.items() if k != "helmet_file"}
    config_hash = HELMET.settings_hash(settings)
    added = 0
    values: list[float | None] = []
    for position, item in _parts(JsonDocument(file.path, "data"), {}):
        input_tokens, output_tokens = _check_item(position, item)
        index = position - 1
        example = _example(file, index, item)
        gen_key = stable_hash("helmet-gen", model_id, example.example_id, config_hash)
        gen_id = stable_hash("helmet-gen", gen_key, file.path.name)
        rule = _rule_score(ds, example, item)
        values.append(rule.value if rule is not None else None)
        if gen_id in runs.known:
            continue
        generation = imported_generation(
            generation_id=gen_id,
            gen_key=gen_key,
            run_id=run_id,
            model_id=model_id,
            example_id=example.example_id,
            config_hash=config_hash,
            output=str(item["output"]),
            prompt_tokens=input_tokens,
            output_tokens=output_tokens,
            started_at=now,
        )
        judged = _judge_score(ds, item.get("gpt-4-scores"))
        scores = [s for s in (rule, judged) if s is not None]
        added += runs.write(generation, config, example, scores)
    return added, values


def _rule_score(ds: HelmetDataset, example: Example, item: Mapping[str, Any]) -> Score | None:
    """The example's score under the task's metric: HELMET's per-example value, or for
    ALCE (whose files hold only means) lctui's scorer on the stored output; None when
    neither exists."""
    output = str(item["output"])
    if ds.mean_key is not None:
        if "answer_groups" not in example.metadata:
            return None
        scored = score_example(example, output)
        why = f"{scored.explanation} Scored by lctui: HELMET's file keeps only ALCE's means."
        return dataclasses.replace(scored, explanation=why)
    key = ds.helmet_metric
    value = number(item.get(key)) if key is not None else None
    if key is None or value is None:
        return None
    metrics = {
        k: v
        for k, v in item.items()
        if number(v) is not None and k not in ("input_len", "output_len")
    }
    return Score(
        ds.scorer,
        ds.metric,
        value,
        ScoreStatus.OK,
        _extracted(item.get("parsed_output")),
        f"HELMET's per-example {key} (0-1; its averaged_metrics are x100)",
        extras={
            "helmet_metric": key,
            "helmet_value": item.get(key),
            "scale": 1.0,
            "parsed_output": item.get("parsed_output"),
            "helmet_metrics": metrics,
        },
        scorer_version=None,  # the original's number, made by no rule of lctui's
    )


def _answer_groups(ds: HelmetDataset, item: Mapping[str, Any]) -> list[list[str]] | None:
    """ALCE's gold answers as lctui's ALCE scorers read them (metadata answer_groups)."""
    if ds.task == "alce_asqa":
        pairs = item.get("qa_pairs")
        groups = (
            [p.get("short_answers") for p in pairs]
            if isinstance(pairs, list) and all(isinstance(p, dict) for p in pairs)
            else None
        )
    else:
        groups = item.get("answers")
    if not isinstance(groups, list) or not groups:
        return None
    if not all(isinstance(g, list) and g and all(isinstance(a, str) for a in g) for g in groups):
        return None
    return [list(g) for g in groups]


def _judge_score(ds: HelmetDataset, verdict: Any) -> Score | None:
    """HELMET's GPT-4 verdict as lctui's judge score (None when there is none)."""
    if ds.judge is None or not isinstance(verdict, dict):
        return None
    if ds.judge == "qa":
        fluency, correct = number(verdict.get("fluency")), number(verdict.get("correctness"))
        if fluency is None or correct is None:
            return None
        points: tuple[RubricPoint, ...] = (
            RubricPoint("fluent", 1.0, min(1.0, max(0.0, fluency)), "HELMET's judge: fluency"),
            RubricPoint(
                "correct", 1.0, min(1.0, max(0.0, correct / 3)), "HELMET's judge: correctness / 3"
            ),
        )
        value = fluency * correct / 3
        why = f"HELMET's GPT-4 judge: fluency {fluency:g} x correctness {correct:g} / 3"
        return Score(
            "judge", "judge_qa", value, ScoreStatus.OK, (), why, points, {"helmet": verdict}, None
        )
    f1 = number(verdict.get("f1"))
    if f1 is None:
        return None
    points = tuple(
        RubricPoint(name, 1.0, min(1.0, max(0.0, v)), _judge_text(verdict, text, name))
        for name, text, v in (
            ("fluent", "flunecy", number(verdict.get("fluency")) or 0.0),
            ("key points recalled", "recall", number(verdict.get("recall")) or 0.0),
            ("sentences supported", "precision", number(verdict.get("precision")) or 0.0),
        )
    )
    why = "HELMET's GPT-4 judge: fluency x F1 of key-point recall and sentence precision"
    return Score(
        "judge", "judge_summ", f1, ScoreStatus.OK, (), why, points, {"helmet": verdict}, None
    )


def _judge_text(verdict: Mapping[str, Any], text: str, name: str) -> str:
    """The judge's own words on one point (its `{text}_output`), else a plain label."""
    said = verdict.get(f"{text}_output")
    return said if isinstance(said, str) and said else f"HELMET's judge: {name}"
