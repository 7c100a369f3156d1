"""Task families that build examples to an exact token budget."""

from lctui.tasks.base import Task, truncate_example
from lctui.tasks.registry import all_tasks, categories, get_task, select_tasks

__all__ = ["Task", "all_tasks", "categories", "get_task", "select_tasks", "truncate_example"]
