"""How task lists are grouped for people (the launch screen's tree, `lctui tasks`):
RULER's tasks by category (synthetic, then qa), HELMET's in its seven categories in
HELMET's order, then the other suites by name (their tasks come from the registry in
the order the suites load, so the name, not that order, places them), by category.

HELMET's recall category is its JSON KV plus three RULER needle tasks, so those three
appear under both RULER's synthetic group and HELMET's recall (`TaskGroup.tasks` of
each); a list that shows every task once (`lctui tasks`) shows them with RULER.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lctui.core.suites import listing_order
from lctui.tasks.base import Task

# HELMET's categories in the order of its tables (recall = "synthetic recall").
HELMET_CATEGORIES: tuple[str, ...] = ("recall", "rag", "cite", "rerank", "icl", "longqa", "summ")
# HELMET's recall column, in its order: JSON KV and RULER's MK needle, MK UUID and MV.
HELMET_RECALL: tuple[str, ...] = (
    "json_kv",
    "niah_multikey_2",
    "niah_multikey_3",
    "niah_multivalue",
)
HELMET = "helmet"


@dataclass(frozen=True)
class TaskGroup:
    """A heading and the tasks under it, in order."""

    suite: str
    category: str
    tasks: tuple[Task, ...]

    @property
    def label(self) -> str:
        return f"{self.category} ({self.suite.upper()})"


def helmet_category_of(task: Task) -> str | None:
    """The HELMET category a task counts in (its own for HELMET's data tasks), or None."""
    if task.name in HELMET_RECALL:
        return "recall"
    return task.category if task.suite == HELMET else None


def task_groups(tasks: Sequence[Task]) -> list[TaskGroup]:
    """`tasks` grouped: RULER's categories, HELMET's seven (those with a task here) in
    HELMET's order, then other suites' categories, suites by name; within a group, the order given
    (HELMET's recall in HELMET's order)."""
    groups: dict[tuple[str, str], list[Task]] = {}
    for task in tasks:
        category = helmet_category_of(task) if task.suite == HELMET else task.category
        groups.setdefault((task.suite, category or task.category), []).append(task)
    recall = [t for name in HELMET_RECALL for t in tasks if t.name == name]
    if recall:
        groups[HELMET, "recall"] = recall

    def order(key: tuple[str, str]) -> tuple[int, str, int]:
        suite, category = key
        rank, name = listing_order(suite)
        within = HELMET_CATEGORIES.index(category) if category in HELMET_CATEGORIES else 99
        return rank, name, within if suite == HELMET else 0

    keys = sorted(groups, key=order)  # stable: equal ranks keep their first appearance
    return [TaskGroup(suite, category, tuple(groups[suite, category])) for suite, category in keys]
