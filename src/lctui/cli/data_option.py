"""`--data DIR`: where tasks that read real datasets find them, and binding tasks to it.

The folder (or `hf://ORG/NAME` hub dataset) comes from `--data`, else `data_dir` in
lctui.toml. Tasks whose data is missing stay listed with the reason (`lctui tasks`);
`lctui run` leaves them out with that reason when other selected tasks can run, and
refuses when none can.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from lctui.core.config import Config
from lctui.core.errors import UserInputError
from lctui.tasks.base import Task
from lctui.tasks.datasets import DataProblem, DataSource, parse_source


def data_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data",
        metavar="DIR",
        help="real datasets: a copy of a data release (e.g. HELMET's data/ with kilt/) or "
        "a Hugging Face dataset hf://ORG/NAME read from the hub cache; default: data_dir "
        "in lctui.toml",
    )


def data_source(args: argparse.Namespace, config: Config) -> DataSource | None:
    given = getattr(args, "data", None)
    if given:
        return parse_source(given, "--data")
    if config.data_dir:
        return parse_source(config.data_dir, f"data_dir in {config.path}")
    return None


def bind_data(tasks: Sequence[Task], source: DataSource | None) -> list[Task]:
    return [task.with_data(source) for task in tasks]


def tasks_by_name(source: DataSource | None) -> dict[str, Task]:
    """Every task by name, bound to `source` (what `lctui data` asks about datasets)."""
    from lctui.tasks import all_tasks

    return {task.name: task for task in bind_data(all_tasks(), source)}


def listed_tasks(tasks: Sequence[Task], config: Config) -> list[Task]:
    """`tasks` bound to the config's data_dir, for a list that shows what can run (the
    launch screen); an unusable data_dir leaves the data tasks unbound (shown missing)."""
    try:
        source = parse_source(config.data_dir, "data_dir") if config.data_dir else None
    except UserInputError:
        source = None
    return bind_data(tasks, source)


def runnable_tasks(tasks: Sequence[Task]) -> tuple[list[Task], list[str]]:
    """The tasks that can build examples, and one note per task left out (with why).

    Raises a UserInputError when no selected task can run.
    """
    ready = [t for t in tasks if t.unavailable() is None]
    notes = [f"{t.name} left out: {t.unavailable()}" for t in tasks if t.unavailable() is not None]
    if not ready:
        raise UserInputError("; ".join(note.replace(" left out:", ":", 1) for note in notes))
    return ready, notes


def data_problems(tasks: Sequence[Task]) -> list[DataProblem]:
    """Skipped lines of every task's data files, each file reported once."""
    seen: set[tuple[str, int]] = set()
    problems: list[DataProblem] = []
    for task in tasks:
        for problem in task.data_problems():
            if (problem.path, problem.line) not in seen:
                seen.add((problem.path, problem.line))
                problems.append(problem)
    return problems
