"""LongBench v2 (THUDM/LongBench): 503 hard four-option questions over long contexts."""

from lctui.suites.longbench.tasks.task import LongBenchV2, longbench_tasks

__all__ = ["LongBenchV2", "longbench_tasks"]
