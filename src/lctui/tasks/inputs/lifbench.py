"""The `lifbench` kind: LIFBench's released prompt files, run as its inference sends them
and scored by LIFEval's rules.

LIFBench (SheldonWu0327/LIFBench-2024) releases `data/prompts/SCENARIO-TASK.json`, one
file per task (`list-single_query_id.json` ... `onedoc-qa.json`), each a JSON list of
records: `prompt` (the whole prompt: the scenario's instructions, the list, documents
or text, the instruction), `label`, `param`, `length` (the context's length interval,
in thousands of o200k tokens: 3, 6, 13, 28, 60, 120), `ins_id` and `param_id`. One file
holds every length: each record names its own (`lengths_in_rows`), the cell length
being LENGTH x 1024.

Its inference sends the prompt as it is: as one chat user message (ApiInference.py's
LLMApi; Inference.py for a model with a chat template), framing `user` (the default),
or followed by `"\\noutput: "` as a plain completion (Inference.py for a model without
one), framing `completion`. The answer budget is its get_answers' by file: 100 tokens
for the List tasks but multi_query_id, 4,096 for find_dup_text and batch_label, 512 for
the rest; decoding greedy (Inference.py's temperature 0, each task's own in lctui).
Inference.py lowers the budget where the model's window leaves less, and cuts the
120 interval's contexts to 120K tokens: lctui changes neither prompt nor budget (a
model whose window cannot hold them is refused, or the request fails, named).

The scorer is lctui's LIFEval scorer under the original rules (equal to LIFBench's
evaluation on tests/parity/lifeval_*.jsonl), given the metadata
tasks/inputs/lifbench_records.py reads from each record's `param` and `label`; the List
and MultiDoc examples' context is the part of the prompt the original's judges read.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from lctui.core.bounds import MAX_LENGTH, MIN_LENGTH
from lctui.core.errors import UserInputError
from lctui.core.types import COMPLETION, USER_MESSAGE
from lctui.suites.lifbench.tasks import lifbench_tasks
from lctui.suites.lifbench.tasks.shared import LifbenchTask
from lctui.tasks.bounded_read import FileProblem, JsonDocument, files_within, shown
from lctui.tasks.inputs.base import FRAMING_OPTION, InputFile, InputKind, InputRow, RowProblem
from lctui.tasks.inputs.lifbench_records import RecordProblem, context_span, record_reading

PROMPTS_FOLDER = "prompts"  # LIFBench's data/prompts/
OUTPUT_PREFIX = "\noutput: "  # what Inference.py appends for a model without chat template
LIST_BUDGET, DOCS_BUDGET, BUDGET = 100, 4096, 512  # get_answers' max_generate_tokens
_LONG_ANSWERS = ("find_dup_text", "batch_label")
_THOUSAND = 1024  # LIFBench's length intervals are in thousands of o200k tokens, x 1024


@cache
def lifbench_files() -> dict[str, tuple[str, str, str]]:
    """LIFBench's file stem (`list-single_query_id`) -> (scenario, LIFEval task, lctui
    task), in LIFBench's order of tasks."""
    return {
        f"{t.scenario}-{t.spec.name}": (t.scenario, t.spec.name, t.name)
        for t in lifbench_tasks()
        if isinstance(t, LifbenchTask)
    }


def answer_budget(scenario: str, task: str) -> int:
    """LIFBench's max_generate_tokens for the file of `task`."""
    if scenario == "list" and task != "multi_query_id":
        return LIST_BUDGET
    return DOCS_BUDGET if task in _LONG_ANSWERS else BUDGET


class LifbenchKind(InputKind):
    name = "lifbench"
    suite = "lifbench"
    title = "LIFBench's released prompts, sent as its inference sends them"
    files = (
        "LIFBench's prompt files data/prompts/SCENARIO-TASK.json (list-single_query_id.json "
        "... onedoc-qa.json), each a JSON list of records (prompt, label, param, length, "
        "ins_id, param_id); give the checkout, its data or prompts folder, or one file"
    )
    origin = (
        "a checkout of SheldonWu0327/LIFBench-2024 with its released data/prompts (or the "
        "files its data/PromptGenerate.py writes)"
    )
    length_hint = "each record names its length interval (`length`, thousands of tokens)"
    framings = (USER_MESSAGE, COMPLETION)
    framing_help = (
        "user: LIFBench's ApiInference.py, and Inference.py for a model with a chat "
        "template; completion: Inference.py for a model without one (the prompt, then "
        "'\\noutput: ')"
    )
    lengths_in_rows = True

    def locate(self, path: Path, options: Mapping[str, Any]) -> tuple[list[InputFile], list[str]]:
        problems: list[str] = []
        if path.is_file():
            candidates = [path.resolve()]
        else:
            folder = next(
                (f for f in (path / "data" / PROMPTS_FOLDER, path / PROMPTS_FOLDER) if f.is_dir()),
                path,
            )
            candidates, problems = files_within(folder, (".json",), recursive=False)
        known = lifbench_files()
        found: list[InputFile] = []
        for file in candidates:
            if file.stem not in known:
                problems.append(
                    f"{file}: {shown(file.name)} names none of LIFBench's tasks "
                    f"({', '.join(f'{stem}.json' for stem in known)})"
                )
                continue
            found.append(InputFile(file, known[file.stem][2]))
        if not found and not problems:
            raise UserInputError(
                f"{path} holds no LIFBench prompt file (data/prompts/SCENARIO-TASK.json, e.g. "
                "list-single_query_id.json)"
            )
        order = [lctui for _, _, lctui in known.values()]
        found.sort(key=lambda f: (order.index(f.task), str(f.path)))
        return found, problems

    def rows(self, file: InputFile, options: Mapping[str, Any]) -> Iterator[InputRow | RowProblem]:
        scenario, task = next(
            (s, t) for s, t, lctui in lifbench_files().values() if lctui == file.task
        )
        prefix = OUTPUT_PREFIX if options[FRAMING_OPTION] == COMPLETION else ""
        budget = answer_budget(scenario, task)
        place = 0  # the last record's place in the list, from 1
        try:
            for key, record in JsonDocument(file.path, list_key=None):
                if not isinstance(key, int):
                    yield RowProblem(1, "not a list of records (a JSON object)")
                    return
                place = key
                try:
                    yield _row(place, scenario, task, file.task, record, prefix, budget)
                except RecordProblem as err:
                    yield RowProblem(place, str(err))
        except FileProblem as err:
            yield RowProblem(place + 1, f"{err.why} (line {err.line} of the file)")


def _row(
    number: int, scenario: str, task: str, lctui_task: str, record: Any, prefix: str, budget: int
) -> InputRow:
    if not isinstance(record, dict):
        raise RecordProblem(f"not a record (an object): {shown(record)}")
    prompt = record.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise RecordProblem(f"`prompt` is not text: {shown(prompt)}")
    interval = record.get("length")
    length = interval * _THOUSAND if type(interval) is int else 0
    if not MIN_LENGTH <= length <= MAX_LENGTH:
        raise RecordProblem(
            f"`length` is no length interval (thousands of tokens, e.g. 3 or 120): "
            f"{shown(interval)}"
        )
    reading = record_reading(scenario, task, record)
    return InputRow(
        line=number,
        task=lctui_task,
        text=prompt,
        answer_prefix=prefix,
        gold=(reading.reference,),
        max_new_tokens=budget,
        # LIFBench sized the context to its interval in o200k tokens; the rest of the
        # prompt (the scenario's instructions, the instruction) it never counted.
        prompt_tokens=length,
        metadata=reading.metadata,
        length=length,
        context=context_span(scenario, prompt),
    )
