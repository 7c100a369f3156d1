"""LongBench v2's dataset as `lctui data` lists, checks and fetches it."""

from __future__ import annotations

from lctui.suites.longbench.tasks.data import DATA_FILE, HUB_REPO
from lctui.tasks.catalog import HUB, Dataset, HubFiles

DATASETS: tuple[Dataset, ...] = (
    Dataset(
        name="longbench_v2",
        suite="longbench",
        title="LongBench v2 (503 four-option questions over 8K to 2M words)",
        tasks=("longbench_v2", "longbench_v2_cot", "longbench_v2_no_context"),
        licence="Apache-2.0",
        homepage=f"{HUB}{HUB_REPO}",
        downloads=(HubFiles(HUB_REPO, files=(DATA_FILE,), size="465 MB"),),
    ),
)
