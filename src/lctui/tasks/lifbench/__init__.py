"""LIFBench (instruction following in long contexts): the List scenario."""

from __future__ import annotations

from lctui.tasks.lifbench.list_tasks import LIST_TASKS, lifbench_tasks

__all__ = ["LIST_TASKS", "lifbench_tasks"]
