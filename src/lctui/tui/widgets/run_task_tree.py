"""The launch screen's task picker: a tree of categories, tasks and their parameters.

Enter (or a click) ticks a task, or every task of a category; space unfolds a task
to show its parameters with their values; enter on a parameter edits it (the screen
opens the editor; `set_param` keeps a value the task accepts, shown in bold beside
its default). The highlighted node's description is posted for the detail line under
the tree.

Task names fit the tree's width, never cut at their end (`core.text.fold_names`: a
family too long for the panel loses its shared prefix, `…offset_query_id`); a task's
description follows its name where there is room, and the detail line says it all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from lctui.core.errors import LctuiError
from lctui.core.text import fold_names
from lctui.core.types import ParamSpec, TaskInfo
from lctui.tasks import Task
from lctui.tasks.groups import task_groups
from lctui.tui.state.launch_choices import shown_value
from lctui.tui.widgets.tick_list import UNTICKED, tick_mark

# What a task's line holds before its name: the unfold icon and the tick mark.
_ICON_WIDTH = 2
_MIN_DESCRIPTION = 8  # fewer cells left after the name: no description on the line


@dataclass(frozen=True)
class TaskNode:
    """What a tree node stands for: a category, a task or one parameter of a task."""

    kind: str  # "category" | "task" | "param"
    name: str
    info: TaskInfo | None = None
    param: ParamSpec | None = None
    unavailable: str | None = None  # why the task cannot run (its data is missing)


def describe_node(node: TaskNode) -> str:
    """The detail line for a highlighted node."""
    if node.kind == "category":
        return f"{node.name}: enter ticks every task of the category."
    if node.info is not None and node.kind == "task":
        info = node.info
        params = ", ".join(f"{p.name}={p.default}" for p in info.params) or "none"
        if node.unavailable is not None:
            return f"{info.name} is unavailable: {node.unavailable}"
        return (
            f"{info.name} ({info.suite}): {info.description}. Metric {info.metric}, "
            f"up to {info.max_new_tokens} answer tokens. Parameters: {params}"
        )
    if node.param is not None:
        allowed = node.param.allowed()
        accepts = f" (accepts {allowed})" if allowed else ""
        return f"{node.name} = {node.param.default}{accepts}: {node.param.help}. enter: edit"
    return ""


class TaskTree(Tree[TaskNode]):
    """Tasks by category; `checked` holds the names of the ticked tasks."""

    DEFAULT_CSS = """
    TaskTree { scrollbar-size-vertical: 1; }
    """

    def __init__(self, tasks: Sequence[Task], *, id: str | None = None) -> None:
        super().__init__("tasks", id=id)
        self.show_root = False
        self.guide_depth = 2  # the narrowest guides: the names get the room
        self.auto_expand = False  # enter ticks; space (toggle_node) unfolds the parameters
        self.checked: list[str] = []  # in the order ticked, which is the run's order
        self.overrides: dict[str, dict[str, Any]] = {}  # task -> parameter -> value set
        self._tasks = {t.name: t for t in tasks}
        # A task's first node, and every node of it: HELMET's recall lists three RULER
        # needle tasks again (tasks/groups.py); ticking one ticks the task once.
        self._task_nodes: dict[str, TreeNode[TaskNode]] = {}
        self._all_nodes: dict[str, list[TreeNode[TaskNode]]] = {}
        self._shown: dict[int, str] = {}  # node id -> the name as it fits the width
        self._fitted_to = 0  # the width the names were fitted to
        for group in task_groups(tasks):
            branch = self.root.add(group.label, data=TaskNode("category", group.label), expand=True)
            for task in group.tasks:
                info = task.info()
                missing = task.unavailable()
                node = TaskNode("task", task.name, info, unavailable=missing)
                leaf = branch.add(self._label(info, False, missing is not None), data=node)
                self._task_nodes.setdefault(task.name, leaf)
                self._all_nodes.setdefault(task.name, []).append(leaf)
                for param in info.params:
                    leaf.add_leaf(
                        self._param_label(param, {}),
                        data=TaskNode("param", param.name, info, param),
                    )

    def _label(
        self, info: TaskInfo, checked: bool, unavailable: bool = False, shown: str | None = None
    ) -> Text:
        name = info.name if shown is None else shown
        room = self._fitted_to - len(UNTICKED) - len(name) - 2
        if unavailable:  # greyed out: the detail line says why and where to get the data
            return Text.assemble(
                (tick_mark(False, available=False) + name, "dim strike"),
                ("  no data" if room >= len("no data") else "", "dim italic"),
            )
        described = room >= _MIN_DESCRIPTION or not self._fitted_to
        return Text.assemble(
            (tick_mark(checked), "bold" if checked else ""),
            (name, "bold" if checked else ""),
            ("  " + info.description if described else "", "dim"),
        )

    def on_resize(self) -> None:
        self._fit_names()

    def _fit_names(self) -> None:
        """Relabel every task for the width the tree has now."""
        width = self.scrollable_content_region.width
        if width <= 0 or width == self._fitted_to:
            return
        self._fitted_to = width
        room = width - self.guide_depth - _ICON_WIDTH - len(UNTICKED)
        for branch in self.root.children:
            leaves = [leaf for leaf in branch.children if leaf.data is not None]
            names = fold_names([leaf.data.name for leaf in leaves if leaf.data], room)
            for leaf, name in zip(leaves, names, strict=True):
                self._shown[leaf.id] = name
                self._relabel(leaf)

    def _relabel(self, node: TreeNode[TaskNode]) -> None:
        data = node.data
        if data is None or data.info is None or data.kind != "task":
            return
        checked = data.name in self.checked
        missing = data.unavailable is not None
        node.set_label(self._label(data.info, checked, missing, self._shown.get(node.id)))

    @staticmethod
    def _param_label(param: ParamSpec, changed: Mapping[str, Any]) -> Text:
        """`name = value`; a value set here stands out, its default beside it."""
        if param.name not in changed:
            return Text.assemble((param.name, "bold"), f" = {shown_value(param.default)}")
        return Text.assemble(
            (param.name, "bold"),
            (f" = {shown_value(changed[param.name])}", "bold reverse"),
            (f"  default {shown_value(param.default)}", "dim"),
        )

    def listed_task(self, name: str) -> Task:
        """The task as listed (its parameters at their defaults)."""
        return self._tasks[name]

    def selected_tasks(self) -> list[Task]:
        """The ticked tasks, in the order ticked, with the parameters set here."""
        return [
            self._tasks[name].with_params(self.overrides[name])
            if self.overrides.get(name)
            else self._tasks[name]
            for name in self.checked
        ]

    def set_param(self, task: str, name: str, value: Any) -> None:
        """Keep `value` for a parameter (checked by the caller as `--set` checks it);
        the default's own value clears the change."""
        changed = self.overrides.setdefault(task, {})
        if value == self._tasks[task].params[name]:
            changed.pop(name, None)
        else:
            changed[name] = value
        if not changed:
            del self.overrides[task]
        for node in self._all_nodes.get(task, []):
            for child in node.children:
                data = child.data
                if data is not None and data.param is not None and data.name == name:
                    child.set_label(self._param_label(data.param, changed))

    def tick_remembered(self, names: Sequence[str]) -> list[str]:
        """Tick tasks by name; a task that is gone or cannot run now is left out, with why."""
        left: list[str] = []
        for name in names:
            node = self._task_nodes.get(name)
            data = node.data if node is not None else None
            if data is None:
                left.append(f"task {name}: no such task now")
            elif data.unavailable is not None:
                left.append(f"task {name}: {data.unavailable}")
            else:
                self.set_checked(name, True)
        return left

    def set_params(self, overrides: Mapping[str, Mapping[str, Any]]) -> list[str]:
        """Set remembered parameters; what no longer applies is left out, each with why."""
        dropped = []
        for task, values in overrides.items():
            for name, value in values.items():
                listed = self._tasks.get(task)
                if listed is None or name not in listed.params:
                    dropped.append(f"{task}.{name}: no such parameter now")
                    continue
                try:
                    listed.with_params({**self.overrides.get(task, {}), name: value})
                except LctuiError as exc:  # the task's bounds changed since
                    dropped.append(f"{task}.{name}: {exc}")
                    continue
                self.set_param(task, name, value)
        return dropped

    def set_checked(self, name: str, checked: bool) -> None:
        node = self._task_nodes[name]
        if checked and node.data is not None and node.data.unavailable is not None:
            return  # a task without its data cannot be ticked
        if checked and name not in self.checked:
            self.checked.append(name)
        elif not checked and name in self.checked:
            self.checked.remove(name)
        for each in self._all_nodes[name]:
            self._relabel(each)

    def toggle(self, node: TreeNode[TaskNode]) -> bool:
        """Tick or untick a task, or all tasks of a category; False for other nodes."""
        data = node.data
        if data is None or data.kind == "param":
            return False
        if data.kind == "task":
            if data.unavailable is None:
                self.set_checked(data.name, data.name not in self.checked)
            return True
        names = [
            c.data.name for c in node.children if c.data is not None and c.data.unavailable is None
        ]
        tick = not all(name in self.checked for name in names)
        for name in names:
            self.set_checked(name, tick)
        return True
