"""The async scheduler: fan out examples x models, stream, score, persist, resume."""

from lctui.engine.plan import RunRequest, WorkItem, generation_key
from lctui.engine.runner import Engine, RunOutcome

__all__ = ["Engine", "RunOutcome", "RunRequest", "WorkItem", "generation_key"]
