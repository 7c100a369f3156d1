"""Where RULER's files are and what surrounds its prediction rows: the importer's map.

RULER's run.sh lays a benchmark root out as `{root}/{model}/{benchmark}/{length}/`, with
`data/{task}/validation.jsonl` (prepare.py: `{index, input, outputs, length,
length_w_model_temp, answer_prefix, ...}`, the input without its answer prefix) and
`pred/` (call_api.py: `{task}.jsonl`, or `{task}-{i}.jsonl` when the work was split in
chunks, with rows `{index, pred, input, outputs, others, truncation, length}`, whose
input is the data's input with its answer prefix: the prompt sent). eval/evaluate.py
merges the chunks of a task into `{task}.jsonl` (in the sorted order of their names),
scores every task and writes `summary.csv` (`summary-{task}.csv` for one task): rows
Tasks, Score (x100, rounded to 2 places) and Nulls (`empty/total`), under a header row
of column numbers. RULER's tasks are named as strings (`RULER_TASKS`, in
suites/ruler/tasks/rows.py, which the `ruler` input kind shares): the importer reads numbers
and prompts, it builds no example.
Every file is read with tasks/bounded_read.py, and a link that leads out of the folder
it was found in is refused.
"""

from __future__ import annotations

import csv
import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lctui.analysis.harness_import import MOST_TOKENS
from lctui.suites.ruler.tasks.rows import RULER_TASKS, RulerTask
from lctui.tasks.bounded_read import (
    MAX_LINE_BYTES,
    FileProblem,
    files_within,
    json_lines,
    json_object,
    shown,
    text_lines,
    within,
)

PRED_FOLDER = "pred"
DATA_FOLDER = "data"
SUBSETS = ("validation", "test")  # prepare.py's --subset: its data file's name
SUMMARY = "summary.csv"
_CHUNK = re.compile(r"^(?P<task>.+)-(?P<chunk>[0-9]+)\.jsonl$")
_SUMMARY_LINE_BYTES = 1024 * 1024  # evaluate.py's summary: a few short rows
_ONE_TASK_SUMMARY = re.compile(r"^summary-(?P<task>.+)\.csv$")
_NULLS = re.compile(r"[0-9]{1,9}/[0-9]{1,9}")


@dataclass(frozen=True)
class PredFolder:
    """One folder of prediction files (one model, benchmark and length in RULER's layout)."""

    path: Path
    model: str | None  # the model folder's name, when the layout names one
    benchmark: str | None
    length: int | None  # the length folder's name, when it is a number
    data: Path | None  # the data folder beside it, when there is one
    tasks: tuple[tuple[RulerTask, tuple[Path, ...]], ...]  # each task's files, in order
    others: tuple[Path, ...] = ()  # JSON-lines files named after no RULER task

    @property
    def files(self) -> int:
        return sum(len(paths) for _, paths in self.tasks) + len(self.others)


def pred_folders(root: Path) -> tuple[list[PredFolder], list[str]]:
    """Every prediction folder under `root` (folders named `pred`, or `root` itself when
    it holds JSON-lines files directly), in path order; and one problem line per link
    to a file outside `root` (refused)."""
    files, refused = files_within(root, (".jsonl",))
    root = root.resolve()
    by_folder: dict[Path, list[Path]] = {}
    for path in files:
        if path.parent.name == PRED_FOLDER or path.parent == root:
            by_folder.setdefault(path.parent, []).append(path)
    return [_folder(path, by_folder[path]) for path in sorted(by_folder)], refused


def _folder(path: Path, files: list[Path]) -> PredFolder:
    named: dict[str, list[tuple[int, str, Path]]] = {}
    others: list[Path] = []
    for file in sorted(files):
        chunk = _CHUNK.match(file.name)
        if file.stem in RULER_TASKS:
            named.setdefault(file.stem, []).append((0, "", file))
        elif chunk is not None and chunk["task"] in RULER_TASKS:
            # evaluate.py concatenates chunks in the sorted order of their names.
            named.setdefault(chunk["task"], []).append((1, file.name, file))
        else:
            others.append(file)
    tasks = tuple(
        (RULER_TASKS[name], tuple(p for *_, p in sorted(files)))
        for name, files in sorted(named.items(), key=lambda kv: list(RULER_TASKS).index(kv[0]))
    )
    parent = path.parent
    laid_out = path.name == PRED_FOLDER and parent.name.isascii() and parent.name.isdigit()
    length = int(parent.name) if laid_out and len(parent.name) <= 10 else None
    data = parent / DATA_FOLDER if path.name == PRED_FOLDER else None
    return PredFolder(
        path=path,
        model=parent.parent.parent.name if laid_out else None,
        benchmark=parent.parent.name if laid_out else None,
        length=length if length is not None and 0 < length <= MOST_TOKENS else None,
        data=data if data is not None and data.is_dir() else None,
        tasks=tasks,
        others=tuple(others),
    )


@dataclass(frozen=True)
class TaskSummary:
    """evaluate.py's line for one task: its score (x100, 2 places) and nulls."""

    path: Path
    score: float | None
    nulls: str


