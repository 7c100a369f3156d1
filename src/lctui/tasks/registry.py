"""All tasks by name, and selection by name, category, suite or glob (`niah_*`).

Those each suite declares (`Suite.tasks`, core/suites.py) and HELMET's still here, suite
by suite in the listing order (`listing_order`: RULER's first), imported the first time
a task is asked for; a suite's tasks are never imported here."""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from lctui.core.errors import UserInputError
from lctui.core.suites import Suite, all_suites, listing_order
from lctui.tasks.base import Task
from lctui.tasks.helmet import helmet_data_tasks
from lctui.tasks.json_kv import json_kv_tasks


def _helmet_tasks() -> list[Task]:
    return [*json_kv_tasks(), *helmet_data_tasks()]


# The tasks of a suite that does not declare them yet (`Suite.tasks`), by suite name.
_HERE = {"helmet": _helmet_tasks}


@lru_cache(maxsize=1)
def _all() -> dict[str, Task]:
    # In the listing order, as task_groups lists them (tasks/groups.py), whatever the
    # order the suites load in.
    suites = sorted(all_suites(), key=lambda suite: listing_order(suite.name))
    tasks = [t for suite in suites for t in _tasks_of(suite)]
    return {t.name: t for t in tasks}


def _tasks_of(suite: Suite) -> list[Task]:
    here = _HERE.get(suite.name)
    if here is not None:
        return here()
    return list(suite.tasks()) if suite.tasks else []


def all_tasks() -> list[Task]:
    return list(_all().values())


def get_task(name: str) -> Task:
    try:
        return _all()[name]
    except KeyError:
        raise UserInputError(
            f"unknown task {name!r}; known tasks: {', '.join(_all())} "
            f"(or a category: {', '.join(categories())})"
        ) from None


def categories() -> list[str]:
    return sorted({t.category for t in _all().values()} | {t.suite for t in _all().values()})


def select_tasks(spec: str, params: Mapping[str, Mapping[str, Any]] | None = None) -> list[Task]:
    """Tasks for a comma-separated list of names, categories, suites or globs.

    `params` maps task names to parameter overrides.
    """
    chosen: list[Task] = []
    for item in (part.strip() for part in spec.split(",")):
        if not item:
            continue
        matches = [
            t
            for t in _all().values()
            if item in (t.name, t.category, t.suite) or fnmatch.fnmatchcase(t.name, item)
        ]
        if not matches:
            get_task(item)  # raises with the list of known names
        chosen.extend(t for t in matches if t not in chosen)
    if not chosen:
        raise UserInputError(
            "no task selected: use e.g. --tasks synthetic or --tasks niah_single_1"
        )
    overrides = params or {}
    for name in overrides:
        get_task(name)
    return [t.with_params(overrides[t.name]) if t.name in overrides else t for t in chosen]
