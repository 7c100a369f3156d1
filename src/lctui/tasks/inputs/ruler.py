"""The `ruler` kind: the data files RULER's prepare.py writes, run as RULER's call_api.py
sends them.

prepare.py writes `{save_dir}/{task}/validation.jsonl` (`--subset test`: test.jsonl),
one row a line: `index`, `input` (the prompt without its answer prefix, the model
template of `--model_template_type` around it), `outputs` (the gold answers), `length`
(the prompt's tokens in the tokenizer it was given, plus the task's tokens to generate)
and `answer_prefix`. run.sh lays them out as
`BENCHMARK_ROOT/MODEL/BENCHMARK/LENGTH/data/TASK/validation.jsonl`, LENGTH being
prepare.py's `--max_seq_length`: the cell length of the file's examples.

call_api.py sends `input + answer_prefix`, joined with nothing between: as a plain
completion for its server types vllm, trtllm, sglang and hf (the model's template, if
any, is already in the input), as one chat user message for openai and gemini (the
server's template applies); framing `completion` (the default) or `user`. The answer
budget is RULER's `tokens_to_generate` of the task's family (suites/ruler/tasks/rows.py), the
scorer lctui's recall scorer under RULER's metric (string_match_all, qa's
string_match_part: equal to RULER's on tests/parity/ruler_metrics.jsonl), greedy as
run.sh decodes (temperature 0, each task's own in lctui).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from lctui.core.bounds import MAX_LENGTH, MIN_LENGTH
from lctui.core.errors import UserInputError
from lctui.core.types import ParamSpec
from lctui.suites.ruler.tasks.rows import (
    RULER_TASKS,
    RulerTask,
    answer_rule,
    asked_text,
    gold_spans,
    needle_depth,
)
from lctui.tasks.bounded_read import files_within, json_lines, shown
from lctui.tasks.inputs.base import InputFile, InputKind, InputRow, RowProblem

DATA_FOLDER = "data"  # run.sh's LENGTH/data/
SUBSET = ParamSpec(
    "subset",
    "validation",
    "prepare.py's --subset: the data file read in each task's folder (SUBSET.jsonl)",
    kind="choice",
    choices=("validation", "test"),
)
_MOST_DIGITS = 8  # a length folder's name: more digits is no length


class RulerKind(InputKind):
    name = "ruler"
    suite = "ruler"
    title = "RULER's prepared examples, sent as call_api.py sends them"
    files = (
        "prepare.py's data files as RULER's run.sh lays them out: "
        "BENCHMARK_ROOT/MODEL/synthetic/LENGTH/data/TASK/validation.jsonl (rows: index, "
        "input, outputs, length, answer_prefix); give the root, a model's, a length's or a "
        "data folder, or one file"
    )
    origin = (
        "a checkout of NVIDIA/RULER: scripts/run.sh MODEL synthetic (or scripts/data/"
        "prepare.py per task and length) with the model's tokenizer and --model_template_type"
    )
    length_hint = "RULER's layout names it: the folder LENGTH of LENGTH/data/TASK/"
    framing_help = (
        "completion: RULER's server types vllm, trtllm, sglang and hf; user: openai and "
        "gemini (with --model_template_type base)"
    )
    option_specs = (SUBSET,)

    def locate(self, path: Path, options: Mapping[str, Any]) -> tuple[list[InputFile], list[str]]:
        wanted = f"{options[SUBSET.name]}.jsonl"
        problems: list[str] = []
        if path.is_file():
            candidates = [path.resolve()]
        else:
            files, problems = files_within(path, (".jsonl",))
            candidates = [f for f in files if f.name == wanted]
        found: list[InputFile] = []
        for file in candidates:
            task = file.parent.name
            if task not in RULER_TASKS:
                problems.append(
                    f"{file}: its folder {shown(task)} names none of RULER's tasks "
                    f"({', '.join(RULER_TASKS)})"
                )
                continue
            found.append(InputFile(file, task, layout_length(file)))
        if not found and not problems:
            raise UserInputError(
                f"{path} holds no RULER data file (DATA/TASK/{wanted}, as prepare.py writes "
                f"them; run.sh: BENCHMARK_ROOT/MODEL/synthetic/LENGTH/data/TASK/{wanted})"
            )
        order = list(RULER_TASKS)
        found.sort(key=lambda f: (f.length or 0, order.index(f.task), str(f.path)))
        return found, problems

    def rows(self, file: InputFile, options: Mapping[str, Any]) -> Iterator[InputRow | RowProblem]:
        task = RULER_TASKS[file.task]
        for line, _, row in json_lines(file.path):
            if isinstance(row, str):
                yield RowProblem(line, row)
                continue
            why = _problem(row)
            if why:
                yield RowProblem(line, why)
                continue
            yield _row(task, line, row)


def layout_length(file: Path) -> int | None:
    """The length run.sh's layout names for a data file (LENGTH/data/TASK/FILE), if any."""
    data, length = file.parent.parent, file.parent.parent.parent
    name = length.name
    if data.name != DATA_FOLDER or not (name.isascii() and name.isdigit()):
        return None
    if len(name) > _MOST_DIGITS or not MIN_LENGTH <= int(name) <= MAX_LENGTH:
        return None
    return int(name)


def _problem(row: Mapping[str, Any]) -> str | None:
    """Why a row is none of prepare.py's, or None."""
    text, prefix, golds = row.get("input"), row.get("answer_prefix", ""), row.get("outputs")
    if not isinstance(text, str):
        return f"`input` is not text: {shown(text)}"
    if not isinstance(prefix, str):
        return f"`answer_prefix` is not text: {shown(prefix)}"
    if not isinstance(golds, list) or not golds:
        return f"`outputs` is not a list of answers: {shown(golds)}"
    for gold in golds:
        if not isinstance(gold, str) or not gold.strip():
            return f"`outputs` holds an empty or non-text answer: {shown(gold)}"
    return None


def _whole(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**63:
        return value
    return None


def _row(task: RulerTask, line: int, row: Mapping[str, Any]) -> InputRow:
    text, prefix = str(row["input"]), str(row.get("answer_prefix", ""))
    golds = tuple(str(g) for g in row["outputs"])
    counted = _whole(row.get("length"))
    spans = gold_spans(text, golds) if task.kind in ("niah", "vt") else ()
    return InputRow(
        line=line,
        task=task.name,
        text=text,
        answer_prefix=prefix,
        gold=golds,
        max_new_tokens=task.answer_tokens,
        # RULER's length is the prompt's tokens plus the tokens it lets the answer have.
        prompt_tokens=max(0, counted - task.answer_tokens) if counted else 0,
        metadata={
            "metric": task.metric,
            "scorer": "recall",
            **answer_rule(task, golds, text),
            "asked_text": asked_text(text, lines=1 if prefix else 2),
            "ruler_index": _whole(row.get("index")),
            "ruler_length": counted,
        },
        spans=spans,
        depth=needle_depth(task, text, spans),
    )
