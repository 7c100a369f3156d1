"""LIFBench (instruction following in long contexts): List, MultiDoc and OneDoc scenarios."""

from __future__ import annotations

from lctui.suites.lifbench.tasks.list_tasks import LIST_TASKS, list_tasks
from lctui.suites.lifbench.tasks.multidoc import multidoc_tasks
from lctui.suites.lifbench.tasks.onedoc import onedoc_tasks
from lctui.tasks.base import Task


def lifbench_tasks() -> list[Task]:
    """The 11 tasks in LIFBench's order: List, MultiDoc, OneDoc."""
    return [*list_tasks(), *multidoc_tasks(), *onedoc_tasks()]


__all__ = ["LIST_TASKS", "lifbench_tasks"]
