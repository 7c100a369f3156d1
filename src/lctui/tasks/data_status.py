"""What `lctui data` reports of each dataset in the catalog, asked of the tasks that read it.

`dataset_status` says whether a dataset is there (every task reading it can run:
present; some of it: partial), which files its tasks found, where (the data folder, the
hub cache) and their size; it reads no file. `check_task` reads a task's data: what is
missing, which lines are malformed, and which lengths the data fills (`Task.data_reach`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from lctui.core.errors import LctuiError
from lctui.tasks.base import Task
from lctui.tasks.catalog import Dataset
from lctui.tasks.datasets import DataProblem, DataSource, read_records
from lctui.tasks.reach import Reach

BUILT_IN, PRESENT, PARTIAL, MISSING = "built in", "present", "partial", "missing"
READABLE = (".json", ".jsonl", ".parquet")


@dataclass(frozen=True)
class DatasetStatus:
    """A dataset's presence as its tasks see it."""

    dataset: Dataset
    state: str  # BUILT_IN, PRESENT, PARTIAL or MISSING
    files: tuple[Path, ...]  # what its tasks found, each once
    size: int  # bytes on disk of `files`
    places: tuple[str, ...]  # where they are: the data folder, the hub cache, ...
    missing: tuple[tuple[str, str], ...]  # (task, why it cannot run)


def hub_cache() -> Path | None:
    """The standard Hugging Face hub cache (HF_HUB_CACHE, HF_HOME/hub), when
    huggingface_hub is installed."""
    try:
        from huggingface_hub import constants
    except ImportError:
        return None
    return Path(constants.HF_HUB_CACHE)


def place_of(path: Path, source: DataSource | None, cache: Path | None) -> str:
    """Where a data file is, as `lctui data` says it."""
    if source is not None and source.folder is not None and path.is_relative_to(source.folder):
        return str(source.folder)
    if cache is not None and path.is_relative_to(cache):
        return f"hub cache ({cache})"
    return str(path.parent)


def dataset_status(
    dataset: Dataset, tasks: Mapping[str, Task], source: DataSource | None
) -> DatasetStatus:
    """`dataset` as `tasks` (every task by name, bound to `source`) find it."""
    readers = [tasks[name] for name in dataset.tasks if name in tasks]
    if dataset.builtin:
        return DatasetStatus(dataset, BUILT_IN, (), 0, (), ())
    files = tuple(dict.fromkeys(f for task in readers for f in task.data_files()))
    missing = tuple((task.name, why) for task in readers if (why := task.unavailable()) is not None)
    if not missing:
        state = PRESENT
    elif files or len(missing) < len(readers):
        state = PARTIAL
    else:
        state = MISSING
    cache = hub_cache()
    places = tuple(dict.fromkeys(place_of(f, source, cache) for f in files))
    return DatasetStatus(dataset, state, files, disk_size(files), places, missing)


def disk_size(files: Sequence[Path]) -> int:
    """Bytes of `files`, each stored file counted once (hub snapshots link to blobs)."""
    real = {os.path.realpath(f) for f in files}
    return sum(os.path.getsize(f) for f in real if os.path.isfile(f))


@dataclass(frozen=True)
class TaskCheck:
    """One task's data, read: why it cannot run, or the lengths it fills and the lines
    it skips; `error` when the files are there but hold nothing the task can use."""

    task: str
    missing: str | None
    reach: Reach | None
    problems: tuple[DataProblem, ...]
    error: str | None = None

    @property
    def malformed(self) -> bool:
        return bool(self.problems) or self.error is not None


def check_task(task: Task, lengths: Sequence[int]) -> TaskCheck:
    """Read `task`'s data (once: the loaders cache what they read) and say what it holds."""
    why = task.unavailable()
    if why is not None:
        return TaskCheck(task.name, why, None, ())
    try:
        problems = task.data_problems()
        reach = task.data_reach(lengths)
    except LctuiError as err:
        # Nothing usable (every row malformed, say): the lines JSON itself rejects
        # are still worth listing, with their file and line.
        return TaskCheck(task.name, None, None, _file_problems(task), str(err))
    return TaskCheck(task.name, None, reach, problems)


def _file_problems(task: Task) -> tuple[DataProblem, ...]:
    found: list[DataProblem] = []
    for path in task.data_files():
        if path.suffix.lower() in READABLE:
            found += read_records(path).problems
    return tuple(found)


def unique_problems(checks: Sequence[TaskCheck]) -> list[DataProblem]:
    """The problems of `checks`, each file line once (tasks may share a file)."""
    seen: dict[tuple[str, int, str], DataProblem] = {}
    for check in checks:
        for problem in check.problems:
            seen.setdefault((problem.path, problem.line, problem.reason), problem)
    return list(seen.values())
