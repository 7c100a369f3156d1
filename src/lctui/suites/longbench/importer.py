"""Import LongBench v2's result files (the original pred.py's) as runs next to lctui's own.

pred.py writes `results/{model}.jsonl` (direct answers), `{model}_cot.jsonl` (chain of
thought), `{model}_no_context.jsonl` and `{model}_rag_{N}.jsonl`: one line per answered
question, the question's fields (`_id, domain, sub_domain, difficulty, length` (the
bucket), `question, choice_A..D, answer`) with its `context` cut to its first 1,000
characters, then `response` (the answer, stripped), `pred` (the option it names, or
null), `judge` (pred == answer) and, with chain of thought, `response_cot` (the
reasoning the answer call read). A question whose response came back empty is not in
the file (pred.py asks it again on its next run).

Each line becomes an example of lctui's task for the mode (longbench_v2,
longbench_v2_cot, longbench_v2_no_context) with the metadata lctui's own LongBench
examples carry (so `lctui report --suite longbench` reads both alike) and a generation
scored by lctui's LongBench scorer (the original's answer reading; its scores carry a
scorer version); where lctui reads another option than the file's `pred`, or `judge`
is not pred == answer, the lines are reported. A chain of thought keeps both calls, the
reasoning first, as the engine does. RAG files are not imported: lctui has no RAG mode
of LongBench v2 (and the snapshot's --rag fails before writing anything: its questions
carry no retrieved context). The prompt is not stored: the example says so, and its
context is the 1,000 characters the file keeps, marked as a prefix (for no-context
answers, which never read it, that prefix is in the metadata only).

The length is the original's cut (model2maxlen: 120,000 tokens for most models,
200,000 for Claude), given with --length. One run per model and file or folder; the
model `longbench:<name>` from the file name (--model to choose). Ids are hashes of
what the files say: importing again adds nothing, and two models answering the same
question at the same length and mode share the example, which `lctui compare` pairs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
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
    unreadable,
)
from lctui.core.errors import UserInputError
from lctui.core.hashing import stable_hash
from lctui.core.types import CallRecord, Example, Score
from lctui.scoring import score_example
from lctui.store.db import Store
from lctui.store.scorer_versions import HARNESS_BACKEND
from lctui.suites.longbench.tasks.data import LongBenchRow, parse_row
from lctui.suites.longbench.tasks.task import (
    ANSWER_TOKENS,
    REASONING_TOKENS,
    TEMPERATURE,
    row_metadata,
)
from lctui.tasks.bounded_read import files_within, json_lines

LONGBENCH = Harness("longbench", "LongBench v2", "longbench-results", HARNESS_BACKEND)
DEFAULT_LENGTH = 120_000  # the original's model2maxlen for every model but Claude
KEPT_CHARS = 1000  # pred.py keeps the context's first 1,000 characters
MODE_TASKS = {
    "direct": "longbench_v2",
    "cot": "longbench_v2_cot",
    "no_context": "longbench_v2_no_context",
}
_NAME = re.compile(r"^(?P<model>.+?)(?:_(?P<mode>cot|no_context)|_rag_(?P<rag>\d+))?\.jsonl$")
NOT_STORED = (
    "prompt not stored by LongBench v2's pred.py: its result lines keep the question, "
    "its options and the first 1,000 characters of its context"
)
_SHOWN_LINES = 10  # line numbers named per disagreement


def result_files(source: Path) -> tuple[list[Path], list[str]]:
    """The result files of `source`: the file itself, or the `*.jsonl` under a folder;
    and one problem line per link to a file outside the folder (refused)."""
    if source.is_file():
        return [source], []
    return files_within(source, (".jsonl",))


def import_longbench_results(
    store: Store,
    source: str | Path,
    *,
    model: str | None = None,
    length: int = DEFAULT_LENGTH,
    progress: Progress | None = None,
) -> ImportSummary:
    """Import a LongBench v2 result file, or every one under a folder, into `store`.

    A file or line that cannot be used is named in the summary's `problems` with why;
    the others are imported, all or nothing. Raises UserInputError when there
    is no result file.
    """
    root = Path(source).resolve()
    if not root.exists():
        raise UserInputError(f"{source} does not exist; give pred.py's results folder or a file")
    if not 0 < length <= MOST_TOKENS:
        raise UserInputError(
            f"--length {length}: give the original's cut in tokens (120000), at most "
            f"{MOST_TOKENS:,}"
        )
    paths, refused = result_files(root)
    if not paths and not refused:
        raise UserInputError(
            f"{source} holds no LongBench v2 result file (*.jsonl written by pred.py); "
            "give its --save_dir, results/ by default"
        )
    problems: list[str] = list(refused)
    imported = examples = added = 0
    with store.import_writes() as writer:
        runs = ImportRuns(store, writer, LONGBENCH, root)
        for done, path in enumerate(paths, start=1):
            try:
                name, mode = _name_of(path, model)
            except BadFile as why:
                problems.append(f"{path}: {why}")
            else:
                read, written, found = _import_file(runs, root, path, name, mode, length)
                imported += read > 0
                examples += read
                added += written
                problems.extend(found)
            if progress is not None:
                progress(done, len(paths), path)
        return ImportSummary(
            files=len(paths) + len(refused),
            imported=imported,
            examples=examples,
            added=added,
            models=tuple(sorted(runs.runs)),
            problems=tuple(problems),
            runs=runs.finish(),
        )


def _name_of(path: Path, model: str | None) -> tuple[str, str]:
    """The model and mode a result file's name says."""
    found = _NAME.match(path.name)
    if found is None:
        raise BadFile("not a result file of pred.py ({model}[_cot|_no_context].jsonl)")
    if found["rag"] is not None:
        raise BadFile(
            f"RAG results (--rag {found['rag']}) are not imported: lctui has no RAG mode of "
            "LongBench v2"
        )
    mode = found["mode"] or "direct"
    return model or LONGBENCH.model_name(found["model"]), mode


