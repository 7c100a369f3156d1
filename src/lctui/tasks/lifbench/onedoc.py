"""LIFBench onedoc scenario (not written yet)."""

from __future__ import annotations

from lctui.tasks.base import Task


def onedoc_tasks() -> list[Task]:
    return []
