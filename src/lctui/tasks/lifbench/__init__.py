"""LIFBench (instruction following in long contexts): List, MultiDoc and OneDoc scenarios."""

from __future__ import annotations

from lctui.tasks.base import Task
from lctui.tasks.lifbench.list_tasks import LIST_TASKS, list_tasks
from lctui.tasks.lifbench.multidoc import multidoc_tasks
from lctui.tasks.lifbench.onedoc import onedoc_tasks


def lifbench_tasks() -> list[Task]:
    """The 11 tasks in LIFBench's order: List, MultiDoc, OneDoc."""
    return [*list_tasks(), *multidoc_tasks(), *onedoc_tasks()]


__all__ = ["LIST_TASKS", "lifbench_tasks"]