def _import_file(
    runs: ImportRuns, root: Path, path: Path, model: str, mode: str, length: int
) -> tuple[int, int, list[str]]:
    """Import one file: lines read, generations written, and its problems."""
    lines = LineProblems(path)
    other_pred: list[int] = []
    other_judge: list[int] = []
    read = written = 0
    runs.open(model, model.split(":", 1)[-1])
    relative = path.name if path == root else str(path.relative_to(root))
    try:
        for line, _, item in json_lines(path):
            if isinstance(item, str):
                lines.add(line, item)
                continue
            try:
                row, response, reasoning = _parse(item, mode)
            except BadFile as why:
                lines.add(line, str(why))
                continue
            example = _example(row, mode, length, line)
            score = score_example(example, response)
            pred = score.extras.get("pred")
            if pred != item.get("pred"):
                other_pred.append(line)
            if item.get("judge") is not (item.get("pred") == row.answer):
                other_judge.append(line)
            score = replace(
                score,
                extras={
                    **score.extras,
                    "file_pred": item.get("pred"),
                    "file_judge": item.get("judge"),
                },
            )
            written += _write(runs, model, relative, example, response, reasoning, score)
            read += 1
    except OSError as err:
        return 0, 0, [unreadable(path, err, midway=read > 0)]
    found = lines.report()
    if other_pred:
        found.append(
            f"{path}: lctui reads another option than the file's `pred` on "
            f"{_lines(other_pred)}; scored as lctui reads them"
        )
    if other_judge:
        found.append(f"{path}: `judge` is not pred == answer on {_lines(other_judge)}")
    return read, written, found


def _lines(numbers: list[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:_SHOWN_LINES])
    more = f" and {len(numbers) - _SHOWN_LINES} more" if len(numbers) > _SHOWN_LINES else ""
    return f"{len(numbers)} line(s) ({shown}{more})"


def _parse(item: Mapping[str, Any], mode: str) -> tuple[LongBenchRow, str, str | None]:
    """The question, the response and (chain of thought) the reasoning of a line."""
    parsed = parse_row(item)
    if isinstance(parsed, str):
        raise BadFile(parsed)
    response = item.get("response")
    if not isinstance(response, str):
        raise BadFile("no `response` text")
    reasoning = item.get("response_cot")
    if mode == "cot" and not isinstance(reasoning, str):
        raise BadFile("no `response_cot` text (a chain-of-thought file keeps the reasoning there)")
    return parsed, response, reasoning if isinstance(reasoning, str) else None


def _example(row: LongBenchRow, mode: str, length: int, line: int) -> Example:
    task = MODE_TASKS[mode]
    read_context = mode != "no_context"
    metadata: dict[str, Any] = {
        **row_metadata(row, mode),
        "imported_from": "longbench",
        "prompt_stored": False,
        "prompt_missing": NOT_STORED,
        # The context column holds only the start the file keeps (the model read the
        # whole, cut in its middle to the length); a no-context answer read none of it.
        "context_is_prefix": read_context,
        "context_prefix_chars": len(row.context),
        "file_line": line,
    }
    if not read_context:
        metadata["document_prefix"] = row.context
    return Example(
        example_id=stable_hash("longbench-import", task, length, row.id),
        task=task,
        category="multichoice",
        suite="longbench",
        length=length,
        seed=0,
        index=line - 1,
        tokenizer="",  # pred.py counts in each model's own tokens; none is recorded
        params={},
        preamble="",
        context=row.context if read_context else "",
        question=row.question,
        answer_prefix="",
        gold=(row.answer,),
        max_new_tokens=REASONING_TOKENS if mode == "cot" else ANSWER_TOKENS,
        prompt_tokens=0,
        metadata=metadata,
    )


def _write(
    runs: ImportRuns,
    model: str,
    relative: str,
    example: Example,
    response: str,
    reasoning: str | None,
    score: Score,
) -> bool:
    mode = str(example.metadata["mode"])
    settings = {"max_new_tokens": example.max_new_tokens, "temperature": TEMPERATURE}
    config_hash = LONGBENCH.settings_hash(settings)
    model_id = LONGBENCH.model_id(model)
    gen_key = stable_hash("longbench-gen", model_id, example.example_id, config_hash)
    calls: tuple[CallRecord, ...] = ()
    if reasoning is not None and mode == "cot":
        # Neither call's prompt is stored ("" as the engine writes for the first call).
        calls = (
            CallRecord("reasoning", "", reasoning, 0, 0, None, 0.0, None),
            CallRecord("answer", "", response, 0, 0, None, 0.0, None),
        )
    generation = imported_generation(
        # The file's name, not its folder: the same file imported alone or within a
        # folder is the same generation.
        generation_id=stable_hash("longbench-gen", gen_key, Path(relative).name),
        gen_key=gen_key,
        run_id=runs.runs[model],
        model_id=model_id,
        example_id=example.example_id,
        config_hash=config_hash,
        output=response,
        calls=calls,
    )
    config = {**settings, "mode": mode, "longbench_file": relative}
    return runs.write(generation, config, example, [score])