def read_summaries(folder: Path) -> tuple[dict[str, TaskSummary], list[str]]:
    """The task lines of the folder's summary files (a newer file wins for a task), and
    one problem line per file that cannot be read."""
    found: dict[str, TaskSummary] = {}
    problems: list[str] = []
    paths: list[tuple[int, str, Path]] = []
    for path in folder.glob("summary*.csv"):
        if path.name != SUMMARY and not _ONE_TASK_SUMMARY.match(path.name):
            continue
        if not within(folder, path):
            problems.append(f"{path}: a link to outside {folder}; not read")
        elif path.is_file():
            paths.append((path.stat().st_mtime_ns, path.name, path))
    for *_, path in sorted(paths):
        try:
            with path.open("rb") as handle:
                lines = text_lines(handle, path, _SUMMARY_LINE_BYTES)
                rows = {row[0]: row[1:] for row in csv.reader(lines) if row}
        except (OSError, FileProblem, csv.Error) as err:
            why = err.why if isinstance(err, FileProblem) else str(err)
            problems.append(f"{path}: not readable as evaluate.py's summary ({why}); not checked")
            continue
        tasks, scores, nulls = rows.get("Tasks"), rows.get("Score"), rows.get("Nulls")
        if tasks is None or scores is None or len(scores) != len(tasks):
            problems.append(f"{path}: no Tasks and Score rows of evaluate.py; not checked")
            continue
        for i, task in enumerate(tasks):
            null = nulls[i] if nulls is not None and i < len(nulls) else ""
            null = null if _NULLS.fullmatch(null) else ""  # `empty/total`, else not checked
            found[task] = TaskSummary(path, _float(scores[i]), null)
    for task in [t for t in found if t not in RULER_TASKS]:
        problems.append(f"{found.pop(task).path}: scores task {shown(task)}, not one of RULER's")
    return found, problems


def _float(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if 0.0 <= value <= 100.0 else None


def prompt_digest(text: str) -> str:
    # surrogatepass: a JSON `\ud800` escape decodes to a lone surrogate, which UTF-8 refuses.
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


@dataclass(frozen=True)
class DataRow:
    """What the importer keeps of one data row: not its input (re-read when needed),
    but the digest of the prompt it makes, to find the prediction of that prompt."""

    line: int
    offset: int  # of its line in the file, to read its input again
    digest: str  # of input + answer_prefix: the prompt call_api.py sent
    answer_prefix: str
    outputs: tuple[str, ...]
    fields: Mapping[str, Any]  # its other small fields (token_position_answer, ...)


@dataclass
class DataIndex:
    """The rows of one data file by their `index` (niah's rows reuse the name for the
    needle's character offset, so an index may repeat)."""

    path: Path
    rows: dict[str, list[DataRow]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def match(self, index: Any, prompt: str | None, outputs: Sequence[str]) -> DataRow | None:
        """The data row of a prediction row: the one whose prompt it sent, or without its
        prompt the only row of its index and answers."""
        rows = self.rows.get(str(index), [])
        if prompt is not None:
            digest = prompt_digest(prompt)
            return next((r for r in rows if r.digest == digest), None)
        same = [r for r in rows if list(r.outputs) == list(outputs)]
        return same[0] if len(same) == 1 else None

    def input_of(self, row: DataRow) -> str | None:
        """The input of `row`, read from its line again (None when the file changed)."""
        with self.path.open("rb") as handle:
            handle.seek(row.offset)
            line = handle.readline(MAX_LINE_BYTES + 1)
        found = json_object(line, first=row.line == 1) if len(line) <= MAX_LINE_BYTES else ""
        text = found.get("input") if not isinstance(found, str) else None
        return text if isinstance(text, str) else None


def data_file(folder: PredFolder, task: str) -> Path | None:
    """The task's data file beside the predictions (data/{task}/validation.jsonl), if it
    is in the data folder (not a link out of it)."""
    if folder.data is None:
        return None
    for subset in SUBSETS:
        path = folder.data / task / f"{subset}.jsonl"
        if path.is_file() and within(folder.data, path):
            return path
    return None


_SMALL = 200  # characters: data fields kept in the example's metadata


def read_data_index(path: Path) -> DataIndex:
    """The index of a data file; unreadable lines are problems (the predictions of those
    rows are imported without their data row)."""
    index = DataIndex(path)
    for line, offset, row in json_lines(path):
        if isinstance(row, str):
            index.problems.append(f"{path}:{line}: {row}; its prediction is imported without it")
            continue
        text, prefix, outputs = row.get("input"), row.get("answer_prefix", ""), row.get("outputs")
        if (
            not isinstance(text, str)
            or not isinstance(prefix, str)
            or not isinstance(outputs, list)
        ):
            index.problems.append(f"{path}:{line}: no input, answer_prefix and outputs; skipped")
            continue
        small = {
            k: v
            for k, v in row.items()
            if k not in ("input", "answer_prefix", "outputs", "index") and len(repr(v)) <= _SMALL
        }
        entry = DataRow(
            line,
            offset,
            prompt_digest(text + prefix),
            prefix,
            tuple(str(o) for o in outputs),
            small,
        )
        index.rows.setdefault(str(row.get("index")), []).append(entry)
    return index
