"""The `prompts` kind: prompts of one's own, scored by the metric of one of lctui's tasks.

The smallest kind, and the model of one: a JSON-lines file per task, named after it
(`niah_single_1.jsonl`, or a folder of such files), each line
`{"input": TEXT, "outputs": [ANSWER, ...], "answer_prefix": TEXT}` (the prefix may be
left out). The model reads `input + answer_prefix`; the answers are scored by the
task's recall metric (string_match_all, or string_match_part for RULER's QA), which
lctui's recall scorer computes as RULER does. The length of a file's cell is the one
`--lengths` gives.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from lctui.core.errors import UserInputError
from lctui.tasks.bounded_read import files_within, json_lines, shown
from lctui.tasks.inputs.base import InputFile, InputKind, InputRow, RowProblem
from lctui.tasks.registry import all_tasks, get_task

# The metrics of lctui's recall scorer this kind scores with (the tasks that use them).
RECALL_METRICS = ("string_match_all", "string_match_part")


def recall_tasks() -> list[str]:
    """The tasks whose examples the recall scorer scores by a RULER metric."""
    return [task.name for task in all_tasks() if task.metric in RECALL_METRICS]


class PromptsKind(InputKind):
    name = "prompts"
    suite = "ruler"
    title = "prompts of one's own, scored by a task's recall metric"
    files = (
        "TASK.jsonl (a file, or a folder of them), one row a line: {input, outputs, "
        "answer_prefix}; TASK is the lctui task whose metric scores it"
    )
    origin = "written by the user"
    length_hint = "a prompts file names no length"

    def locate(self, path: Path, options: Mapping[str, Any]) -> tuple[list[InputFile], list[str]]:
        problems: list[str] = []
        if path.is_file():
            files = [path.resolve()]
        else:
            files, problems = files_within(path, (".jsonl",), recursive=False)
        known = set(recall_tasks())
        found = [InputFile(f, f.stem) for f in files if f.stem in known]
        problems += [
            f"{f}: not named after a task scored by a recall metric ({', '.join(sorted(known))})"
            for f in files
            if f.stem not in known
        ]
        if not found and not problems:
            raise UserInputError(f"{path} holds no TASK.jsonl file of prompts")
        return found, problems

    def rows(self, file: InputFile, options: Mapping[str, Any]) -> Iterator[InputRow | RowProblem]:
        task = get_task(file.task)
        assert file.length is not None  # the framework gives it before reading
        budget = task.answer_tokens(file.length)
        for line, _, row in json_lines(file.path):
            if isinstance(row, str):
                yield RowProblem(line, row)
                continue
            text, prefix, golds = row.get("input"), row.get("answer_prefix", ""), row.get("outputs")
            if not isinstance(text, str) or not isinstance(prefix, str):
                yield RowProblem(line, "`input` and `answer_prefix` must be text")
            elif not isinstance(golds, list) or not _answers(golds):
                yield RowProblem(line, f"`outputs` is not a list of answers: {shown(golds)}")
            else:
                yield InputRow(
                    line=line,
                    task=file.task,
                    text=text,
                    answer_prefix=prefix,
                    gold=tuple(golds),
                    max_new_tokens=budget,
                    metadata={"metric": task.metric, "scorer": "recall", **answer_rule(golds)},
                )


def _answers(values: list[Any]) -> bool:
    return bool(values) and all(isinstance(v, str) and v.strip() for v in values)


def answer_rule(golds: Sequence[str]) -> dict[str, Any]:
    """What the recall scorer reads as the output's values: the gold answers themselves
    (longest first, so an answer that holds a shorter one is found whole)."""
    ordered = sorted(set(golds), key=len, reverse=True)
    return {"value_pattern": "(?i)" + "|".join(re.escape(g) for g in ordered)}
