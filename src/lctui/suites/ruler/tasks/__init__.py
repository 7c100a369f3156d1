"""RULER's tasks: the needles (niah.py), variable tracking (tracking.py), the common and
frequent words (aggregation.py), qa_1 and qa_2 (qa.py), and RULER's rows as lctui reads
them (rows.py, shared by the `ruler` input kind and the importer)."""

from __future__ import annotations

from lctui.suites.ruler.tasks.aggregation import aggregation_tasks
from lctui.suites.ruler.tasks.niah import needle_tasks
from lctui.suites.ruler.tasks.qa import ruler_qa_tasks
from lctui.suites.ruler.tasks.tracking import tracking_tasks
from lctui.tasks.base import Task


def ruler_tasks() -> list[Task]:
    """RULER's 13 tasks in its order: synthetic (needles, tracking, aggregation), then qa."""
    return [*needle_tasks(), *tracking_tasks(), *aggregation_tasks(), *ruler_qa_tasks()]
