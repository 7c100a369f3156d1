"""LIFBench multidoc scenario (not written yet)."""

from __future__ import annotations

from lctui.tasks.base import Task


def multidoc_tasks() -> list[Task]:
    return []
